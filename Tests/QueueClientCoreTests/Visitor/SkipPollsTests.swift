import HTTPTypes
import Testing

@testable import QueueClientCore

/// `VisitorMachine.skipPolls`: a driver that knows a run of "keep waiting" answers may account
/// for them at once, and the visitor ends exactly as if it had sent them.
@Suite("VisitorMachine.skipPolls")
struct SkipPollsTests {
    static let latency = Duration.milliseconds(20)
    static let waiting = Reply.json(#"{"state":"queue"}"#, headers: [("Retry-After", "5")])
    static let pass = Reply.redirect("https://shop.example.com/checkout?queueittoken=\(TokenVectors.queue)")

    /// Enqueue, then the first queue-page load; returns the machine waiting to poll again and
    /// when that poll is due.
    private func enterQueue() -> (VisitorMachine, RunInstant) {
        var machine = VisitorMachine(configuration: configuration(maxWait: .seconds(60)))
        #expect(machine.pendingQueuePagePoll == nil)
        guard case .send = machine.start(at: .origin) else {
            Issue.record("no enqueue request")
            return (machine, .origin)
        }
        #expect(machine.pendingQueuePagePoll == nil)
        guard case .send = machine.received(Reply.enqueue(token: nil), at: .origin + Self.latency) else {
            Issue.record("no queue page load")
            return (machine, .origin)
        }
        // Loading: not between two polls.
        #expect(machine.pendingQueuePagePoll == nil)
        guard case .wait(let due) = machine.received(Self.waiting, at: .origin + Self.latency * 2) else {
            Issue.record("no wait after a waiting answer")
            return (machine, .origin)
        }
        return (machine, due)
    }

    /// Polls for real until the page lets the visitor through after `waitingAnswers` more "keep waiting".
    private func pollThrough(_ machine: inout VisitorMachine, from due: RunInstant, waitingAnswers: Int)
        -> VisitorResult?
    {
        var due = due
        for answer in 0...waitingAnswers {
            guard case .send = machine.waited(at: due) else { return nil }
            let reply = answer == waitingAnswers ? Self.pass : Self.waiting
            switch machine.received(reply, at: due + Self.latency) {
            case .wait(let next): due = next
            case .finish(let result): return result
            case .send: return nil
            }
        }
        return nil
    }

    @Test("Skipping n waiting polls ends with the same result as sending them")
    func sameResult() throws {
        var real = enterQueue().0
        let (skipping, due) = enterQueue()
        var shortcut = skipping
        let pending = try #require(shortcut.pendingQueuePagePoll)
        #expect(pending.url.description == "https://acme.queue-it.net/?c=acme&e=spring")
        #expect(pending.maxWaitEnds == .origin + Self.latency + .seconds(60))

        let sentForReal = try #require(pollThrough(&real, from: due, waitingAnswers: 4))
        // Four polls answered "wait 5 s" move the next poll by 4 × (latency + 5 s).
        shortcut.skipPolls(4, nextPollAt: due + (Self.latency + .seconds(5)) * 4)
        #expect(shortcut.pendingQueuePagePoll != nil)
        let skipped = try #require(
            pollThrough(&shortcut, from: due + (Self.latency + .seconds(5)) * 4, waitingAnswers: 0))
        #expect(skipped == sentForReal)
        #expect(skipped.polls == 6 && skipped.requests == 7)
        #expect(skipped.outcome == .passed)
    }

    @Test("Skipping zero polls changes nothing")
    func zero() {
        var (machine, due) = enterQueue()
        let before = machine.pendingQueuePagePoll?.url
        machine.skipPolls(0, nextPollAt: due)
        #expect(machine.pendingQueuePagePoll?.url == before)
        guard case .send = machine.waited(at: due) else {
            Issue.record("the machine should poll after skipping nothing")
            return
        }
    }
}
