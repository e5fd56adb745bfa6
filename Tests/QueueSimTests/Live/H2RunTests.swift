import Foundation
import StandInServers
import Testing

@testable import QueueSim

/// A wall-clock run against a real TLS endpoint (the h2 stand-in, its certificate naming the
/// URL's host): `client.http: auto` sends every platform's enqueue as h2 in its stack's
/// frames; `client.http: h2` against a server that will not speak h2 is refused before any
/// visitor, in words.
@Suite("HTTP/2 client: runs against a TLS endpoint", .serialized, .timeLimit(.minutes(1)))
struct H2RunTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/tls").path

    static func options(protocols: [String]) -> H2StandInServer.Options {
        var options = H2StandInServer.Options()
        options.applicationProtocols = protocols
        options.certificatePath = fixtures + "/routes-server.cert.pem"
        options.keyPath = fixtures + "/routes-server.key.pem"
        options.respond = { _ in
            H2StandInResponse(
                status: 200, headers: [.init(name: "content-type", value: "application/json")],
                body: Array(LiveEngineTests.enqueueBody.utf8))
        }
        return options
    }

    static func scenario(port: Int, http: String) -> String {
        """
        version: 1
        name: h2-\(http)
        target:
          customerId: acme
          waitingRoomId: launch
          endpoint: "https://127.0.0.1:\(port)"
          caFile: "\(fixtures)/routes-ca.cert.pem"
        arrivals: { phases: [ { burst: 4 } ] }
        client: { platform: { ios: 50%, android: 50% }, http: \(http) }
        """
    }

    @Test("client.http: auto — every platform's enqueue goes as h2 in its stack's frames, and passes")
    func auto() async throws {
        try await H2StandInServer.with(Self.options(protocols: ["h2", "http/1.1"])) { server in
            let reports = try await RunFixture.wall(Self.scenario(port: server.port, http: "auto"))
            #expect(reports.outcomes == ["passed": 4], "\(reports.visitors.rows)")
            let enqueues = server.requests.filter { $0.method == "POST" }
            #expect(enqueues.count == 4)
            #expect(enqueues.allSatisfy { $0.alpn == "h2" })
            let orders = Set(enqueues.map { $0.pseudoHeaderNames.joined(separator: " ") })
            #expect(
                orders == [":method :path :authority :scheme", ":method :scheme :path :authority"],
                "OkHttp's and CFNetwork's: \(orders)")
            #expect(enqueues.allSatisfy { $0.pseudoHeaders[":authority"] == "acme.queue-it.net" })
        }
    }

    @Test("client.http: h2 against a server that offers only http/1.1: refused before any visitor, in words")
    func h2Refused() async throws {
        try await H2StandInServer.with(Self.options(protocols: ["http/1.1"])) { server in
            do {
                _ = try await RunFixture.wall(Self.scenario(port: server.port, http: "h2"))
                Issue.record("a run that requires h2 started against a server without it")
            } catch let abort as RunAbort {
                #expect(
                    abort.description.contains(
                        "could not connect: the server did not agree to HTTP/2 (ALPN h2), which client.http: h2 requires"
                    ), "\(abort.description)")
            }
            #expect(server.requests.filter { $0.method == "POST" }.isEmpty)
        }
    }
}
