import QueueClientCore
import Testing

@testable import QueueSim

/// The rules imported from a Queue-it event, on the room's own instants (no clock, no I/O):
/// queue-number validity, max redirects per queue id, unique keys, the SafetyNet variants.
@Suite("room: queue-number validity, redirects per queue id, unique keys, SafetyNet variants")
struct QueueItRulesModelTests {
    static func model(
        mode: RoomMode = .queue, outflowPerMinute: Double = 60, keys: Set<String> = [],
        _ adjust: (inout WaitingRoomSettings) -> Void = { _ in }
    ) -> WaitingRoomModel {
        var configuration = RoomFixture.configuration(
            mode: mode, outflowPerMinute: outflowPerMinute, inviteOnly: !keys.isEmpty, keys: keys)
        adjust(&configuration.settings)
        return WaitingRoomModel(configuration: configuration)
    }

    /// The decision for one visitor arriving at `seconds`: "passed", "queued" or the refusal.
    static func arrive(_ model: inout WaitingRoomModel, at seconds: Double, key: String? = nil) -> String {
        switch model.enqueue(enqueueKey: key, enqueueToken: nil, at: RoomFixture.at(seconds)) {
        case .passed: "passed"
        case .queued: "queued"
        case .refused(let reason): reason
        }
    }

    static func ticket(_ model: inout WaitingRoomModel, at seconds: Double) -> Int {
        let decision = model.enqueue(enqueueKey: nil, enqueueToken: nil, at: RoomFixture.at(seconds))
        guard case .queued(let ticket, _) = decision else { preconditionFailure("expected the visitor to queue") }
        return ticket
    }

    static func isTurn(_ state: WaitingRoomModel.QueuePageState) -> Bool {
        if case .yourTurn = state { return true }
        return false
    }

    // MARK: Queue-number validity

    /// 60/min: the third visitor of a burst at 0 has its turn at 2 s. With a validity of 5 min
    /// it may come for its redirect until 5 min 2 s; later the turn is lost, for good, and
    /// counted once.
    @Test("a turn claimed after the validity is lost, counted once; within it, redirected")
    func validity() {
        var room = Self.model { $0.queueNumberValidity = .seconds(300) }
        let tickets = (0..<3).map { _ in Self.ticket(&room, at: 0) }
        #expect(Self.isTurn(room.queuePage(ticket: tickets[1], at: RoomFixture.at(301))))
        #expect(Self.isTurn(room.queuePage(ticket: tickets[2], at: RoomFixture.at(302))), "exactly at the validity")
        var late = Self.model { $0.queueNumberValidity = .seconds(300) }
        let lateTickets = (0..<3).map { _ in Self.ticket(&late, at: 0) }
        #expect(late.queuePage(ticket: lateTickets[2], at: RoomFixture.at(302.001)) == .queueNumberExpired)
        #expect(late.queuePage(ticket: lateTickets[2], at: RoomFixture.at(400)) == .queueNumberExpired)
        #expect(late.ruleCounts == RoomRuleCounts(turnsExpired: 1))
        // Without a validity the same late visitor is redirected.
        var unlimited = Self.model()
        let unlimitedTickets = (0..<3).map { _ in Self.ticket(&unlimited, at: 0) }
        #expect(Self.isTurn(unlimited.queuePage(ticket: unlimitedTickets[2], at: RoomFixture.at(3600))))
        #expect(unlimited.ruleCounts == RoomRuleCounts())
    }

    /// A visitor redirected once that comes back after the validity is refused too: the queue
    /// number is no longer valid, whatever redirects it has left.
    @Test("a return after the validity is refused, though redirects are left")
    func validityOfReturns() {
        var room = Self.model { $0.queueNumberValidity = .seconds(300) }
        let ticket = Self.ticket(&room, at: 0)
        #expect(Self.isTurn(room.queuePage(ticket: ticket, at: RoomFixture.at(10))))
        #expect(Self.isTurn(room.queuePage(ticket: ticket, at: RoomFixture.at(299))))
        #expect(room.queuePage(ticket: ticket, at: RoomFixture.at(301)) == .queueNumberExpired)
        #expect(room.ruleCounts.turnsExpired == 1)
    }

    /// Skipping turns, a slot's turn comes when the turn reaches it: the validity runs from then.
    @Test("skipping turns: the validity runs from the instant the turn reached the slot")
    func validityWhenSkipping() {
        var room = Self.model {
            $0.queueNumberValidity = .seconds(300)
            $0.abandonedTurns = .skipped
        }
        let tickets = (0..<3).map { _ in Self.ticket(&room, at: 0) }
        // Everyone keeps polling until 2 s: turns at 0, 1 and 2 s.
        for ticket in tickets { _ = room.queuePage(ticket: ticket, at: RoomFixture.at(0)) }
        #expect(Self.isTurn(room.queuePage(ticket: tickets[2], at: RoomFixture.at(2))))
        #expect(Self.isTurn(room.queuePage(ticket: tickets[1], at: RoomFixture.at(301))))
        #expect(room.queuePage(ticket: tickets[0], at: RoomFixture.at(300.5)) == .queueNumberExpired)
    }

    /// The rules add no per-visitor state beyond one byte inside the ticket's 8.
    @Test("a ticket stays 8 bytes")
    func ticketSize() {
        #expect(MemoryLayout<WaitingRoomModel.Ticket>.stride == 8)
    }

    // MARK: Max redirects per queue id

    @Test("the redirect beyond maxRedirectsPerQueueId is refused and counted once per queue id")
    func maxRedirects() {
        var room = Self.model { $0.maxRedirectsPerQueueId = 1 }
        let ticket = Self.ticket(&room, at: 0)
        #expect(Self.isTurn(room.queuePage(ticket: ticket, at: RoomFixture.at(1))))
        #expect(room.queuePage(ticket: ticket, at: RoomFixture.at(2)) == .redirectLimitExceeded)
        #expect(room.queuePage(ticket: ticket, at: RoomFixture.at(3)) == .redirectLimitExceeded)
        #expect(room.ruleCounts == RoomRuleCounts(exceededMaxRedirectCount: 1))
        var five = Self.model { $0.maxRedirectsPerQueueId = 5 }
        let other = Self.ticket(&five, at: 0)
        for second in 1...5 { #expect(Self.isTurn(five.queuePage(ticket: other, at: RoomFixture.at(Double(second))))) }
        #expect(five.queuePage(ticket: other, at: RoomFixture.at(6)) == .redirectLimitExceeded)
    }

    /// A safetynet pass-through's token is its first redirect: one more is allowed with 2.
    @Test("a pass-through's token counts as the queue id's first redirect")
    func passThroughCountsOne() {
        var room = Self.model(mode: .safetynet) { $0.maxRedirectsPerQueueId = 2 }
        let decision = room.enqueue(enqueueKey: nil, enqueueToken: nil, at: RoomFixture.at(0))
        guard case .passed(let ticket, _, _, _) = decision else {
            Issue.record("expected a pass-through")
            return
        }
        #expect(Self.isTurn(room.queuePage(ticket: ticket, at: RoomFixture.at(1))))
        #expect(room.queuePage(ticket: ticket, at: RoomFixture.at(2)) == .redirectLimitExceeded)
    }

    // MARK: Unique keys

    @Test("uniqueKeys: a key admits one enqueue; the second is refused and counted")
    func uniqueKeys() {
        var room = Self.model(keys: ["k1", "k2"]) { $0.uniqueKeys = true }
        #expect(Self.arrive(&room, at: 0, key: "k1") == "queued")
        #expect(Self.arrive(&room, at: 1, key: "k1") == "Enqueue key has already been used")
        #expect(Self.arrive(&room, at: 2, key: "k2") == "queued")
        #expect(Self.arrive(&room, at: 3, key: "nope") == "Enqueue key is not known")
        #expect(room.ruleCounts == RoomRuleCounts(reusedKeysRefused: 1))
        #expect(room.ticketCount == 2)
        // Without the rule a key may be used again.
        var reusable = Self.model(keys: ["k1"])
        #expect(Self.arrive(&reusable, at: 0, key: "k1") == "queued")
        #expect(Self.arrive(&reusable, at: 1, key: "k1") == "queued")
    }

    // MARK: SafetyNet variants

    /// Ten visitors at once at 60/min: `normal` and `mixed` let all ten through (10 ≤ 60 a
    /// minute); `burst` lets one through and queues the rest one turn (1 s) apart.
    @Test("a burst within a minute's outflow: normal and mixed let it through, burst smooths it")
    func burstWithinAMinute() {
        for variant in SafetyNetVariant.allCases {
            var room = Self.model(mode: .safetynet) { $0.safetyNet = variant }
            let decisions = (0..<10).map { _ in Self.arrive(&room, at: 0) }
            switch variant {
            case .normal, .mixed:
                #expect(decisions == Array(repeating: "passed", count: 10), "\(variant)")
            case .burst:
                #expect(decisions == ["passed"] + Array(repeating: "queued", count: 9))
                #expect(room.releaseInstant(ofQueueNumber: 1) == RoomFixture.at(1))
                #expect(room.releaseInstant(ofQueueNumber: 9) == RoomFixture.at(9))
            }
        }
    }

    /// `burst` after the queue drains: one visitor passes when a turn is free, the next one in
    /// the same instant waits for the following turn.
    @Test("burst protection: a pass-through takes a turn of the smooth outflow")
    func burstTakesTurns() {
        var room = Self.model(mode: .safetynet) { $0.safetyNet = .burst }
        _ = (0..<10).map { _ in Self.arrive(&room, at: 0) }
        #expect(Self.arrive(&room, at: 5) == "queued", "the queue still holds visitors")
        #expect(Self.arrive(&room, at: 30) == "passed")
        #expect(Self.arrive(&room, at: 30) == "queued")
        #expect(room.releaseInstant(ofQueueNumber: 11) == RoomFixture.at(31))
        #expect(Self.arrive(&room, at: 32.5) == "passed")
    }

    /// 240 at once at 120/min: 120 pass, 120 queue (turns every 0.5 s from 0 to 59.5 s). At
    /// 60.2 s the trailing minute saw no arrival but 119 turns: `normal` (arrivals) lets two new
    /// visitors through, `mixed` (output) only one.
    @Test("mixed mode measures the output, normal the arrivals")
    func mixedMeasuresOutput() {
        var outcomes: [SafetyNetVariant: [String]] = [:]
        for variant in [SafetyNetVariant.normal, .mixed] {
            var room = Self.model(mode: .safetynet, outflowPerMinute: 120) { $0.safetyNet = variant }
            let first = (0..<240).map { _ in Self.arrive(&room, at: 0) }
            #expect(first.filter { $0 == "passed" }.count == 120, "\(variant)")
            outcomes[variant] = [Self.arrive(&room, at: 60.2), Self.arrive(&room, at: 60.2)]
        }
        #expect(outcomes[.normal] == ["passed", "passed"])
        #expect(outcomes[.mixed] == ["passed", "queued"])
    }

    /// The variants are the room's only in safetynet mode: `queue` queues everyone.
    @Test("in queue mode the variant changes nothing")
    func queueModeIgnoresTheVariant() {
        var room = Self.model { $0.safetyNet = .mixed }
        #expect(Self.arrive(&room, at: 0) == "queued")
    }
}
