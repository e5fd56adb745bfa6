import Foundation
import Testing

/// `queuesim serve --tls-cert … --tls-key …` and `waitingRoom.tls` as a user meets them
/// (issue 55, item 2): curl over h2 and HTTP/1.1, the banner, exit 2 for a pair that cannot be
/// served, and a wall-clock run whose visitors reach their room over https.
@Suite("queuesim serve over TLS", .serialized)
struct ServeTLSCommandTests {
    static let fixtures = QueueSimProcess.repositoryRoot + "/Tests/QueueSimTests/Fixtures/tls"
    static let certificate = fixtures + "/self-signed.cert.pem"
    static let key = fixtures + "/self-signed.key.pem"

    @Test(.timeLimit(.minutes(1)))
    func curlGetsTheRoomOverH2AndHTTP11() throws {
        let file = try TemporaryScenario(bytes: Array(ServeCommandTests.scenario.utf8))
        let server = try ServeProcess(arguments: [
            "serve", file.path, "--port", "0", "--tls-cert", Self.certificate, "--tls-key", Self.key,
        ])
        defer { server.kill() }
        let port = try server.waitForPort(scheme: "https")
        let banner = try String(contentsOf: server.stdout, encoding: .utf8)
        #expect(banner.contains("  enqueue (POST):  https://127.0.0.1:\(port)/queue/api/mobileapp/queue/acme/"))
        #expect(
            banner.contains(
                "  protocols:       h2 and http/1.1 over TLS (ALPN; no ALPN is http/1.1), at most 100 streams per h2 connection"
            ), "\(banner)")
        // The banner's own recipe works as pasted: -k, https, the room's host.
        let recipe = banner.split(separator: "\n").map(String.init).filter { $0.hasPrefix("    curl ") }
        try #require(recipe.count == 2, "\(banner)")
        #expect(recipe[0].hasPrefix("    curl -sk --connect-to ::127.0.0.1:\(port) "), "\(recipe[0])")
        let enqueue = try ServeBannerCommandTests.shell(recipe[0])
        #expect(enqueue.contains("\"QueueId\":\""), "\(enqueue)")

        let url = "https://shop.example.com/queue/api/mobileapp/queue/acme/spring-launch/enqueue"
        let body = #"{"userId":"u1","userAgent":"curl","sdkVersion":"iOS-3.5.2"}"#
        let common =
            "curl -sk -o /dev/null -w '%{http_version} %{http_code}' --connect-to ::127.0.0.1:\(port) "
            + "-H 'Content-Type: application/json' -d '\(body)' \(url)"
        #expect(try ServeBannerCommandTests.shell(common + " --http1.1") == "1.1 200")
        #expect(try server.interruptAndWait(limit: .seconds(10)).status == 0)
    }

    @Test(
        .timeLimit(.minutes(1)),
        .enabled(if: curlSpeaksH2(), "this machine's curl lacks the HTTP2 feature (curl --version)"))
    func curlOverH2GetsTheSameAnswersAsOverHTTP11() throws {
        let file = try TemporaryScenario(bytes: Array(ServeCommandTests.scenario.utf8))
        let server = try ServeProcess(arguments: [
            "serve", file.path, "--port", "0", "--tls-cert", Self.certificate, "--tls-key", Self.key,
        ])
        defer { server.kill() }
        let port = try server.waitForPort(scheme: "https")
        let url = "https://acme.example/api/protected"
        let common = "curl -sk -D - -o /dev/null --connect-to ::127.0.0.1:\(port) \(url)"
        let h2 = try ServeBannerCommandTests.shell(common + " --http2")
        let h1 = try ServeBannerCommandTests.shell(common + " --http1.1")
        #expect(h2.hasPrefix("HTTP/2 302"), "\(h2)")
        #expect(h1.hasPrefix("HTTP/1.1 302 Found\r\n"), "\(h1)")
        // The same fields, lowercase over h2; the room's start header on both.
        let fields = { (head: String) in
            head.split(separator: "\r\n").dropFirst().map { $0.lowercased() }.filter { !$0.isEmpty }
        }
        #expect(fields(h2) == fields(h1), "\(h2)\n\(h1)")
        #expect(fields(h2).contains { $0.hasPrefix("queuesim-room-start: ") }, "\(h2)")
        #expect(try server.interruptAndWait(limit: .seconds(10)).status == 0)
    }

    @Test(
        "a pair that cannot be served: exit 2 before listening, the path in the message",
        arguments: [
            ("/no/such/cert.pem", key, "/no/such/cert.pem: no such certificate file"),
            (certificate, "/no/such/key.pem", "/no/such/key.pem: no such private key file"),
            (
                certificate, fixtures + "/private-ca-server.key.pem",
                "\(fixtures)/private-ca-server.key.pem is not the private key of \(certificate)'s certificate"
            ),
        ])
    func aBadPairIsExitTwo(certificate: String, key: String, message: String) throws {
        let file = try TemporaryScenario(bytes: Array(ServeCommandTests.scenario.utf8))
        let result = try QueueSimProcess.run([
            "serve", file.path, "--port", "0", "--tls-cert", certificate, "--tls-key", key,
        ])
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains("queuesim serve: --tls-cert/--tls-key: \(message)"), "\(result.stderr)")
        #expect(!result.stdout.contains("listening"), "\(result.stdout)")
    }

    @Test func oneOptionWithoutTheOtherIsExitTwo() throws {
        let file = try TemporaryScenario(bytes: Array(ServeCommandTests.scenario.utf8))
        let result = try QueueSimProcess.run(["serve", file.path, "--port", "0", "--tls-cert", Self.certificate])
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains("--tls-cert and --tls-key go together"), "\(result.stderr)")
    }

    @Test(.timeLimit(.minutes(2)))
    func aRunsOwnRoomServesHTTPSWithWaitingRoomTLS() throws {
        let scenario = """
            version: 1
            name: tls-room
            target: { customerId: acme, waitingRoomId: launch }
            arrivals: { phases: [ { burst: 3 } ] }
            client: { pollInterval: 200ms, maxWait: 20s }
            waitingRoom:
              outflow: 6000/min
              tls: { cert: \(Self.certificate), key: \(Self.key) }
            thresholds: [ "passed >= 100%" ]
            """
        let file = try TemporaryScenario(scenario)
        let out = RunCommandProcess.reportDirectory()
        defer { try? FileManager.default.removeItem(atPath: out) }
        let result = try RunCommandProcess.run(["run", file.path, "--out", out], limit: .seconds(60))
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")

        // The same run trusting another CA fails every visitor on the certificate: the
        // visitors did speak TLS to their room.
        let distrust = try TemporaryScenario(
            scenario.replacingOccurrences(
                of: "target: { customerId: acme, waitingRoomId: launch }",
                with:
                    "target: { customerId: acme, waitingRoomId: launch, caFile: \(Self.fixtures)/private-ca.cert.pem }")
        )
        let refusedOut = RunCommandProcess.reportDirectory()
        defer { try? FileManager.default.removeItem(atPath: refusedOut) }
        let refused = try RunCommandProcess.run(["run", distrust.path, "--out", refusedOut], limit: .seconds(60))
        #expect(refused.status == 1, "\(refused.stdout)\n\(refused.stderr)")
        let visitors = try String(contentsOfFile: refusedOut + "/visitors.csv", encoding: .utf8)
        #expect(!visitors.contains(",passed,"), "\(visitors)")
    }

    @Test func aScenarioWhoseKeyIsNotTheCertificatesIsRefusedAtItsPosition() throws {
        let file = try TemporaryScenario(
            """
            version: 1
            target: { customerId: acme, waitingRoomId: launch }
            arrivals: { phases: [ { burst: 1 } ] }
            waitingRoom:
              tls:
                cert: \(Self.certificate)
                key: \(Self.fixtures)/private-ca-server.key.pem
            """)
        let result = try QueueSimProcess.run(["validate", file.path])
        #expect(result.status == 2, "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "\(file.path):7:10: `waitingRoom.tls`: \(Self.fixtures)/private-ca-server.key.pem is not the private key of \(Self.certificate)'s certificate"
            ), "\(result.stderr)")
    }

    /// Whether `curl --version` lists the HTTP2 feature.
    static func curlSpeaksH2() -> Bool {
        let version = (try? ServeBannerCommandTests.shell("curl --version")) ?? ""
        return version.split(separator: "\n")
            .contains { $0.hasPrefix("Features:") && $0.split(separator: " ").contains("HTTP2") }
    }
}
