import QueueClientCore
import Testing

@testable import QueueSim

/// The room's rules over a virtual clock: no sleeping, every instant is passed in.
@Suite struct WaitingRoomModelTests {
    /// Enqueues at the given instants and returns the tickets.
    private func enqueueAll(_ model: inout WaitingRoomModel, at seconds: [Double]) -> [Int] {
        seconds.map { second in
            switch model.enqueue(enqueueKey: nil, enqueueToken: nil, at: RoomFixture.at(second)) {
            case .queued(let ticket, _), .passed(let ticket, _, _, _): return ticket
            case .refused(let reason):
                Issue.record("refused: \(reason)")
                return -1
            }
        }
    }

    /// Polls every ticket every `stepMs` milliseconds until all pass; returns each one's pass
    /// time in milliseconds. Integer milliseconds keep the poll instants exact.
    private func passInstants(
        _ model: inout WaitingRoomModel, tickets: [Int], from startMs: Int64, stepMs: Int64, until endMs: Int64
    )
        -> [Int: Int64]
    {
        var passed: [Int: Int64] = [:]
        var now = startMs
        while now <= endMs, passed.count < tickets.count {
            for ticket in tickets where passed[ticket] == nil {
                let instant = RunInstant(sinceOrigin: .milliseconds(now))
                if case .yourTurn = model.queuePage(ticket: ticket, at: instant) { passed[ticket] = now }
            }
            now += stepMs
        }
        return passed
    }

    @Test func sixtyVisitorsAtOnceAt600PerMinutePassOverSixSecondsSmoothly() {
        var model = WaitingRoomModel(configuration: RoomFixture.configuration(outflowPerMinute: 600))
        let tickets = enqueueAll(&model, at: Array(repeating: 0, count: 60))
        let passed = passInstants(&model, tickets: tickets, from: 0, stepMs: 50, until: 20_000)
        #expect(passed.count == 60)
        let times = passed.values.sorted()
        #expect(times.last! >= 5_850 && times.last! <= 6_000)
        // Never in a burst: at most one release per 0.1 s slot (polled every 0.05 s).
        for bucket in 0..<60 {
            let inBucket = times.filter { $0 / 100 == Int64(bucket) }
            #expect(inBucket.count == 1)
        }
    }

    @Test func noSixtySecondWindowExceedsTheOutflowAndOrderIsFIFO() {
        var model = WaitingRoomModel(configuration: RoomFixture.configuration(outflowPerMinute: 120))
        // 3 bursts of 150 separated by quiet gaps, then a trickle.
        var arrivals: [Double] = []
        for burst in [0.0, 95.0, 400.0] { arrivals += Array(repeating: burst, count: 150) }
        arrivals += stride(from: 700.0, to: 760.0, by: 0.2).map { $0 }
        let tickets = enqueueAll(&model, at: arrivals)
        let releases = tickets.map { model.releaseInstant(ofTicket: $0)!.sinceOrigin.wholeNanoseconds }
        #expect(releases == releases.sorted(), "release order follows enqueue order after event start")
        for (index, start) in releases.enumerated() {
            let inWindow = releases[index...].prefix(while: { $0 < start + 60_000_000_000 }).count
            #expect(inWindow <= 120)
        }
        for (ticket, arrival) in zip(tickets, arrivals) {
            #expect(model.releaseInstant(ofTicket: ticket)! >= RoomFixture.at(arrival))
        }
    }

    @Test func preQueueIsShuffledAtEventStartAndEveryoneIsReleased() {
        let config = RoomFixture.configuration(eventStart: .seconds(60), outflowPerMinute: 600)
        var model = WaitingRoomModel(configuration: config)
        let early = enqueueAll(&model, at: (0..<100).map { Double($0) * 0.5 })
        #expect(model.queuePage(ticket: early[0], at: RoomFixture.at(50)) == .preQueue(eventStartsIn: .seconds(10)))
        #expect(model.releaseInstant(ofTicket: early[0]) == nil)
        let late = enqueueAll(&model, at: [61, 62])
        let earlyNumbers = early.map { model.queueNumber(ofTicket: $0)! }
        #expect(Set(earlyNumbers) == Set(1...100))
        #expect(earlyNumbers != Array(1...100), "the pre-queue is shuffled")
        #expect(late.map { model.queueNumber(ofTicket: $0)! } == [101, 102])
        let passed = passInstants(&model, tickets: early + late, from: 60_000, stepMs: 100, until: 200_000)
        #expect(passed.count == 102)
        #expect(passed.values.allSatisfy { $0 >= 60_000 })
        // The same seed gives the same shuffle; another seed another one.
        var again = WaitingRoomModel(configuration: config)
        _ = enqueueAll(&again, at: (0..<100).map { Double($0) * 0.5 } + [61])
        #expect(early.map { again.queueNumber(ofTicket: $0)! } == earlyNumbers)
        var reseeded = WaitingRoomModel(configuration: RoomFixture.configuration(eventStart: .seconds(60), seed: 7))
        _ = enqueueAll(&reseeded, at: (0..<100).map { Double($0) * 0.5 } + [61])
        #expect(early.map { reseeded.queueNumber(ofTicket: $0)! } != earlyNumbers)
    }

    @Test func safetynetPassesUnderTheOutflowAndQueuesAboveIt() {
        var model = WaitingRoomModel(configuration: RoomFixture.configuration(mode: .safetynet, outflowPerMinute: 60))
        // 60 arrivals within one minute: all pass straight through with rt_safetynet.
        for second in 0..<60 {
            guard
                case .passed(_, _, let type, let token) = model.enqueue(
                    enqueueKey: nil, enqueueToken: nil, at: RoomFixture.at(Double(second) * 0.5))
            else {
                Issue.record("arrival \(second) was queued")
                return
            }
            #expect(type == .safetynet)
            #expect(token.contains("~rt_safetynet~"))
        }
        // The 61st inside the same minute is queued, and so is the next one (someone is waiting).
        guard case .queued(let first, _) = model.enqueue(enqueueKey: nil, enqueueToken: nil, at: RoomFixture.at(30)),
            case .queued = model.enqueue(enqueueKey: nil, enqueueToken: nil, at: RoomFixture.at(30.5))
        else {
            Issue.record("expected queueing above the outflow")
            return
        }
        #expect(model.releaseInstant(ofTicket: first) == RoomFixture.at(30))
        // Once the window has drained and nobody waits, visitors pass again.
        guard case .passed = model.enqueue(enqueueKey: nil, enqueueToken: nil, at: RoomFixture.at(120)) else {
            Issue.record("expected pass-through after the window drained")
            return
        }
    }

    @Test func modeFlipsPauseReleasesAndLetWaitingVisitorsThrough() {
        let faults = [
            FaultRule(from: .seconds(10), to: .seconds(20), effect: .mode(.disabled)),
            FaultRule(from: .seconds(30), to: .seconds(40), effect: .mode(.idle)),
        ]
        var model = WaitingRoomModel(configuration: RoomFixture.configuration(outflowPerMinute: 60, faults: faults))
        let tickets = enqueueAll(&model, at: Array(repeating: 0, count: 15))
        // Slot 14 needs 14 s of releasing time: 0–10 s, then 20–24 s (disabled in between).
        #expect(model.releaseInstant(ofTicket: tickets[14]) == RoomFixture.at(24))
        #expect(model.mode(at: RoomFixture.at(15)) == .disabled)
        // During the disabled window a waiting visitor is let through with rt_disabled.
        guard case .yourTurn(let type, let token) = model.queuePage(ticket: tickets[13], at: RoomFixture.at(15)) else {
            Issue.record("expected disabled pass")
            return
        }
        #expect(type == .disabled)
        #expect(token.contains("~rt_disabled~"))
        // After it, the rest wait for their slot again.
        if case .waiting(let position) = model.queuePage(ticket: tickets[14], at: RoomFixture.at(21)) {
            #expect(position.usersAhead == 2)
        } else {
            Issue.record("expected waiting at 21 s")
        }
        guard case .passed(_, _, .idle, _) = model.enqueue(enqueueKey: nil, enqueueToken: nil, at: RoomFixture.at(35))
        else {
            Issue.record("expected idle pass")
            return
        }
        let forever = [FaultRule(from: .seconds(5), effect: .mode(.afterevent))]
        var ended = WaitingRoomModel(configuration: RoomFixture.configuration(outflowPerMinute: 60, faults: forever))
        let late = enqueueAll(&ended, at: Array(repeating: 0, count: 10))
        #expect(ended.releaseInstant(ofTicket: late[9]) == nil, "the room stops releasing for good at 5 s")
    }

    @Test func disabledModeGivesDisabledTokensAtOnce() {
        var model = WaitingRoomModel(configuration: RoomFixture.configuration(mode: .disabled))
        guard
            case .passed(_, let queueId, .disabled, let token) = model.enqueue(
                enqueueKey: nil, enqueueToken: nil, at: RoomFixture.at(3))
        else {
            Issue.record("expected a disabled pass")
            return
        }
        let validator = KnownUserTokenValidator(secretKey: RoomFixture.secret, eventId: "spring-launch")
        let parsed = try? validator.validate(
            token, nowUnixSeconds: WaitingRoomConfiguration.virtualEpochUnixSeconds + 3
        ).get()
        #expect(parsed?.redirectType == "disabled")
        #expect(parsed?.queueId == queueId)
        #expect(parsed?.expiryUnixSeconds == WaitingRoomConfiguration.virtualEpochUnixSeconds + 183)
    }

    @Test func inviteOnlyNeedsAKnownKeyOrAValidToken() {
        var model = WaitingRoomModel(configuration: RoomFixture.configuration(inviteOnly: true, keys: ["k-1", "k-2"]))
        guard case .queued = model.enqueue(enqueueKey: "k-1", enqueueToken: nil, at: .origin) else {
            Issue.record("known key refused")
            return
        }
        #expect(
            model.enqueue(enqueueKey: "forged", enqueueToken: nil, at: .origin)
                == .refused(reason: "Enqueue key is not known"))
        guard case .refused = model.enqueue(enqueueKey: nil, enqueueToken: nil, at: .origin) else {
            Issue.record("no credential admitted")
            return
        }
        guard case .refused(let reason) = model.enqueue(enqueueKey: nil, enqueueToken: "a.b.c", at: .origin) else {
            Issue.record("forged token admitted")
            return
        }
        #expect(reason == "Enqueue token signature is invalid")
        #expect(model.ticketCount == 1, "refusals issue no queue id")
    }

    @Test func queueIdsRoundTripAndForgeriesAreRefused() {
        var model = WaitingRoomModel(configuration: RoomFixture.configuration())
        let tickets = enqueueAll(&model, at: [0, 0, 0])
        let id = model.queueId(ofTicket: tickets[2])
        #expect(id.count == 36 && id == id.lowercased() && !id.contains("_"))
        #expect(model.ticket(forQueueId: id) == tickets[2])
        var forged = Array(id)
        forged[0] = forged[0] == "a" ? "b" : "a"
        #expect(model.ticket(forQueueId: String(forged)) == nil)
        #expect(model.ticket(forQueueId: "00000000-0000-4000-8000-000000000000") == nil)
    }

    @Test func maxRedirectsPerVisitorIsEnforced() {
        var model = WaitingRoomModel(configuration: RoomFixture.configuration())
        let ticket = enqueueAll(&model, at: [0])[0]
        for _ in 0..<WaitingRoomSettings.defaultMaxRedirectsPerQueueId {
            guard case .yourTurn = model.queuePage(ticket: ticket, at: RoomFixture.at(1)) else {
                Issue.record("expected a redirect")
                return
            }
        }
        #expect(model.queuePage(ticket: ticket, at: RoomFixture.at(1)) == .redirectLimitExceeded)
    }
}
