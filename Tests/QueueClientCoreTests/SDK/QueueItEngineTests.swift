import Foundation
import Synchronization
import Testing

@testable import QueueClientCore

/// Records callbacks in order, as strings.
final class RecordingListener: QueueListener {
    private let recorded = Mutex<[String]>([])
    var events: [String] { recorded.withLock { $0 } }
    private func record(_ event: String) { recorded.withLock { $0.append(event) } }

    func onQueuePassed(info: QueuePassedInfo) { record("passed(\(info.queueItToken == nil ? "no token" : "token"))") }
    func onQueueViewWillOpen() { record("viewWillOpen") }
    func onQueueDisabled(info: QueueDisabledInfo) { record("disabled") }
    func onQueueItUnavailable() { record("unavailable") }
    func onError(error: QueueError, errorMessage: String) { record("error(\(error.rawValue): \(errorMessage))") }
    func onWebViewClosed() { record("closed") }
    func onSessionRestart() { record("restart") }
    func onQueueUrlChanged(_ url: String) { record("urlChanged(\(url))") }
    func onSSLError(_ errorMessage: String) { record("ssl") }
}

@Suite("QueueItEngine: the SDK facade and its callback order")
struct QueueItEngineTests {
    func engine(_ script: [Result<IncomingResponse, TransportError>], options: QueueItEngineOptions? = nil)
        -> (QueueItEngine, RecordingListener, ScriptedTransport, TestClock)
    {
        let clock = TestClock()
        let transport = ScriptedTransport(script, clock: clock)
        let listener = RecordingListener()
        let engine = QueueItEngine(
            customerId: "acme", waitingRoomOrAliasId: "spring", queueListener: listener, themeName: "Dark",
            language: "en-US", options: options, transport: transport, clock: clock, userId: "device-1")
        return (engine, listener, transport, clock)
    }

    @Test("run: safetynet → onQueuePassed only")
    func safetynet() async {
        let (engine, listener, transport, _) = engine([.success(Reply.enqueue(token: TokenVectors.safetynet))])
        await engine.run()
        #expect(listener.events == ["passed(token)"])
        #expect(
            transport.sent[0].bodyText
                == #"{"userId":"device-1","userAgent":"QueueClientCore\/1 (headless Queue-it engine)","sdkVersion":"iOS-3.5.1","layoutName":"Dark","language":"en-US"}"#
        )
    }

    @Test("run: disabled → onQueueDisabled")
    func disabled() async {
        let (engine, listener, _, _) = engine([.success(Reply.enqueue(token: TokenVectors.with(rt: "afterevent")))])
        await engine.run()
        #expect(listener.events == ["disabled"])
    }

    @Test("run: queue → viewWillOpen, view delay, urlChanged per queue page, then passed")
    func queueOrder() async {
        let options = QueueItEngineOptions(webViewUserAgent: "MyApp/2", viewDelayMs: 250)
        let (engine, listener, transport, clock) = engine(
            [
                .success(Reply.enqueue(token: nil)),
                .success(Reply.redirect("/softblock/?c=acme")),
                .success(Reply.json("{}")),
                .success(Reply.redirect("https://shop.example.com/checkout?queueittoken=abc")),
            ], options: options)
        await engine.runWithEnqueueKey("key-1")
        #expect(
            listener.events == [
                "viewWillOpen", "urlChanged(https://acme.queue-it.net/?c=acme&e=spring)",
                "urlChanged(https://acme.queue-it.net/softblock/?c=acme)", "passed(token)",
            ])
        #expect(clock.sleeps == [.seconds(0.25), .seconds(2.25)])
        #expect(transport.sent.map(\.at) == [.origin, .seconds(0.25), .seconds(0.25), .seconds(2.25)])
        #expect(transport.sent[0].bodyText.contains(#""enqueueKey":"key-1""#))
        #expect(transport.sent[1].header("User-Agent") == "MyApp/2")
    }

    @Test(
        "close and restart links fire their callbacks",
        arguments: [("queueit://close", "closed"), ("queueit://restartSession", "restart")])
    func specialLinks(location: String, event: String) async {
        let (engine, listener, _, _) = engine([.success(Reply.enqueue(token: nil)), .success(Reply.redirect(location))])
        await engine.run()
        // iOS reports the first queue URL as a change too.
        #expect(listener.events == ["viewWillOpen", "urlChanged(https://acme.queue-it.net/?c=acme&e=spring)", event])
    }

    @Test("4xx → onError(invalidResponse) after one request")
    func clientError() async {
        let (engine, listener, transport, _) = engine([.success(Reply.response(status: 404, body: "no such room"))])
        await engine.runWithEnqueueToken("tok")
        #expect(listener.events == ["error(invalidResponse: Error 404: no such room)"])
        #expect(transport.sent.count == 1)
    }

    @Test("retries used up → onQueueItUnavailable after 1, 2, 4, 8 s, with iOS's code-3 error too")
    func unavailable() async {
        let (engine, listener, transport, clock) = engine(
            Array(repeating: .success(Reply.response(status: 503)), count: 5))
        await engine.run()
        #expect(listener.events == ["unavailable", "error(queueUnavailable: Unexpected response code: 503)"])
        #expect(transport.sent.count == 5)
        #expect(clock.sleeps == [.seconds(1), .seconds(3), .seconds(7), .seconds(15)])
    }

    @Test("tryPass returns the result; showQueue drives the navigator")
    func tryPassThenShow() async throws {
        let (engine, listener, _, _) = engine([
            .success(Reply.enqueue(token: TokenVectors.queue)),
            .success(Reply.redirect("https://shop.example.com/checkout?queueittoken=abc")),
        ])
        let result = try #require(await engine.tryPass(enqueueKey: "k"))
        #expect(result.redirectType == .queue)
        #expect(result.isPassedThrough)
        #expect(result.queueUrl == "https://acme.queue-it.net/?c=acme&e=spring")
        #expect(result.targetUrl == "https://shop.example.com/checkout")
        #expect(result.queueToken == TokenVectors.queue)
        #expect(listener.events.isEmpty)
        await engine.showQueue(queueTryPassResult: result)
        #expect(
            listener.events == [
                "viewWillOpen", "urlChanged(https://acme.queue-it.net/?c=acme&e=spring)", "passed(token)",
            ])
    }

    @Test("Android: no first URL change, unavailable alone, view delay in ms, userId and invite code in URLs")
    func androidEngine() async {
        let options = QueueItEngineOptions(platform: .android, viewDelay: 250, inviteCode: "VIP")
        let (android, listener, transport, clock) = engine(
            [
                .success(Reply.enqueue(token: nil)),
                .success(Reply.redirect("https://shop.example.com/checkout?queueittoken=abc")),
            ], options: options)
        await android.run()
        #expect(listener.events == ["viewWillOpen", "passed(token)"])
        #expect(clock.sleeps == [.seconds(0.25)])
        #expect(transport.sent[0].path == "/api/mobileapp/queue/acme/spring/enqueue?userId=device-1")
        #expect(transport.sent[0].bodyText.contains(#""sdkVersion":"Android-3.0.0""#))
        #expect(transport.sent[1].path == "/?userId=device-1&c=acme&e=spring&code=VIP")

        let (failing, failingListener, _, _) = engine(
            Array(repeating: .success(Reply.response(status: 503)), count: 5), options: options)
        await failing.run()
        #expect(failingListener.events == ["unavailable"])
    }

    @Test("a TLS failure on the queue page → onSSLError")
    func sslError() async {
        let (engine, listener, _, _) = engine([
            .success(Reply.enqueue(token: nil)), .failure(.tls("certificate expired")),
        ])
        await engine.run()
        #expect(listener.events == ["viewWillOpen", "urlChanged(https://acme.queue-it.net/?c=acme&e=spring)", "ssl"])
    }

    @Test("a queue answer without a target URL → onError after onQueueViewWillOpen")
    func missingTarget() async {
        let (engine, listener, _, _) = engine([.success(Reply.enqueue(token: nil, target: nil))])
        await engine.run()
        #expect(listener.events.count == 2)
        #expect(listener.events.first == "viewWillOpen")
        #expect(listener.events.last?.hasPrefix("error(sslError: Failed to load the queue") == true)
    }

    @Test("the logger maps the SDK's levels onto swift-log")
    func logLevels() {
        QueueItLogger.setLogLevel(.fatal)
        #expect(QueueItLogger.logger.logLevel == .critical)
        QueueItLogger.setLogLevel(.warn)
        #expect(QueueItLogger.logger.logLevel == .warning)
    }

    @Test("a second run while the first's enqueue call is in flight runs too: neither SDK refuses it")
    func overlappingRuns() async {
        let transport = BarrierTransport(answer: Reply.enqueue(token: TokenVectors.safetynet), holding: 2)
        let listener = RecordingListener()
        let engine = QueueItEngine(
            customerId: "acme", waitingRoomOrAliasId: "spring", queueListener: listener, transport: transport,
            clock: TestClock(), userId: "device-1")
        async let first: Void = engine.run()
        async let second: Void = engine.run()
        _ = await (first, second)
        // Both enqueue calls were in flight at once (the transport answered neither before the
        // other arrived), and both runs passed: no `requestAlreadyInProgress`.
        #expect(listener.events == ["passed(token)", "passed(token)"])
    }
}

/// Answers every request with `answer`, but only once `holding` requests are in flight together.
private final class BarrierTransport: HTTPTransport {
    private let answer: IncomingResponse
    private let holding: Int
    private let waiting = Mutex<[CheckedContinuation<Void, Never>]>([])

    init(answer: IncomingResponse, holding: Int) {
        self.answer = answer
        self.holding = holding
    }

    func execute(_ request: OutgoingRequest, timeout: Duration) async -> Result<IncomingResponse, TransportError> {
        await withCheckedContinuation { continuation in
            let released = waiting.withLock { waiting -> [CheckedContinuation<Void, Never>] in
                waiting.append(continuation)
                guard waiting.count == holding else { return [] }
                defer { waiting.removeAll() }
                return waiting
            }
            for waiter in released { waiter.resume() }
        }
        return .success(answer)
    }
}
