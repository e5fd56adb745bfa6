import NIOCore
import QueueClientCore
import Synchronization

/// Where a stopping run ends, for every loop at once: set (once) by the stop signal's
/// handler before the loops hear of the stop, read by the loops before every start.
final class LiveStopLine: Sendable {
    private let nanoseconds = Atomic<Int64>(.max)

    /// `RunInstant` far in the future until the run is stopped.
    var instant: RunInstant {
        RunInstant(sinceOrigin: .nanoseconds(nanoseconds.load(ordering: .acquiring)))
    }

    func draw(at instant: RunInstant) {
        nanoseconds.store(instant.sinceOrigin.wholeNanoseconds, ordering: .releasing)
    }
}

/// One event loop's share of a live run: the visitors whose index is `shard` modulo `shards`,
/// as slots on a calendar of wake-ups and request deadlines (the virtual runner's
/// `SlotStore` and `DiscreteEventLoop`), driven by the wall clock through one NIO timer armed
/// for the calendar's next event. Requests go through the loop's own keep-alive pool.
///
/// Loop-confined: every method runs on `loop`. Nothing here locks; rows leave in batches,
/// counters are published a few times a second.
final class LiveShard: LiveExchangeOwner {
    struct Visitor {
        var machine: VisitorMachine
        let index: Int
        let arrival: RunInstant
        let groupIndex: Int
    }

    enum Event {
        case wake(slot: Int)
        /// The request with this serial must have its answer by now (`requestTimeout`).
        case deadline(slot: Int, serial: UInt32)
    }

    /// What a shard hands back when it is done.
    struct Outcome: Sendable {
        var requestsPerSecond: PerSecondCounts
        var health: GeneratorHealth
        var connectionsOpened: Int
    }

    let loop: any EventLoop
    let index: Int
    private let shards: Int
    private let run: PreparedRun
    private let templates: [VisitorConfiguration]
    private let clock: WallClock
    private let status: LiveRunStatus
    private let stopLine: LiveStopLine
    private let pool: LiveConnectionPool
    private var plan: VisitorPlan
    private var nextArrival: PlannedVisitor?
    /// This loop's share of `run.concurrency`.
    private let quota: Int
    private var inFlight = 0
    /// Visitors whose arrival has come are waiting for a place under `quota`.
    private var backlogFromConcurrency = false
    private var slots = SlotStore<Visitor>()
    /// Per slot: the serial of the request the visitor awaits, 0 when none.
    private var awaitedSerials: [UInt32] = []
    private var nextSerial: UInt32 = 0
    private var calendar = DiscreteEventLoop<Event>()
    /// Request deadlines, beside the calendar (`RequestDeadlines` says why).
    private var deadlines = RequestDeadlines()
    private var armedAt: RunInstant?
    private var rows: RowBatch
    private var requestsPerSecond = PerSecondCounts()
    private var progress = LiveRunStatus.Snapshot()
    /// Finished visitors by outcome (`outcomes` order), copied into `progress`
    /// when it is published.
    private var outcomeCounts = [Int](repeating: 0, count: LiveShard.outcomes.count)
    /// `allCases` once: the synthesized property builds a new array on every call.
    private static let outcomes = VisitorOutcome.allCases
    private var health = GeneratorHealth()
    private var nextProbe: RunInstant
    private var probesSincePublish = 0
    private var stopped = false
    private var finishedPromise: EventLoopPromise<Outcome>?

    init(
        loop: any EventLoop, index: Int, of shards: Int, run: PreparedRun, plan: VisitorPlan, quota: Int,
        endpoint: LiveEndpoint, connectionLimit: Int, rows: RowBatch, clock: WallClock, status: LiveRunStatus,
        stopLine: LiveStopLine
    ) {
        self.stopLine = stopLine
        self.loop = loop
        self.index = index
        self.shards = shards
        self.run = run
        // Templates of this loop's own: every visitor retains its group's box, and two cores
        // retaining one object slow each other down.
        templates = run.makeGroupTemplates()
        self.plan = plan
        self.quota = max(1, quota)
        self.rows = rows
        self.clock = clock
        self.status = status
        pool = LiveConnectionPool(
            loop: loop, endpoint: endpoint, limit: connectionLimit, connectTimeout: run.scenario.longestRequestTimeout)
        nextProbe = .origin
        pool.shard = self
    }

    /// Starts the shard; the future completes when its last visitor has a row.
    /// - Parameter warmConnections: connections to open before the first arrival.
    func start(warmConnections: Int = 0) -> EventLoopFuture<Outcome> {
        let promise = loop.makePromise(of: Outcome.self)
        finishedPromise = promise
        do {
            nextArrival = try plan.next(ownedBy: index, of: shards)
        } catch {
            promise.fail(error)
            return promise.futureResult
        }
        nextProbe = clock.now + GeneratorHealth.probeInterval
        scheduleProbe()
        pool.warm(warmConnections)
        pump()
        return promise.futureResult
    }

    // MARK: - The calendar on the wall clock

    /// Starts due arrivals and fires due events, then arms the timer for what comes next.
    private func pump() {
        guard !stopped else { return }
        do {
            try startDueArrivals()
            while !stopped {
                let now = clock.now
                if let deadline = deadlines.first(awaited: awaits), deadline.at <= now,
                    deadline.at <= calendar.nextTime ?? deadline.at
                {
                    deadlines.removeFirst()
                    try handle(.deadline(slot: deadline.slot, serial: deadline.serial))
                    continue
                }
                guard let next = calendar.nextTime, next <= now, let (_, event) = calendar.step() else { break }
                try handle(event)
            }
        } catch {
            fail(error)
            return
        }
        settle()
    }

    /// After any work: arm the timer for the next event or arrival, or finish.
    private func settle() {
        guard !stopped else { return }
        if nextArrival == nil, inFlight == 0 {
            complete()
            return
        }
        var next = calendar.nextTime
        if let deadline = deadlines.first(awaited: awaits)?.at { next = min(next ?? deadline, deadline) }
        if let arrival = nextArrival?.arrival, inFlight < quota, arrival <= stopLine.instant {
            next = min(next ?? arrival, arrival)
        }
        guard let next else { return }
        if let armedAt, armedAt <= next { return }
        armedAt = next
        let delay = next - clock.now
        loop.assumeIsolated().scheduleTask(in: .nanoseconds(max(0, delay.wholeNanoseconds))) { [self] in
            if armedAt == next { armedAt = nil }
            pump()
        }
    }

    /// Every `probeInterval`: how late did the loop get to it? Also publishes progress and
    /// hands finished rows to the writer a few times a second.
    private func scheduleProbe() {
        let target = nextProbe
        loop.assumeIsolated().scheduleTask(in: .nanoseconds(max(0, (target - clock.now).wholeNanoseconds))) {
            [self] in
            guard !stopped else { return }
            let now = clock.now
            health.probe(lag: now - target, at: now)
            pool.warmStep()
            probesSincePublish += 1
            if probesSincePublish >= 10 {
                probesSincePublish = 0
                publish(at: now)
                do { try rows.flush() } catch {
                    fail(error)
                    return
                }
            }
            nextProbe = now + GeneratorHealth.probeInterval
            scheduleProbe()
        }
    }

    private func publish(at now: RunInstant) {
        progress.now = now
        for (index, outcome) in Self.outcomes.enumerated() where outcomeCounts[index] > 0 {
            progress.outcomes[outcome] = outcomeCounts[index]
        }
        progress.generatorSaturated = health.isSaturated(at: now)
        progress.loopLag = health.loopLag(at: now)
        status.publish(progress, part: index)
    }

    // MARK: - Visitors

    /// Starts every visitor whose arrival has come, while there is a place under the loop's
    /// share of `run.concurrency`.
    private func startDueArrivals() throws {
        while let visitor = nextArrival {
            let now = clock.now
            guard visitor.arrival <= now else {
                backlogFromConcurrency = false
                return
            }
            guard inFlight < quota else {
                backlogFromConcurrency = true
                return
            }
            // The run has been told to stop at an instant this arrival is after: it never
            // arrives, even if this loop hears of the stop a moment later.
            guard visitor.arrival <= stopLine.instant else { return }
            nextArrival = try plan.next(ownedBy: index, of: shards)
            // While a backlog built by the cap lasts, lateness is the cap's (its `start_ms` shows
            // it), not the generator's.
            if backlogFromConcurrency {
                health.startedAfterConcurrencyWait()
            } else {
                health.started(lag: now - visitor.arrival, at: now)
            }
            inFlight += 1
            progress.arrived += 1
            progress.started += 1
            let configuration = PreparedRun.visitorConfiguration(for: visitor, templates: templates)
            var slot: Visitor? = Visitor(
                machine: VisitorMachine(configuration: configuration), index: visitor.index, arrival: visitor.arrival,
                groupIndex: visitor.groupIndex)
            let action = slot!.machine.start(at: now)
            try carryOut(action, visitor: &slot, number: nil, phaseBefore: .notStarted, now: now)
        }
    }

    private func handle(_ event: Event) throws {
        switch event {
        case .wake(let number):
            var slot: Visitor? = slots.take(number)
            guard slot != nil else { return }
            let before = slot!.machine.phase
            let now = clock.now
            let action = slot!.machine.waited(at: now)
            try carryOut(action, visitor: &slot, number: number, phaseBefore: before, now: now)
        case .deadline(let number, let serial):
            guard awaits(slot: number, serial: serial) else { return }
            // An idle timeout (the platform's): while the answer keeps coming, look again one
            // timeout after the last progress.
            if let group = slots[number]?.machine.configuration.group, group.requestTimeoutIsIdle,
                let last = pool.lastProgress(slot: number, serial: serial)
            {
                let quiet = NIODeadline.now() - last
                let idle = TimeAmount.nanoseconds(group.requestTimeout.wholeNanoseconds)
                if quiet < idle {
                    let left = Duration.nanoseconds((idle - quiet).nanoseconds)
                    calendar.schedule(.deadline(slot: number, serial: serial), at: clock.now + left)
                    return
                }
            }
            pool.abort(slot: number, serial: serial)
            try deliver(slot: number, serial: serial, result: .failure(.timedOut))
        }
    }

    /// Whether the visitor in `slot` still awaits the answer to request `serial`.
    func awaits(slot: Int, serial: UInt32) -> Bool {
        slot < awaitedSerials.count && awaitedSerials[slot] == serial
    }

    /// The pool's answer (or failure) to request `serial` of the visitor in `slot`.
    func exchangeCompleted(slot: Int, serial: UInt32, result: Result<IncomingResponse, TransportError>) {
        guard !stopped else { return }
        do {
            try deliver(slot: slot, serial: serial, result: result)
            try startDueArrivals()
        } catch {
            fail(error)
            return
        }
        settle()
    }

    private func deliver(slot number: Int, serial: UInt32, result: Result<IncomingResponse, TransportError>) throws {
        guard awaits(slot: number, serial: serial) else { return }
        awaitedSerials[number] = 0
        var slot: Visitor? = slots.take(number)
        guard slot != nil else { return }
        let before = slot!.machine.phase
        let now = clock.now
        let action: VisitorMachine.Action
        switch result {
        case .success(let response): action = slot!.machine.received(response, at: now)
        case .failure(let error): action = slot!.machine.failed(error, at: now)
        }
        try carryOut(action, visitor: &slot, number: number, phaseBefore: before, now: now)
    }

    /// Puts the visitor (back) in its slot and carries out what its machine asked for; a
    /// finished visitor gets its row and frees its slot and its place under `run.concurrency`.
    private func carryOut(
        _ action: VisitorMachine.Action, visitor: inout Visitor?, number: Int?, phaseBefore: VisitorPhase,
        now: RunInstant
    ) throws {
        progress.phaseChanged(from: phaseBefore, to: visitor!.machine.phase)
        switch action {
        case .finish(let result):
            if let number { slots.release(number) }
            inFlight -= 1
            let visitor = visitor.take()!
            try finish(index: visitor.index, arrival: visitor.arrival, groupIndex: visitor.groupIndex, result: result)
        case .wait(let deadline):
            let number = slots.place(visitor.take()!, at: number)
            calendar.schedule(.wake(slot: number), at: deadline)
        case .send(let request, let timeout):
            let number = slots.place(visitor.take()!, at: number)
            nextSerial &+= 1
            if nextSerial == 0 { nextSerial = 1 }
            if number >= awaitedSerials.count {
                awaitedSerials.append(contentsOf: repeatElement(0, count: number + 1 - awaitedSerials.count))
            }
            awaitedSerials[number] = nextSerial
            let deadline = RequestDeadlines.Deadline(at: now + timeout, slot: number, serial: nextSerial)
            if !deadlines.append(deadline) {
                calendar.schedule(.deadline(slot: number, serial: nextSerial), at: deadline.at)
            }
            requestsPerSecond.add(at: Timeline.second(of: now))
            progress.requests += 1
            pool.send(LiveExchange(slot: number, serial: nextSerial, request: request))
        }
    }

    private func finish(index: Int, arrival: RunInstant, groupIndex: Int, result: VisitorResult) throws {
        progress.finished += 1
        // A scan of eight cases compares tags; a dictionary would hash for every visitor.
        outcomeCounts[Self.outcomes.firstIndex(of: result.outcome)!] += 1
        try rows.append(RowWriter.Finished(index: index, arrival: arrival, groupIndex: groupIndex, result: result))
    }

    // MARK: - The end

    /// Ends every visitor in flight at `instant` (in the queue at `run.duration`: `queued`;
    /// otherwise `interrupted`), gives a row to every visitor whose arrival had come but who
    /// never started, and closes the pool.
    func stop(reason: StopReason, at instant: RunInstant) {
        guard !stopped, finishedPromise != nil else { return }
        do {
            for number in 0..<slots.capacity {
                guard var visitor = slots.take(number) else { continue }
                if visitor.machine.phase == .inQueue { progress.inQueue -= 1 }
                let result = visitor.machine.stop(at: instant, reason: reason)
                slots.release(number)
                inFlight -= 1
                try finish(
                    index: visitor.index, arrival: visitor.arrival, groupIndex: visitor.groupIndex, result: result)
            }
            while let visitor = nextArrival, visitor.arrival <= instant {
                nextArrival = try plan.next(ownedBy: index, of: shards)
                progress.arrived += 1
                try finish(
                    index: visitor.index, arrival: visitor.arrival, groupIndex: visitor.groupIndex,
                    result: VisitorResult(outcome: .interrupted, marks: VisitorMarks(started: instant, ended: instant)))
            }
        } catch {
            fail(error)
            return
        }
        complete()
    }

    /// Abandons the shard (another shard failed): no more rows.
    func abandon(_ error: any Error) {
        fail(error)
    }

    private func complete() {
        guard let promise = finishedPromise else { return }
        finishedPromise = nil
        stopped = true
        pool.closeAll()
        do {
            try rows.flush()
        } catch {
            promise.fail(error)
            return
        }
        publish(at: clock.now)
        promise.succeed(
            Outcome(requestsPerSecond: requestsPerSecond, health: health, connectionsOpened: pool.connectionsOpened))
    }

    private func fail(_ error: any Error) {
        guard let promise = finishedPromise else { return }
        finishedPromise = nil
        stopped = true
        pool.closeAll()
        promise.fail(error)
    }
}
