import Foundation
import Testing

/// The acceptance test of the live engine's HTTP/2 client (issue 55, item 1): a wall-clock run
/// whose embedded room serves TLS (it offers `h2, http/1.1`) with `client.http: auto` passes
/// its iOS and Android visitors over h2, and run.json and report.html say so; `client.http:
/// h1` passes them over HTTP/1.1.
@Suite("queuesim run over TLS: h2 by ALPN", .serialized, .timeLimit(.minutes(2)))
struct H2RunCommandTests {
    static let fixtures = QueueSimProcess.repositoryRoot + "/Tests/QueueSimTests/Fixtures/tls"

    static func scenario(http: String) -> String {
        """
        version: 1
        name: h2-\(http)
        target: { customerId: acme, waitingRoomId: launch }
        arrivals: { phases: [ { burst: 8 } ] }
        waitingRoom:
          mode: queue
          tls: { cert: \(fixtures)/self-signed.cert.pem, key: \(fixtures)/self-signed.key.pem }
        client: { platform: { ios: 50%, android: 50% }, http: \(http) }
        thresholds: [ "passed >= 99%" ]
        """
    }

    /// Runs the scenario and returns run.json's and report.html's text.
    static func run(http: String) throws -> (manifest: String, page: String) {
        let scenario = try TemporaryScenario(scenario(http: http))
        let out = RunCommandProcess.reportDirectory()
        defer { try? FileManager.default.removeItem(atPath: out) }
        let result = try RunCommandProcess.run(["run", scenario.path, "--out", out], limit: .seconds(60))
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        let manifest = try String(contentsOfFile: out + "/run.json", encoding: .utf8)
        let page = try String(contentsOfFile: out + "/report.html", encoding: .utf8)
        return (manifest, page)
    }

    /// run.json's `generator.protocols_by_endpoint`.
    static func protocols(_ manifest: String) throws -> [[String: Any]] {
        let json = try JSONSerialization.jsonObject(with: Data(manifest.utf8)) as? [String: Any]
        let generator = json?["generator"] as? [String: Any]
        return generator?["protocols_by_endpoint"] as? [[String: Any]] ?? []
    }

    @Test("client.http: auto — every visitor passes over h2, and run.json and report.html say so")
    func auto() throws {
        let (manifest, page) = try Self.run(http: "auto")
        let endpoints = try Self.protocols(manifest)
        #expect(endpoints.count == 1, "\(manifest)")
        let room = try #require(endpoints.first)
        #expect((room["endpoint"] as? String)?.hasPrefix("https://127.0.0.1:") == true, "\(room)")
        let connections = room["connections"] as? [String: Int] ?? [:]
        #expect(connections.keys.sorted() == ["h2"], "\(room)")
        #expect((connections["h2"] ?? 0) > 0)
        #expect((room["streams_per_connection_max"] as? Int ?? 0) >= 1, "\(room)")
        #expect(page.contains(": h2 on "), "report.html's generator section names the protocol")
    }

    @Test("client.http: h1 — the same visitors pass over HTTP/1.1 on TLS")
    func h1() throws {
        let (manifest, _) = try Self.run(http: "h1")
        let endpoints = try Self.protocols(manifest)
        let connections = endpoints.first?["connections"] as? [String: Int] ?? [:]
        #expect(connections.keys.sorted() == ["http/1.1"], "\(manifest)")
    }
}
