import Foundation
import HTTPTypes
import QueueClientCore

/// Runs a scenario in virtual time: the same client-core machines against the same room
/// service, in-process, on a discrete-event loop. No task or thread per visitor: a visitor is
/// a `VisitorMachine` value in an array slot, and an event is `(time, sequence, slot, what)`.
///
/// Arrivals are pulled from the plan lazily (one pending arrival at a time), so the heap holds
/// only events of visitors already in flight.
public struct VirtualClockRunner: Sendable {
    public let run: PreparedRun
    public let status: LiveRunStatus
    public let stopSignal: RunStopSignal

    /// How many events between two looks at the stop signal and two progress publications.
    static let publishEvery = 16_384

    public init(run: PreparedRun, status: LiveRunStatus, stopSignal: RunStopSignal) {
        self.run = run
        self.status = status
        self.stopSignal = stopSignal
    }

    enum Event {
        case wake(slot: Int)
        case response(slot: Int, IncomingResponse)
        case failure(slot: Int, TransportError)
    }

    /// One visitor in flight: its machine and what its report row needs from the plan.
    struct Slot {
        var machine: VisitorMachine
        var visitor: PlannedVisitor
    }

    public func execute() throws -> RunReport {
        let startedAt = Date()
        let scenario = run.scenario
        let recorder = try Recorder(directory: scenario.reportsDirectory, description: run.runDescription)
        let roomConfiguration = RoomSetup.configuration(
            for: run, epochUnixSeconds: WaitingRoomConfiguration.virtualEpochUnixSeconds)
        let room = WaitingRoomService(configuration: roomConfiguration)
        let judge = TokenJudge(
            secretKey: roomConfiguration.settings.secretKey,
            epochUnixSeconds: WaitingRoomConfiguration.virtualEpochUnixSeconds)
        var simulation = try Simulation(
            run: run, room: room, recorder: recorder, tokenJudge: judge, status: status, stopSignal: stopSignal)
        try simulation.run(until: scenario.run.duration.map { Instant.origin + $0 })
        return try recorder.finish(
            RunEnding(
                end: simulation.loop.now, startedAt: startedAt, endedAt: Date(),
                interrupted: stopSignal.wasInterrupted))
    }
}

/// The mutable state of one virtual run.
struct Simulation {
    let run: PreparedRun
    let room: WaitingRoomService
    let recorder: Recorder
    let tokenJudge: TokenJudge
    let status: LiveRunStatus
    let stopSignal: RunStopSignal

    var loop = DiscreteEventLoop<VirtualClockRunner.Event>()
    var slots: [VirtualClockRunner.Slot?] = []
    var freeSlots: [Int] = []
    var plan: VisitorPlan
    var pendingArrival: PlannedVisitor?
    var progress = LiveRunStatus.Snapshot()
    var eventsSincePublish = 0

    init(
        run: PreparedRun, room: WaitingRoomService, recorder: Recorder, tokenJudge: TokenJudge,
        status: LiveRunStatus, stopSignal: RunStopSignal
    ) throws {
        self.run = run
        self.room = room
        self.recorder = recorder
        self.tokenJudge = tokenJudge
        self.status = status
        self.stopSignal = stopSignal
        plan = try run.makePlan()
        pendingArrival = try plan.next()
        progress.planned = run.summary.visitorCount
    }

    mutating func run(until deadline: Instant?) throws {
        while true {
            let nextEvent = loop.nextTime
            let nextArrival = pendingArrival?.arrival
            // Arrivals at the same instant as an event go first: they were "scheduled" earlier.
            let next: Instant? =
                switch (nextEvent, nextArrival) {
                case (nil, nil): nil
                case (let event?, nil): event
                case (nil, let arrival?): arrival
                case (let event?, let arrival?): min(event, arrival)
                }
            guard let next else { break }
            if let deadline, next > deadline {
                loop.advance(to: deadline)
                try stopAll(reason: .runEnded)
                return
            }
            if let arrival = pendingArrival, arrival.arrival == next {
                loop.advance(to: next)
                pendingArrival = try plan.next()
                try arrive(arrival)
            } else if let (_, event) = loop.step() {
                try handle(event)
            }
            eventsSincePublish += 1
            if eventsSincePublish >= VirtualClockRunner.publishEvery {
                eventsSincePublish = 0
                publish()
                if stopSignal.reason != nil {
                    try stopAll(reason: .interrupted)
                    return
                }
            }
        }
        publish()
    }

    private mutating func arrive(_ visitor: PlannedVisitor) throws {
        progress.arrived += 1
        progress.started += 1
        var machine = VisitorMachine(configuration: run.visitorConfiguration(for: visitor))
        let action = machine.start(at: loop.now)
        let slot = allocate(VirtualClockRunner.Slot(machine: machine, visitor: visitor))
        try perform(action, slot: slot, phaseBefore: .notStarted)
    }

    private mutating func handle(_ event: VirtualClockRunner.Event) throws {
        let slotIndex: Int
        switch event {
        case .wake(let slot), .response(let slot, _), .failure(let slot, _): slotIndex = slot
        }
        guard var slot = slots[slotIndex] else { return }
        let before = slot.machine.phase
        let action: VisitorMachine.Action
        switch event {
        case .wake: action = slot.machine.waited(at: loop.now)
        case .response(_, let response): action = slot.machine.received(response, at: loop.now)
        case .failure(_, let error): action = slot.machine.failed(error, at: loop.now)
        }
        slots[slotIndex] = slot
        try perform(action, slot: slotIndex, phaseBefore: before)
    }

    private mutating func perform(_ action: VisitorMachine.Action, slot: Int, phaseBefore: VisitorPhase) throws {
        let phaseAfter = slots[slot]!.machine.phase
        if phaseBefore != .inQueue, phaseAfter == .inQueue { progress.inQueue += 1 }
        if phaseBefore == .inQueue, phaseAfter != .inQueue { progress.inQueue -= 1 }
        switch action {
        case .wait(let deadline):
            loop.schedule(.wake(slot: slot), at: deadline)
        case .send(let request, let timeout):
            send(request, timeout: timeout, slot: slot)
        case .finish(let result):
            try finish(slot: slot, result: result)
        }
    }

    /// Hands the request to the room at once; its answer (or the client's timeout) becomes an
    /// event after the modelled delay.
    private mutating func send(_ request: OutgoingRequest, timeout: Duration, slot: Int) {
        let now = loop.now
        recorder.recordRequest(at: now)
        progress.requests += 1
        switch room.handle(request.head, body: request.body ?? [], at: now) {
        case .response(let head, let body, let delay):
            if delay >= timeout {
                loop.schedule(.failure(slot: slot, .timedOut), at: now + timeout)
            } else {
                loop.schedule(.response(slot: slot, IncomingResponse(head: head, body: body)), at: now + delay)
            }
        case .reset(let after):
            if after >= timeout {
                loop.schedule(.failure(slot: slot, .timedOut), at: now + timeout)
            } else {
                loop.schedule(.failure(slot: slot, .connectionReset), at: now + after)
            }
        case .noAnswer:
            loop.schedule(.failure(slot: slot, .timedOut), at: now + timeout)
        }
    }

    private mutating func finish(slot: Int, result: VisitorResult) throws {
        guard let finished = slots[slot] else { return }
        slots[slot] = nil
        freeSlots.append(slot)
        let record = VisitorRecord(
            visitor: finished.visitor, result: result, run: run, configuration: finished.machine.configuration,
            tokenJudge: tokenJudge)
        try recorder.record(record)
        progress.finished += 1
        progress.outcomes[result.outcome, default: 0] += 1
    }

    /// Ends every visitor still in flight (in slot order, which is deterministic).
    private mutating func stopAll(reason: StopReason) throws {
        for index in slots.indices {
            guard var slot = slots[index] else { continue }
            let wasInQueue = slot.machine.phase == .inQueue
            let result = slot.machine.stop(at: loop.now, reason: reason)
            slots[index] = slot
            if wasInQueue { progress.inQueue -= 1 }
            try finish(slot: index, result: result)
        }
        publish()
    }

    private mutating func allocate(_ slot: VirtualClockRunner.Slot) -> Int {
        if let free = freeSlots.popLast() {
            slots[free] = slot
            return free
        }
        slots.append(slot)
        return slots.count - 1
    }

    private func publish() {
        var snapshot = progress
        snapshot.now = loop.now
        status.publish(snapshot)
    }
}
