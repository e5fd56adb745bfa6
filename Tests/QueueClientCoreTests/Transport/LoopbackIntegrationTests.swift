import Foundation
import StandInServers
import Synchronization
import Testing
import VisitorDriver

@testable import QueueClientCore

/// Real HTTP on 127.0.0.1 through `AsyncHTTPTransport` with a connect-to override; waits
/// run on the test clock, so nothing sleeps for real.
@Suite("Loopback: AsyncHTTPTransport against a stand-in of Queue-it's API", .timeLimit(.minutes(1)))
struct LoopbackIntegrationTests {
    static let target = "https://shop.example.com/checkout"

    /// Runs one visitor against a stand-in server answering with `handler`.
    func visit(
        _ configuration: VisitorConfiguration, handler: @escaping @Sendable (StandInRequest) -> StandInAnswer
    ) async throws -> (VisitorResult, [StandInRequest], TestClock) {
        let server = try await ScriptedQueueItServer.start(script: handler)
        let transport = AsyncHTTPTransport(
            connectTo: ConnectTarget(scheme: "http", host: "127.0.0.1", port: server.port))
        let clock = TestClock()
        let result = await runVisitor(configuration: configuration, transport: transport, clock: clock)
        try await transport.shutdown()
        let received = server.received
        try await server.shutdown()
        return (result, received, clock)
    }

    static func enqueueAnswer(token: String?) -> StandInAnswer {
        let tokenJSON = token.map { "\"\($0)\"" } ?? "null"
        return StandInAnswer(
            status: 200, headers: [("Content-Type", "application/json")],
            body:
                #"{"QueueId":"q-9","QueueUrl":"https://acme.queue-it.net/?c=acme&e=spring","EventTargetUrl":"\#(target)","QueueitToken":\#(tokenJSON),"QueueUrlTTLInMinutes":null}"#
        )
    }

    @Test("safetynet → passed; the Host header keeps the waiting-room host")
    func passed() async throws {
        let (result, received, _) = try await visit(configuration()) { _ in
            Self.enqueueAnswer(token: TokenVectors.safetynet)
        }
        #expect(result.outcome == .passed)
        try #require(received.count == 1)
        #expect(received[0].method == "POST")
        #expect(received[0].uri == "/api/mobileapp/queue/acme/spring/enqueue")
        #expect(received[0].header("Host") == "acme.queue-it.net")
        #expect(received[0].header("Content-Type") == "application/json")
        #expect(received[0].header("Accept") == "application/json")
        #expect(received[0].header("User-Agent") == PlatformHeaders.cfNetworkUserAgent)
        #expect(received[0].body.hasPrefix(#"{"userId":"visitor-1""#))
    }

    @Test("disabled, idle, afterevent → disabled", arguments: ["disabled", "idle", "afterevent"])
    func disabled(rt: String) async throws {
        let (result, _, _) = try await visit(configuration()) { _ in
            Self.enqueueAnswer(token: TokenVectors.with(rt: rt))
        }
        #expect(result.outcome == .disabled)
    }

    @Test("queue → the navigator polls with cookies → passed with the token")
    func queueThenPassed() async throws {
        let polls = Counter()
        let (result, received, _) = try await visit(configuration()) { request in
            if request.path.hasSuffix("/enqueue") { return Self.enqueueAnswer(token: nil) }
            if polls.next() == 1 {
                return StandInAnswer(
                    status: 200, headers: [("Set-Cookie", "Queue-it-acme=abc; Path=/"), ("Retry-After", "3")],
                    body: #"{"position":1}"#)
            }
            return StandInAnswer(
                status: 302, headers: [("Location", "\(Self.target)?queueittoken=\(TokenVectors.queue)")])
        }
        #expect(result.outcome == .passed)
        #expect(result.queueitToken == TokenVectors.queue)
        #expect(result.polls == 2)
        // Checked before indexing: a visitor cut short must fail this test, not crash the run.
        try #require(received.count >= 3, "requests received: \(received.count)")
        #expect(received[1].method == "GET" && received[1].uri == "/?c=acme&e=spring")
        #expect(received[2].header("Cookie") == "Queue-it-acme=abc")
        #expect(result.marks.ended - result.marks.queueEntered! >= .seconds(3))
    }

    @Test("400 → error after one request")
    func clientError() async throws {
        let (result, received, _) = try await visit(configuration()) { _ in
            StandInAnswer(
                status: 400, headers: [("Content-Type", "application/json")], body: #"{"error":"bad request"}"#)
        }
        #expect(result.outcome == .error)
        #expect(result.lastHTTPStatus == 400)
        #expect(result.errorMessage == "bad request")
        #expect(received.count == 1)
    }

    @Test("503 → unavailable after five requests spaced 1, 2, 4, 8 s")
    func unavailable() async throws {
        let (result, received, clock) = try await visit(configuration()) { _ in StandInAnswer(status: 503) }
        #expect(result.outcome == .unavailable)
        #expect(received.count == 5)
        // The test clock does not advance during requests, so the deadlines are exactly the backoff.
        #expect(clock.sleeps == [.seconds(1), .seconds(3), .seconds(7), .seconds(15)])
    }

    @Test("two 503s then success → passed after three requests")
    func recovers() async throws {
        let count = Counter()
        let (result, received, _) = try await visit(configuration()) { _ in
            count.next() <= 2 ? StandInAnswer(status: 503) : Self.enqueueAnswer(token: TokenVectors.safetynet)
        }
        #expect(result.outcome == .passed)
        #expect(received.count == 3)
    }

    @Test("non-JSON → unavailable")
    func nonJSON() async throws {
        let (result, received, _) = try await visit(configuration()) { _ in
            StandInAnswer(status: 200, body: "<html>hi</html>")
        }
        #expect(result.outcome == .unavailable)
        #expect(received.count == 5)
    }

    @Test(
        "queueit://close → closed, queueit://restartSession → restart",
        arguments: [("queueit://close", VisitorOutcome.closed), ("queueit://restartSession", .restarted)])
    func specialLinks(location: String, outcome: VisitorOutcome) async throws {
        let (result, _, _) = try await visit(configuration(maxRestarts: 0)) { request in
            request.path.hasSuffix("/enqueue")
                ? Self.enqueueAnswer(token: nil) : StandInAnswer(status: 302, headers: [("Location", location)])
        }
        #expect(result.outcome == outcome)
    }

    @Test("enqueue keys and tokens are sent in the body")
    func keysAndTokens() async throws {
        let (_, keyed, _) = try await visit(configuration(enqueueKey: "key-42")) { _ in
            Self.enqueueAnswer(token: TokenVectors.safetynet)
        }
        // #require, not [0]: a visit that got no request under a loaded machine is a failed
        // test, not a crash of the whole test process.
        #expect(try #require(keyed.first).body.contains(#""enqueueKey":"key-42""#))
        let (_, tokened, _) = try await visit(configuration(enqueueToken: "hdr.payload.hash")) { _ in
            Self.enqueueAnswer(token: TokenVectors.safetynet)
        }
        #expect(try #require(tokened.first).body.contains(#""enqueueToken":"hdr.payload.hash""#))
    }

    @Test("a proxy domain with prefix reaches /{prefix}/api/mobileapp/... with the proxy's Host")
    func proxyPrefix() async throws {
        let (result, received, _) = try await visit(configuration(domain: "shop.example.com", prefix: "/queue/")) { _ in
            Self.enqueueAnswer(token: TokenVectors.safetynet)
        }
        #expect(result.outcome == .passed)
        try #require(!received.isEmpty)
        #expect(received[0].uri == "/queue/api/mobileapp/queue/acme/spring/enqueue")
        #expect(received[0].header("Host") == "shop.example.com")
    }

    @Test("a refused connection is a transport error (retried, then unavailable)")
    func refused() async throws {
        // Bind and close a server to get a port nobody listens on.
        let server = try await ScriptedQueueItServer.start { _ in StandInAnswer(status: 200) }
        let port = server.port
        try await server.shutdown()
        let transport = AsyncHTTPTransport(connectTo: ConnectTarget(scheme: "http", host: "127.0.0.1", port: port))
        let outcome = await transport.execute(
            EnqueueRequest.make(configuration().enqueueParameters), timeout: .seconds(5))
        try await transport.shutdown()
        guard case .failure(.connectFailed) = outcome else {
            Issue.record("expected a connect failure, got \(outcome)")
            return
        }
    }
}

final class Counter: Sendable {
    private let value = Mutex(0)
    func next() -> Int {
        value.withLock {
            $0 += 1
            return $0
        }
    }
}
