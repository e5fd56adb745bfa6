import QueueClientCore
import Testing

@testable import QueueSim

/// The room's two counting rules for the turn of a visitor who left, on the model itself: the
/// room learns of a departure only from silence (no enqueue, no queue-page load for 60 s).
@Suite("waiting room: turns of visitors who left")
struct SkippedTurnsModelTests {
    private func model(_ turns: AbandonedTurns) -> WaitingRoomModel {
        var configuration = RoomFixture.configuration(outflowPerMinute: 1)
        configuration.settings.abandonedTurns = turns
        return WaitingRoomModel(configuration: configuration)
    }

    private func enqueue(_ model: inout WaitingRoomModel, at second: Double) -> Int {
        guard
            case .queued(let ticket, _) = model.enqueue(enqueueKey: nil, enqueueToken: nil, at: RoomFixture.at(second))
        else {
            Issue.record("not queued")
            return -1
        }
        return ticket
    }

    private func isTurn(_ model: inout WaitingRoomModel, _ ticket: Int, at second: Double) -> Bool {
        if case .yourTurn = model.queuePage(ticket: ticket, at: RoomFixture.at(second)) { return true }
        return false
    }

    /// One turn a minute; three visitors at 0 s. The second never polls again (it left). Its
    /// turn at 60 s: wasted, the third waits for 120 s; skipped (silent for 60 s by then), the
    /// third's turn comes at 60 s.
    @Test(
        "a visitor silent for 60 s at its turn: wasted, or skipped to the next",
        arguments: [
            AbandonedTurns.wasted, .skipped,
        ])
    func silentVisitor(turns: AbandonedTurns) {
        var room = model(turns)
        let tickets = (0..<3).map { _ in enqueue(&room, at: 0) }
        #expect(isTurn(&room, tickets[0], at: 0))
        #expect(!isTurn(&room, tickets[2], at: 30))
        #expect(isTurn(&room, tickets[2], at: 60) == (turns == .skipped))
        #expect(isTurn(&room, tickets[2], at: 120))
    }

    /// Still polling (every 30 s, the longest Retry-After), a visitor is never taken for gone:
    /// the next one waits for its own turn in both rules.
    @Test("a visitor that polls keeps its turn under either rule", arguments: [AbandonedTurns.wasted, .skipped])
    func pollingVisitor(turns: AbandonedTurns) {
        var room = model(turns)
        let tickets = (0..<3).map { _ in enqueue(&room, at: 0) }
        #expect(isTurn(&room, tickets[0], at: 0))
        #expect(!isTurn(&room, tickets[1], at: 30))
        #expect(!isTurn(&room, tickets[2], at: 30))
        #expect(!isTurn(&room, tickets[2], at: 60))
        #expect(isTurn(&room, tickets[1], at: 60))
        #expect(isTurn(&room, tickets[2], at: 120))
    }

    /// A refused enqueue (an invite-only room without key or token) is not a visitor the room
    /// heard from: it must not keep the last ticket alive. Ticket 1 goes silent at 0 s; a refused
    /// enqueue at 50 s; ticket 2 enqueues at 55 s and gets the turn ticket 1 left at 60 s.
    @Test("a refused enqueue hears nobody")
    func refusedEnqueue() {
        var configuration = RoomFixture.configuration(outflowPerMinute: 1, inviteOnly: true, keys: ["k"])
        configuration.settings.abandonedTurns = .skipped
        var room = WaitingRoomModel(configuration: configuration)
        func admit(at second: Double) -> Int {
            guard
                case .queued(let ticket, _) = room.enqueue(
                    enqueueKey: "k", enqueueToken: nil, at: RoomFixture.at(second))
            else { return -1 }
            return ticket
        }
        let first = admit(at: 0)
        _ = admit(at: 0)
        #expect(isTurn(&room, first, at: 0))
        guard case .refused = room.enqueue(enqueueKey: nil, enqueueToken: nil, at: RoomFixture.at(50)) else {
            Issue.record("an enqueue without key was admitted")
            return
        }
        let third = admit(at: 55)
        #expect(isTurn(&room, third, at: 60), "ticket 1 stayed silent from 0 s: its turn went to the next")
    }
}
