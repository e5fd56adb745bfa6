import Foundation
import Testing
import VisitorDriver

@testable import QueueClientCore

/// A transport whose queue page requests hang until the task is cancelled; it announces
/// each hanging request on `pageLoads`.
struct HangingQueuePage: HTTPTransport {
    let pageLoads: AsyncStream<Void>.Continuation

    func execute(_ request: OutgoingRequest, timeout: Duration) async -> Result<IncomingResponse, TransportError> {
        if request.head.path?.hasSuffix("/enqueue") == true { return .success(Reply.enqueue(token: nil)) }
        pageLoads.yield()
        try? await Task.sleep(for: .seconds(60))
        return .failure(.other("cancelled"))
    }
}

@Suite("runVisitor: the wall-clock driver", .timeLimit(.minutes(1)))
struct VisitorDriverTests {
    @Test("runs the machine to its end and reports every request to the observer")
    func runsToEnd() async {
        let clock = TestClock()
        let transport = ScriptedTransport(
            [
                .success(Reply.response(status: 503)), .success(Reply.enqueue(token: nil)), .success(Reply.json("{}")),
                .success(Reply.redirect("https://shop.example.com/checkout?queueittoken=t")),
            ], clock: clock)
        let seen = Counter()
        let result = await runVisitor(
            configuration: configuration(), transport: transport, clock: clock, onRequest: { _ in _ = seen.next() })
        #expect(result.outcome == .passed)
        #expect(result.requests == 4)
        #expect(seen.next() == 5)
        #expect(clock.sleeps == [.seconds(1), .seconds(3)])
    }

    @Test(
        "cancellation stops the visitor with the given reason",
        arguments: [(StopReason.runEnded, VisitorOutcome.queued), (.interrupted, .interrupted)])
    func cancellation(reason: StopReason, expected: VisitorOutcome) async {
        let (pageLoads, continuation) = AsyncStream<Void>.makeStream()
        let task = Task {
            await runVisitor(
                configuration: configuration(), transport: HangingQueuePage(pageLoads: continuation),
                clock: TestClock(),
                cancellationReason: { reason })
        }
        for await _ in pageLoads { break }  // the visitor is now waiting on the queue page
        task.cancel()
        let result = await task.value
        #expect(result.outcome == expected)
        #expect(result.marks.queueEntered != nil)
    }
}
