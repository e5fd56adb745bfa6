import Foundation
import NIOCore
import NIOSSL
import QueueClientCore
import StandInServers
import Synchronization
import Testing

@testable import QueueSim

/// Names and routes as a phone has them (issue 55, item 6), on loopback wall-clock runs: the
/// URL's host is the SNI, the `Host` and the certificate's name wherever the run connects; an
/// off-host redirect reaches its own host's endpoint; a protected API gets no `GET /`.
@Suite("host routing on the wall clock", .serialized, .timeLimit(.minutes(1)))
struct HostRoutingRunTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/tls").path
    static let targetURL = "https://acme.example/launch"

    static func token(queueId: String) -> String {
        let expiry = Int(Date().timeIntervalSince1970) + 180
        return "e_launch~q_\(queueId)~ts_\(expiry)~ce_true~rt_queue~h_" + String(repeating: "ab", count: 32)
    }

    /// The enqueue answer of a room whose queue page is on `queueHost`.
    static func enqueueAnswer(queueHost: String) -> StandInAnswer {
        let body = """
            {"QueueId":"q1","QueueUrl":"https://\(queueHost)/queue/acme/launch?q=q1",\
            "QueueUrlTTLInMinutes":30,"EventTargetUrl":"\(targetURL)","QueueitToken":null}
            """
        return StandInAnswer(status: 200, headers: [("Content-Type", "application/json")], body: body)
    }

    /// The queue page's answer at the visitor's turn: to the target with a token.
    static let yourTurn = StandInAnswer(
        status: 302, headers: [("Location", "\(targetURL)?queueittoken=\(token(queueId: "q1"))")])

    /// The SNI of every handshake a server saw ("(none)" for a handshake without one).
    final class ServerNames: Sendable {
        let names = Mutex<[String]>([])
        var all: [String] { names.withLock { $0 } }
    }

    /// A server TLS context for `certificate`, recording the SNI of every handshake.
    static func recordingTLS(certificate: String, key: String, names: ServerNames) throws -> NIOSSLContext {
        let chain = try NIOSSLCertificate.fromPEMFile(fixtures + "/" + certificate)
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: fixtures + "/" + key, format: .pem)))
        configuration.sslContextCallback = { values, promise in
            names.names.withLock { $0.append(values.serverHostname ?? "(none)") }
            promise.succeed(.noChanges)
        }
        return try NIOSSLContext(configuration: configuration)
    }

    @Test("SNI, Host and the certificate's name are the URL's host while the run connects to 127.0.0.1")
    func serverNameIsTheURLsHost() async throws {
        let names = ServerNames()
        let tls = try Self.recordingTLS(
            certificate: "routes-server.cert.pem", key: "routes-server.key.pem", names: names)
        let enqueue = RawHTTPServer.answer(body: LiveEngineTests.enqueueBody)
        try await RawHTTPServer.with(tls: tls, reply: { _ in .bytes(enqueue) }) { server in
            let reports = try await RunFixture.wall(
                """
                version: 1
                name: sni
                target:
                  customerId: acme
                  waitingRoomId: launch
                  endpoint: "https://127.0.0.1:\(server.port)"
                  caFile: "\(Self.fixtures)/routes-ca.cert.pem"
                arrivals: { phases: [ { burst: 3 } ] }
                """)
            #expect(reports.outcomes == ["passed": 3], "\(reports.visitors.rows)")
            let sent = names.all
            #expect(!sent.isEmpty)
            #expect(sent.allSatisfy { $0 == "acme.queue-it.net" }, "\(sent)")
            #expect(
                server.requestHeads.allSatisfy { $0.contains("\r\nHost: acme.queue-it.net") }, "\(server.requestHeads)")
        }
    }

    /// The certificate names acme.queue-it.net; a group of customer `beta` names
    /// beta.queue-it.net. (swift-nio-ssl also accepts a certificate naming the IP address it
    /// connected to, so the stand-in's certificate names none.)
    @Test("a certificate that does not name the URL's host is refused before any visitor: exit 3, naming the host")
    func certificateNotNamingTheURLsHostIsRefused() async throws {
        let names = ServerNames()
        let tls = try Self.recordingTLS(
            certificate: "routes-server.cert.pem", key: "routes-server.key.pem", names: names)
        try await RawHTTPServer.with(tls: tls, reply: { _ in .bytes(RawHTTPServer.answer(body: "{}")) }) { server in
            do {
                _ = try await RunFixture.wall(
                    """
                    version: 1
                    name: sni-refused
                    target:
                      customerId: beta
                      waitingRoomId: launch
                      endpoint: "https://127.0.0.1:\(server.port)"
                      caFile: "\(Self.fixtures)/routes-ca.cert.pem"
                    arrivals: { phases: [ { burst: 1 } ] }
                    """)
                Issue.record("a run whose room's certificate does not name beta.queue-it.net started")
            } catch let abort as RunAbort {
                #expect(
                    abort.description
                        == "the endpoint https://127.0.0.1:\(server.port) is not reachable: TLS error: the server's certificate does not name this host (checked against beta.queue-it.net, the host the requests name, as a phone checks it)"
                )
            }
            #expect(server.requestsReceived == 0)
            #expect(names.all == ["beta.queue-it.net"])
        }
    }

    @Test("an off-host queue page reaches its own host's endpoint through target.hosts, with its own Host")
    func offHostRedirectIsRoutedByHost() async throws {
        try await ScriptedQueueItServer.with(script: { _ in Self.yourTurn }) { challenge in
            try await ScriptedQueueItServer.with(script: { request in
                request.method == "POST"
                    ? Self.enqueueAnswer(queueHost: "challenge.example.com") : StandInAnswer(status: 404)
            }) { room in
                let reports = try await RunFixture.wall(
                    """
                    version: 1
                    name: offhost
                    target:
                      customerId: acme
                      waitingRoomId: launch
                      endpoint: "http://127.0.0.1:\(room.port)"
                      hosts: { challenge.example.com: "http://127.0.0.1:\(challenge.port)" }
                    client: { pollInterval: 200ms, maxWait: 20s }
                    arrivals: { phases: [ { burst: 2 } ] }
                    """)
                #expect(reports.outcomes == ["passed": 2])
                let pages = challenge.received
                #expect(pages.count == 2)
                #expect(pages.allSatisfy { $0.host == "challenge.example.com" && $0.path == "/queue/acme/launch" })
                #expect(!room.received.contains { $0.host == "challenge.example.com" })
                // Only the room hears the reachability check.
                #expect(!pages.contains { $0.path == "/" })
            }
        }
    }

    @Test("a protected API hears only the visitors' calls: no GET / reachability check")
    func noReachabilityRequestToTheAPI() async throws {
        try await ScriptedQueueItServer.with(script: { _ in StandInAnswer(status: 200, body: "{}") }) { api in
            try await ScriptedQueueItServer.with(script: { _ in StandInAnswer(status: 404) }) { room in
                let reports = try await RunFixture.wall(
                    """
                    version: 1
                    name: api
                    target:
                      customerId: acme
                      waitingRoomId: launch
                      endpoint: "http://127.0.0.1:\(room.port)"
                      protectedApi: "http://127.0.0.1:\(api.port)/v1/cart"
                    arrivals: { phases: [ { burst: 3 } ] }
                    visitors: [ { name: shop, flow: protectedApi } ]
                    """)
                #expect(reports.visitors.rows.count == 3)
                #expect(api.received.count == 3)
                #expect(api.received.allSatisfy { $0.path == "/v1/cart" }, "\(api.received.map(\.uri))")
                // The room's own check stays.
                #expect(room.received.map(\.path) == ["/"])
            }
        }
    }
}
