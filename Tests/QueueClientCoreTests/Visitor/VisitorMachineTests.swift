import HTTPTypes
import Testing

@testable import QueueClientCore

@Suite("VisitorMachine: every outcome of the contract, in virtual time")
struct VisitorMachineTests {
    static let target = "https://shop.example.com/checkout"

    /// A waiting room that queues, lets the visitor wait `polls` answers, then redirects to the target.
    static func queueThenPass(polls: Int = 2) -> (SentRequest) -> Result<IncomingResponse, TransportError> {
        var pageLoads = 0
        return { sent in
            if sent.path.hasSuffix("/enqueue") { return .success(Reply.enqueue(token: nil)) }
            pageLoads += 1
            if pageLoads <= polls { return .success(Reply.json(#"{"position":\#(polls - pageLoads)}"#)) }
            return .success(Reply.redirect("\(target)?queueittoken=\(TokenVectors.queue)"))
        }
    }

    @Test("safetynet → passed, no queue page", arguments: [VisitorFlowKind.run, .tryPass])
    func safetynet(flow: VisitorFlowKind) {
        let (result, sent) = simulate(configuration(flow: flow)) { _ in
            .success(Reply.enqueue(token: TokenVectors.safetynet))
        }
        #expect(result.outcome == .passed)
        #expect(result.redirectType == "safetynet")
        #expect(result.queueitToken == TokenVectors.safetynet)
        #expect(result.queueId == "q-1")
        #expect(result.attempts == 1 && result.polls == 0 && result.requests == 1)
        #expect(result.marks.enqueueDecided == .seconds(0.02))
        #expect(result.marks.queueEntered == nil)
        #expect(sent.count == 1)
    }

    @Test("disabled, idle and afterevent → disabled", arguments: ["disabled", "idle", "afterevent"])
    func disabled(rt: String) {
        let (result, _) = simulate(configuration()) { _ in .success(Reply.enqueue(token: TokenVectors.with(rt: rt))) }
        #expect(result.outcome == .disabled)
        #expect(result.redirectType == rt)
        #expect(result.lastHTTPStatus == 200)
    }

    @Test("queue → the navigator polls → passed with the token", arguments: [VisitorFlowKind.run, .tryPass])
    func queueThenPassed(flow: VisitorFlowKind) {
        let (result, sent) = simulate(configuration(flow: flow), respond: Self.queueThenPass(polls: 2))
        #expect(result.outcome == .passed)
        #expect(result.redirectType == "queue")
        #expect(result.queueitToken == TokenVectors.queue)
        #expect(result.attempts == 1 && result.polls == 3 && result.requests == 4)
        #expect(result.marks.queueEntered == .seconds(0.02))
        #expect(sent.map(\.at) == [.origin, .seconds(0.02), .seconds(2.04), .seconds(4.06)])
        #expect(result.marks.ended == .seconds(4.08))
    }

    @Test(
        "directLink, debug, bypass and tokens without rt show the queue", arguments: ["directLink", "debug", "bypass"])
    func otherTypesQueue(rt: String) {
        var enqueued = false
        let (result, _) = simulate(configuration()) { sent in
            if !enqueued {
                enqueued = true
                return .success(Reply.enqueue(token: TokenVectors.with(rt: rt)))
            }
            return .success(Reply.redirect(Self.target))
        }
        #expect(result.outcome == .passed)
        #expect(result.polls == 1)
        #expect(result.queueitToken == nil)
    }

    /// The machine is a value: a copy taken while it enqueues goes its own way (the enqueue
    /// machine lives in a box that is changed in place, copied first when a copy shares it).
    @Test("a copy taken while enqueueing changes apart from the original")
    func copiesWhileEnqueueingAreValues() throws {
        var first = VisitorMachine(configuration: configuration())
        guard case .send = first.start(at: .origin) else {
            Issue.record("no enqueue sent")
            return
        }
        var second = first
        // The original's attempt fails and it backs off; the copy's is answered and passes.
        guard case .wait(let retryAt) = first.failed(.connectionReset, at: .seconds(0.02)) else {
            Issue.record("no back-off after a reset")
            return
        }
        guard
            case .finish(let passed) = second.received(Reply.enqueue(token: TokenVectors.safetynet), at: .seconds(0.02))
        else {
            Issue.record("the copy did not finish")
            return
        }
        #expect(passed.outcome == .passed && passed.attempts == 1)
        #expect(first.phase == .enqueueing && second.phase == .finished)
        guard case .send = first.waited(at: retryAt) else {
            Issue.record("no retry sent")
            return
        }
        guard case .finish(let retried) = first.received(Reply.enqueue(token: TokenVectors.safetynet), at: retryAt)
        else {
            Issue.record("the original did not finish")
            return
        }
        #expect(retried.outcome == .passed && retried.attempts == 2)
    }

    @Test("400 → error after one request, with status and message")
    func clientError() {
        let (result, sent) = simulate(configuration()) { _ in
            .success(Reply.json(#"{"error":"Invalid customer"}"#, status: 400))
        }
        #expect(result.outcome == .error)
        #expect(result.lastHTTPStatus == 400)
        #expect(result.errorMessage == "Invalid customer")
        #expect(sent.count == 1)
    }

    @Test("503 → unavailable after five requests spaced 1, 2, 4, 8 s")
    func unavailable() {
        let (result, sent) = simulate(configuration(), latency: .zero) { _ in .success(Reply.response(status: 503)) }
        #expect(result.outcome == .unavailable)
        #expect(result.attempts == 5)
        #expect(result.lastHTTPStatus == 503)
        #expect(sent.map(\.at) == [.seconds(0), .seconds(1), .seconds(3), .seconds(7), .seconds(15)])
        #expect(result.marks.enqueueDecided == .seconds(15))
    }

    @Test("non-JSON 200 bodies and transport errors → unavailable")
    func badBodies() {
        let (result, _) = simulate(configuration()) { _ in .success(Reply.response(status: 200, body: "<html>")) }
        #expect(result.outcome == .unavailable)
        let (timeouts, _) = simulate(configuration()) { _ in .failure(.timedOut) }
        #expect(timeouts.outcome == .unavailable)
        #expect(timeouts.errorMessage == "request timed out")
        #expect(timeouts.lastHTTPStatus == nil)
    }

    @Test("two 503s then success → passed after three requests")
    func recovers() {
        var count = 0
        let (result, sent) = simulate(configuration(), latency: .zero) { _ in
            count += 1
            return count <= 2
                ? .success(Reply.response(status: 503)) : .success(Reply.enqueue(token: TokenVectors.safetynet))
        }
        #expect(result.outcome == .passed)
        #expect(result.attempts == 3)
        #expect(sent.map(\.at) == [.seconds(0), .seconds(1), .seconds(3)])
    }

    @Test("missing queue or target URL → error")
    func missingURL() {
        let (result, _) = simulate(configuration()) { _ in .success(Reply.enqueue(token: nil, target: nil)) }
        #expect(result.outcome == .error)
        #expect(result.errorMessage?.contains("missing queue or target URL") == true)
    }

    @Test("queueit://close → closed")
    func closed() {
        var enqueued = false
        let (result, _) = simulate(configuration()) { _ in
            if !enqueued {
                enqueued = true
                return .success(Reply.enqueue(token: nil))
            }
            return .success(Reply.redirect("queueit://close"))
        }
        #expect(result.outcome == .closed)
    }

    @Test("queueit://restartSession → a fresh enqueue (backoff reset), then restarted past maxRestarts")
    func restarts() {
        var enqueues = 0
        let (result, sent) = simulate(configuration(maxRestarts: 1), latency: .zero) { sent in
            if sent.path.hasSuffix("/enqueue") {
                enqueues += 1
                // The first enqueue of each run fails once, to show the backoff starts at 1 s again.
                return enqueues % 2 == 1 ? .success(Reply.response(status: 503)) : .success(Reply.enqueue(token: nil))
            }
            return .success(Reply.redirect("queueit://restartSession"))
        }
        #expect(result.outcome == .restarted)
        #expect(result.restarts == 2)
        #expect(result.attempts == 4)
        let enqueueTimes = sent.filter { $0.path.hasSuffix("/enqueue") }.map(\.at)
        #expect(enqueueTimes == [.seconds(0), .seconds(1), .seconds(1), .seconds(2)])
    }

    @Test("a restart within maxRestarts can still pass")
    func restartThenPass() {
        var pageLoads = 0
        let (result, _) = simulate(configuration(maxRestarts: 1)) { sent in
            if sent.path.hasSuffix("/enqueue") { return .success(Reply.enqueue(token: nil)) }
            pageLoads += 1
            return .success(Reply.redirect(pageLoads == 1 ? "queueit://restartSession" : Self.target))
        }
        #expect(result.outcome == .passed)
        #expect(result.restarts == 1)
        #expect(result.attempts == 2)
    }

    @Test("still in the queue after maxWait → queued")
    func maxWait() {
        let (result, _) = simulate(configuration(maxWait: .seconds(30))) { sent in
            sent.path.hasSuffix("/enqueue") ? .success(Reply.enqueue(token: nil)) : .success(Reply.json("{}"))
        }
        #expect(result.outcome == .queued)
        #expect(result.marks.ended == .seconds(30.02))
    }

    @Test("stop: run end in the queue → queued; before the enqueue decision → interrupted; SIGINT → interrupted")
    func stopping() {
        let inQueue = simulate(configuration(), stopAt: .seconds(5)) { sent in
            sent.path.hasSuffix("/enqueue") ? .success(Reply.enqueue(token: nil)) : .success(Reply.json("{}"))
        }.result
        #expect(inQueue.outcome == .queued)
        #expect(inQueue.marks.ended == .seconds(5))
        let enqueueing = simulate(configuration(), stopAt: .seconds(5)) { _ in .success(Reply.response(status: 503)) }
            .result
        #expect(enqueueing.outcome == .interrupted)

        var machine = VisitorMachine(configuration: configuration())
        _ = machine.start(at: .origin)
        _ = machine.received(Reply.enqueue(token: nil), at: .seconds(1))
        #expect(machine.phase == .inQueue)
        #expect(machine.stop(at: .seconds(2), reason: .interrupted).outcome == .interrupted)
        #expect(machine.phase == .finished)
    }

    @Test("enqueue keys and tokens go in the body; a proxy domain and prefix shape the URL")
    func requestShape() {
        let keyed = simulate(configuration(domain: "shop.example.com", prefix: "/queue/", enqueueKey: "k-1")) { _ in
            .success(Reply.enqueue(token: TokenVectors.safetynet))
        }.sent[0]
        #expect(keyed.authority == "shop.example.com")
        #expect(keyed.path == "/queue/api/mobileapp/queue/acme/spring/enqueue")
        #expect(keyed.bodyText.contains(#""enqueueKey":"k-1""#))
        let tokened = simulate(configuration(enqueueToken: "t.o.k")) { _ in
            .success(Reply.enqueue(token: TokenVectors.safetynet))
        }.sent[0]
        #expect(tokened.bodyText.hasSuffix(#""enqueueToken":"t.o.k"}"#))
        // iOS: the header is CFNetwork's, the SDK's user agent is in the body.
        #expect(tokened.header("User-Agent") == PlatformHeaders.cfNetworkUserAgent)
        #expect(tokened.bodyText.contains(#""userAgent":"queuesim\/1 (test)""#))
    }

    @Test("a visitor machine stays small (a million must fit in memory)")
    func footprint() {
        let size = MemoryLayout<VisitorMachine>.size
        #expect(size < 768, "VisitorMachine is \(size) bytes")
    }
}
