import Foundation
import Logging
import NIOCore
import NIOSSL
import QueueClientCore
import StandInServers
import Testing

@testable import QueueSim

/// The live engine's own HTTP client against servers that misbehave on purpose: whole-exchange
/// timeouts, keep-alive reuse counted, servers that close connections, TLS that does not verify.
@Suite("live engine: the HTTP client on the wall clock", .timeLimit(.minutes(1)))
struct LiveEngineTests {
    static let enqueueBody = """
        {"QueueId":"q1","QueueUrl":null,"QueueUrlTTLInMinutes":0,"EventTargetUrl":"https://acme.example/launch",\
        "QueueitToken":"e_launch~q_q1~ts_4102444800~ce_true~rt_safetynet~h_\(String(repeating: "ab", count: 32))",\
        "RedirectType":"safetynet"}
        """

    static func scenario(port: Int, scheme: String = "http", arrivals: String, client: String = "{}", run: String)
        -> String
    {
        """
        version: 1
        name: live
        target: { customerId: acme, waitingRoomId: launch, endpoint: "\(scheme)://127.0.0.1:\(port)" }
        client: \(client)
        arrivals: \(arrivals)
        visitors: [ { name: app } ]
        run: \(run)
        """
    }

    static func runWall(_ yaml: String, label: String = #function) async throws -> RunReports {
        let folder = try RunFixture.makeFolder(label)
        let run = try RunFixture.prepare(yaml, folder: folder, options: RunOptions(clock: .wall))
        var logger = Logger(label: "queuesim.test")
        logger.logLevel = .critical
        let runner = WallClockRunner(
            run: run, progress: RunProgress(planned: run.summary.visitorCount), stopSignal: RunStopSignal(),
            logger: logger)
        return try RunReports(report: try await runner.execute())
    }

    /// Every request of the run answered by `reply`, except the reachability check (the
    /// first request of all), answered 404.
    static func afterReachabilityCheck(_ reply: @escaping @Sendable (Int) -> RawHTTPServer.Reply)
        -> @Sendable (Int) -> RawHTTPServer.Reply
    {
        { number in number == 1 ? .bytes(RawHTTPServer.answer(status: "404 Not Found", body: "{}")) : reply(number - 1)
        }
    }

    /// One visitor against a server that answers every enqueue with `reply`, 400 ms
    /// `requestTimeout`: returns its row and the server.
    static func timedOutVisitor(_ reply: RawHTTPServer.Reply) async throws -> (row: [String: String], requests: Int) {
        try await RawHTTPServer.with(reply: afterReachabilityCheck { _ in reply }) { server in
            let reports = try await runWall(
                scenario(
                    port: server.port, arrivals: "{ phases: [ { burst: 1 } ] }", client: "{ requestTimeout: 400ms }",
                    run: "{}"))
            return (try #require(reports.visitors.rows.first), server.requestsReceived)
        }
    }

    /// Five timeouts of 0.4 s and the SDK's waits of 1, 2, 4 and 8 s between them: never less
    /// (a deadline cannot fire early); more only by the machine's own delays.
    static func expectTimedOutAfterRetries(_ row: [String: String]) {
        #expect(row["outcome"] == "unavailable")
        #expect(row["attempts"] == "5")
        #expect(row["error"]?.contains("timed out") == true)
        let total = row.int("total_ms") ?? 0
        #expect(total >= 17_000 && total < 30_000, "total_ms \(total)")
    }

    @Test("a chunked body that never ends: a timeout after requestTimeout, then the SDK's retries")
    func stalledChunkedBody() async throws {
        let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{\"Que"
        let (row, requests) = try await Self.timedOutVisitor(.stall(head))
        Self.expectTimedOutAfterRetries(row)
        #expect(requests == 6)
    }

    @Test("a body trickled one byte at a time: a whole-exchange timeout, not an idle one")
    func trickledBody() async throws {
        // An idle timeout would never fire here (a byte every 50 ms for 20 s per attempt).
        let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n"
        let (row, _) = try await Self.timedOutVisitor(.trickle(head: head, interval: .milliseconds(50), count: 400))
        Self.expectTimedOutAfterRetries(row)
    }

    @Test("the platform's idle timeout: an answer trickling for 12 s, a byte every 40 ms, passes an Android visitor")
    func idleTimeoutWhileBytesArrive() async throws {
        // Android's 10 s is a timeout per read, not for the whole answer (OkHttp): a whole-
        // exchange limit of 10 s would have cut this answer and retried.
        let head =
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(Self.enqueueBody.utf8.count)\r\n\r\n"
        let interval = TimeAmount.milliseconds(12_000 / Int64(Self.enqueueBody.utf8.count))
        let reply = RawHTTPServer.Reply.trickleBody(head: head, body: Self.enqueueBody, interval: interval)
        try await RawHTTPServer.with(reply: Self.afterReachabilityCheck { _ in reply }) { server in
            let reports = try await Self.runWall(
                Self.scenario(
                    port: server.port, arrivals: "{ phases: [ { burst: 1 } ] }", client: "{ platform: android }",
                    run: "{}"))
            let row = try #require(reports.visitors.rows.first)
            #expect(row["outcome"] == "passed", "\(row)")
            #expect(row["attempts"] == "1")
            #expect(row.int("total_ms")! >= 11_000, "\(row)")
        }
    }

    @Test("shared keep-alive: 100 visitors one after another share one connection; 200 at once open at most 20")
    func poolReusesConnections() async throws {
        let answer = RawHTTPServer.answer(body: Self.enqueueBody)
        try await RawHTTPServer.with(reply: { _ in .bytes(answer) }) { server in
            let reports = try await Self.runWall(
                Self.scenario(
                    port: server.port, arrivals: "{ phases: [ { duration: 1s, rate: 100 } ] }",
                    client: "{ connections: shared }", run: "{ concurrency: 1 }"))
            reports.expectContract(arrivals: 100)
            #expect(reports.outcomes == ["passed": 100])
            // The reachability check's connection, and one for every visitor.
            #expect(server.connectionsAccepted == 2)
            #expect(server.requestsReceived == 101)
            #expect(reports.report.generator?.loops == 1)
        }
        try await RawHTTPServer.with(reply: { _ in .bytes(answer) }) { server in
            let reports = try await Self.runWall(
                Self.scenario(
                    port: server.port, arrivals: "{ phases: [ { burst: 200 } ] }", client: "{ connections: shared }",
                    run: "{ concurrency: 20 }"))
            reports.expectContract(arrivals: 200)
            #expect(reports.outcomes == ["passed": 200])
            #expect(server.connectionsAccepted <= 21)
            #expect(server.requestsReceived == 201)
        }
    }

    @Test("a server that closes every connection after its answer: each visitor still passes at its first attempt")
    func serverClosesKeepAliveConnections() async throws {
        let answer = RawHTTPServer.answer(body: Self.enqueueBody)
        let withClose = RawHTTPServer.answer(headers: ["Connection: close"], body: Self.enqueueBody)
        // Without `Connection: close` the client learns of the close only when it reuses the
        // connection; with it, it must not reuse it at all.
        for (reply, label) in [(answer, "silent close"), (withClose, "Connection: close")] {
            try await RawHTTPServer.with(reply: { _ in .bytes(reply, close: true) }) { server in
                let reports = try await Self.runWall(
                    Self.scenario(
                        port: server.port, arrivals: "{ phases: [ { duration: 1s, rate: 30 } ] }",
                        run: "{ concurrency: 1 }"))
                reports.expectContract(arrivals: 30)
                #expect(reports.outcomes == ["passed": 30], "\(label)")
                #expect(Set(reports.visitors.column("attempts")) == ["1"], "\(label)")
                #expect(server.connectionsAccepted == server.requestsReceived, "\(label)")
            }
        }
    }

    @Test("a TLS endpoint whose certificate does not verify: the run does not start (exit 3)")
    func badCertificateAborts() async throws {
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/tls").path
        let certificate = try #require(try NIOSSLCertificate.fromPEMFile(fixtures + "/self-signed.cert.pem").first)
        let key = try NIOSSLPrivateKey(file: fixtures + "/self-signed.key.pem", format: .pem)
        let tls = try NIOSSLContext(
            configuration: .makeServerConfiguration(
                certificateChain: [.certificate(certificate)], privateKey: .privateKey(key)))
        let answer = RawHTTPServer.answer(body: Self.enqueueBody)
        try await RawHTTPServer.with(tls: tls, reply: { _ in .bytes(answer) }) { server in
            let yaml = Self.scenario(
                port: server.port, scheme: "https", arrivals: "{ phases: [ { burst: 3 } ] }", run: "{}")
            do {
                _ = try await Self.runWall(yaml)
                Issue.record("a run against an unverifiable certificate started")
            } catch let abort as RunAbort {
                #expect(abort.description.contains("not reachable"))
                #expect(abort.description.contains("TLS"))
                #expect(
                    abort.description.contains(
                        "TLS error: the server's certificate could not be verified (checked against acme.queue-it.net, the host the requests name, as a phone checks it)"
                    ),
                    "\(abort.description)")
            }
            #expect(server.requestsReceived == 0)
        }
    }

    /// The certificate names the room's host (`acme.queue-it.net`), not 127.0.0.1 where the run
    /// connects: a phone checks the URL's host.
    @Test("target.caFile: a TLS endpoint signed by a private CA is reached with verification on; a wrong CA is exit 3")
    func privateCertificateAuthority() async throws {
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/tls").path
        let certificate = try NIOSSLCertificate.fromPEMFile(fixtures + "/routes-server.cert.pem")
        let key = try NIOSSLPrivateKey(file: fixtures + "/routes-server.key.pem", format: .pem)
        let tls = try NIOSSLContext(
            configuration: .makeServerConfiguration(
                certificateChain: certificate.map { .certificate($0) }, privateKey: .privateKey(key)))
        let answer = RawHTTPServer.answer(body: Self.enqueueBody)
        func scenario(port: Int, caFile: String) -> String {
            """
            version: 1
            name: live
            target: { customerId: acme, waitingRoomId: launch, endpoint: "https://127.0.0.1:\(port)", caFile: "\(caFile)" }
            arrivals: { phases: [ { burst: 3 } ] }
            visitors: [ { name: app } ]
            """
        }
        try await RawHTTPServer.with(tls: tls, reply: { _ in .bytes(answer) }) { server in
            let reports = try await Self.runWall(scenario(port: server.port, caFile: fixtures + "/routes-ca.cert.pem"))
            #expect(reports.outcomes == ["passed": 3])
            for row in reports.visitors.rows {
                // Every device visitor paid a full handshake of its own.
                #expect(row.int("tls_ms") != nil, "\(row)")
                #expect(row.int("connect_ms") != nil, "\(row)")
            }
            do {
                _ = try await Self.runWall(scenario(port: server.port, caFile: fixtures + "/self-signed.cert.pem"))
                Issue.record("a run trusting the wrong CA started")
            } catch let abort as RunAbort {
                #expect(
                    abort.description.contains("TLS error: the server's certificate could not be verified"),
                    "\(abort.description)")
            }
        }
    }
}
