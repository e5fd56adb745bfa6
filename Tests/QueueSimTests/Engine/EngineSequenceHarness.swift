import QueueClientCore
import TestSeeds

@testable import QueueSim

/// An adapter for `VisitorEngine` driven by a seeded generator instead of a clock and a
/// network: at every step it picks one legal event at random (time moves on, an arrival
/// starts, a calendar event or deadline fires, an answer, a failure or a stale answer comes, a
/// paced request's turn comes, the run stops) and tells `EngineInvariants` what the engine did.
/// Requests are answered by the embedded room, so visitors really queue, pass and give up.
struct EngineSequenceHarness {
    /// A request on the "network": its answer, or nil when the room never answers.
    struct InFlight {
        var order: VisitorEngine.RequestOrder
        var answer: Result<IncomingResponse, TransportError>?
    }

    var engine: VisitorEngine
    let room: WaitingRoomService
    var random: SplitMix64
    var invariants: EngineInvariants
    let plannedVisitors: Int
    /// Visitors may stay after their row (the scenario has after-pass calls).
    let staysAfterItsRow: Bool
    private(set) var now = RunInstant.origin
    private var network: [InFlight] = []
    private var paced: [VisitorEngine.PacedRequest] = []
    /// Requests answered already: answering them again must change nothing.
    private var answered: [(slot: Int, serial: UInt32)] = []
    /// Virtual clock only: paced requests counted although their turn came too late.
    private var countedWithoutGoing = 0

    init(run: PreparedRun, seed: UInt64, tracksRequestDeadlines: Bool, quota: Int, pacer: RequestPacer?) throws {
        random = SplitMix64(seed: seed)
        room = WaitingRoomService(
            configuration: RoomSetup.configuration(
                for: run, epochUnixSeconds: WaitingRoomConfiguration.virtualEpochUnixSeconds))
        engine = try VisitorEngine(
            plan: run.makePlan(), templates: run.groupTemplates, quota: quota,
            tracksRequestDeadlines: tracksRequestDeadlines, behaviours: VisitorBehaviourBook(scenario: run.scenario),
            pacer: pacer.map(PacerTurns.own))
        invariants = EngineInvariants(pacingInterval: pacer?.interval)
        plannedVisitors = run.summary.visitorCount
        staysAfterItsRow = run.scenario.groups.contains { $0.behaviour.afterPass != nil }
    }

    /// Runs up to `steps` random events, then stops the run (unless every visitor finished
    /// first) and delivers every answer still on its way, which must change nothing.
    mutating func run(steps: Int) throws {
        var step = 0
        while step < steps, !engine.isDone {
            step += 1
            if random.below(200) == 0 { break }
            try takeOneStep()
            checkCounts()
        }
        let ranToTheEnd = engine.isDone
        if !ranToTheEnd {
            let reasons: [StopReason] = [.runEnded, .interrupted, .guardrail]
            let reason = reasons[random.below(reasons.count)]
            try engine.stop(at: now, reason: reason, dueArrivals: random.below(2) == 0) {
                invariants.observe(.finished($0), at: now, slotOwner: { _ in nil })
            }
        }
        invariants.checkEnd(of: engine, plannedVisitors: plannedVisitors, ranToTheEnd: ranToTheEnd)
        deliverLateAnswers()
    }

    private mutating func takeOneStep() throws {
        switch random.below(12) {
        case 0...2: now = now + .milliseconds(Int64(random.below(2_500)))
        case 3...4: try startArrival()
        case 5...6: fireDueEvent()
        case 7...9: answerOne(failing: random.below(8) == 0)
        case 10: answerStale()
        default: giveTurn()
        }
    }

    private mutating func checkCounts() {
        invariants.checkCounts(of: engine, extraCounted: countedWithoutGoing, staysAfterItsRow: staysAfterItsRow)
    }

    // MARK: - Events

    private mutating func startArrival() throws {
        guard let arrival = engine.nextArrivalAt, arrival <= now, engine.hasPlace,
            let index = engine.nextArrival?.index
        else { return }
        invariants.started(index)
        carryOut(try engine.startNextArrival(at: now))
    }

    /// A calendar event or a request deadline due by now, as the wall clock's driver takes them.
    private mutating func fireDueEvent() {
        guard let event = engine.takeEvent(dueBy: now) else { return }
        switch event {
        case .wake(let slot, _):
            carryOut(engine.wake(slot: slot, at: now))
        case .deadline(let slot, let serial):
            // The connection last moved a moment ago, long ago, or never (no connection yet).
            let lastProgress: RunInstant? =
                switch random.below(3) {
                case 0: nil
                case 1: now - .milliseconds(Int64(random.below(500)))
                default: .origin
                }
            let verdict = engine.deadlineFired(slot: slot, serial: serial, at: now) { lastProgress }
            guard verdict == .expired else { return }
            network.removeAll { $0.order.slot == slot && $0.order.serial == serial }
            answered.append((slot, serial))
            carryOut(engine.failed(.timedOut, slot: slot, serial: serial, at: now))
        case .response(let slot, let response):
            carryOut(engine.received(response, slot: slot, serial: 0, at: now))
        case .failure(let slot, let error):
            carryOut(engine.failed(error, slot: slot, serial: 0, at: now))
        case .giveUp, .resume:
            carryOut(engine.behaviourEvent(event, at: now))
        }
    }

    /// One request on the network, at random, gets its answer (or a failure).
    private mutating func answerOne(failing: Bool) {
        guard !network.isEmpty else { return }
        let request = network.remove(at: random.below(network.count))
        let (slot, serial) = (request.order.slot, request.order.serial)
        guard let answer = failing ? .failure(.connectionReset) : request.answer else {
            // The room never answers it: on the wall clock its deadline will; the virtual
            // network answers by the deadline itself.
            if !engine.tracksRequestDeadlines { carryOut(engine.failed(.timedOut, slot: slot, serial: 0, at: now)) }
            return
        }
        answered.append((slot, serial))
        switch answer {
        case .success(let response): carryOut(engine.received(response, slot: slot, serial: serial, at: now))
        case .failure(let error): carryOut(engine.failed(error, slot: slot, serial: serial, at: now))
        }
    }

    /// An answer to a request answered (or timed out) already: the engine must do nothing.
    private mutating func answerStale() {
        guard engine.tracksRequestDeadlines, !answered.isEmpty else { return }
        let (slot, serial) = answered[random.below(answered.count)]
        let action = engine.received(
            IncomingResponse(head: .init(status: .ok), body: []), slot: slot, serial: serial, at: now)
        if case .none = action { return }
        invariants.record("a stale answer (slot \(slot), serial \(serial)) was acted on: \(action)")
    }

    /// The first paced request whose turn has come goes (or not, as the engine decides).
    private mutating func giveTurn() {
        guard let first = paced.first, first.leaves <= now else { return }
        paced.removeFirst()
        guard let order = engine.turnCame(first, at: now) else {
            if !engine.tracksRequestDeadlines { countedWithoutGoing += 1 }
            return
        }
        invariants.wentAtTurn(first, at: now)
        hand(order)
    }

    private mutating func deliverLateAnswers() {
        for request in network {
            let action =
                switch request.answer {
                case .success(let response)?:
                    engine.received(response, slot: request.order.slot, serial: request.order.serial, at: now)
                default:
                    engine.failed(.connectionReset, slot: request.order.slot, serial: request.order.serial, at: now)
                }
            if case .none = action { continue }
            invariants.record("an answer after the run stopped was acted on: \(action)")
        }
    }

    // MARK: - Actions

    private mutating func carryOut(_ action: VisitorEngine.Action) {
        invariants.observe(action, at: now) { [engine] slot in engine.slots[slot]?.index }
        switch action {
        case .send(let order): hand(order)
        case .sendLater(let request): paced.append(request)
        case .none, .finished: return
        }
    }

    /// A request on the network: the room's answer is decided now, delivered at random later.
    private mutating func hand(_ order: VisitorEngine.RequestOrder) {
        let answer: Result<IncomingResponse, TransportError>? =
            switch room.handle(order.request.head, body: order.request.body ?? [], at: now) {
            case .response(let head, let body, _): .success(IncomingResponse(head: head, body: body))
            case .reset: .failure(.connectionReset)
            case .noAnswer: nil
            }
        network.append(InFlight(order: order, answer: answer))
    }
}
