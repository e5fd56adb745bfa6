import Foundation
import QueueClientCore
import Testing

@testable import QueueSim

/// `queuesim serve --start-at`: the room's second 0 is the shards' common start, on an
/// injected clock (no sleeping: every instant is computed from the same two readings).
@Suite("serve's second 0: the room's timeline starts at the common start")
struct RoomStartTests {
    static let wallNow = Date(timeIntervalSince1970: 1_800_000_000)
    static let now = ContinuousClock.now

    @Test("a start 30 s ahead: the room reads −30 s now and 0 at the start instant")
    func startAhead() {
        let start = RoomStart(startAt: Self.wallNow.addingTimeInterval(30), wallNow: Self.wallNow, now: Self.now)
        #expect(start.isCommonStart)
        #expect(start.instant(at: Self.now) == RunInstant(sinceOrigin: .seconds(-30)))
        #expect(start.instant(at: Self.now + .seconds(30)) == .origin)
        #expect(start.epochUnixSeconds == 1_800_000_030)
    }

    @Test("a start already past: the room is that far into its timeline; no start: second 0 is now")
    func startPastOrNone() {
        let past = RoomStart(startAt: Self.wallNow.addingTimeInterval(-2.5), wallNow: Self.wallNow, now: Self.now)
        #expect(past.instant(at: Self.now) == RunInstant(sinceOrigin: .milliseconds(2500)))
        let none = RoomStart(startAt: nil, wallNow: Self.wallNow, now: Self.now)
        #expect(!none.isCommonStart)
        #expect(none.instant(at: Self.now) == .origin)
        #expect(none.epochUnixSeconds == 1_800_000_000)
    }

    @Test("event start 10 s after the common start: before it the room pre-queues, at it the queue moves")
    func eventStartIsRelativeToTheCommonStart() {
        let start = RoomStart(startAt: Self.wallNow.addingTimeInterval(30), wallNow: Self.wallNow, now: Self.now)
        var model = WaitingRoomModel(
            configuration: RoomFixture.configuration(
                eventStart: .seconds(10),
                faults: [FaultRule(from: .seconds(12), to: .seconds(20), effect: .mode(.idle))]))
        // An enqueue 30 s before the common start (a stray client) waits in the pre-queue.
        guard
            case .queued(let ticket, _) = model.enqueue(
                enqueueKey: nil, enqueueToken: nil, at: start.instant(at: Self.now))
        else {
            Issue.record("an enqueue before second 0 should wait in the pre-queue")
            return
        }
        // 39.9 s after serve started (9.9 s after the common start): still before the event start.
        #expect(
            model.queuePage(ticket: ticket, at: start.instant(at: Self.now + .milliseconds(39_900)))
                == .preQueue(eventStartsIn: .milliseconds(100)))
        // The room's 10 s is the common start + 10 s, not serve's start + 10 s.
        let atEventStart = model.queuePage(ticket: ticket, at: start.instant(at: Self.now + .seconds(40)))
        if case .preQueue = atEventStart { Issue.record("the pre-queue should be sealed at the event start") }
        // Mode changes are on the same timeline: idle from second 12 of the common start.
        #expect(model.mode(at: start.instant(at: Self.now)) == .queue)
        #expect(model.mode(at: start.instant(at: Self.now + .seconds(41))) == .queue)
        #expect(model.mode(at: start.instant(at: Self.now + .seconds(42))) == .idle)
    }
}
