import Foundation
import StandInServers
import Testing

/// Issue 55's first "Done when": through a capturing TLS proxy (`CapturingTLSProxy`, in front
/// of `queuesim serve`), every platform's enqueue, queue-page and protected-API requests
/// negotiate h2, and their HEADERS frames carry the stack's pseudo-header order and lowercase
/// names without connection-specific fields; with `client.http: h1` every request is HTTP/1.1.
@Suite("queuesim run through a capturing TLS proxy", .serialized, .timeLimit(.minutes(3)))
struct CapturingProxyCommandTests {
    static let fixtures = QueueSimProcess.repositoryRoot + "/Tests/QueueSimTests/Fixtures/tls"

    /// The room `queuesim serve` runs: plain HTTP, behind the proxy.
    static let room = """
        version: 1
        name: proxied-room
        target: { customerId: acme, waitingRoomId: launch }
        arrivals: { phases: [ { burst: 1 } ] }
        waitingRoom: { mode: queue, outflow: 6000/min, secretKey: proxy-test-secret }
        """

    /// 8 visitors, half iOS, half Android, in the hybrid flow: the protected API first, the
    /// queue when it says so, the API again with the token. Every host goes to the proxy, whose
    /// certificate (routes-server) names the URLs' hosts, not 127.0.0.1.
    static func scenario(proxyPort: Int, http: String) -> String {
        """
        version: 1
        name: proxied-\(http)
        clock: wall
        target:
          customerId: acme
          waitingRoomId: launch
          endpoint: "https://127.0.0.1:\(proxyPort)"
          caFile: "\(fixtures)/routes-ca.cert.pem"
          protectedApi: "https://api.shop.example/api/protected"
          protectedApiEndpoint: "https://127.0.0.1:\(proxyPort)"
        arrivals: { phases: [ { burst: 8 } ] }
        client: { platform: { ios: 50%, android: 50% }, http: \(http), pollInterval: 200ms, maxWait: 60s }
        visitors: [ { name: shop, flow: protectedApi } ]
        thresholds: [ "passed >= 99%" ]
        """
    }

    enum Kind: String {
        case enqueue, page, api
    }

    enum Platform: String {
        case ios, android
    }

    /// Fields that belong to an HTTP/1.1 connection, never in an h2 HEADERS block (RFC 9113 §8.2.2).
    static let connectionSpecific: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "host",
    ]

    /// A request's kind by its path: nil for the run's own `GET /` reachability check of the room.
    static func kind(_ request: H2StandInRequest) -> Kind? {
        let path = request.path ?? ""
        if path.hasPrefix("/api/protected") { return .api }
        if path.contains("/enqueue") { return .enqueue }
        return path == "/" ? nil : .page
    }

    /// A request's platform by its user agent: CFNetwork's or an iPhone's WebView; OkHttp's or
    /// an Android WebView's.
    static func platform(_ request: H2StandInRequest) -> Platform? {
        let agent = request.headers.first { $0.name.lowercased() == "user-agent" }?.value ?? ""
        if agent.contains("CFNetwork") || agent.contains("iPhone") { return .ios }
        if agent.hasPrefix("okhttp/") || agent.contains("Android") { return .android }
        return nil
    }

    /// Each stack's pseudo-header order (docs/client-core.md, "HTTP/2").
    static func expectedOrder(_ platform: Platform, _ kind: Kind) -> [String] {
        switch (platform, kind) {
        case (.ios, _): [":method", ":scheme", ":path", ":authority"]  // CFNetwork, WKWebView
        case (.android, .page): [":method", ":authority", ":scheme", ":path"]  // Chromium WebView
        case (.android, _): [":method", ":path", ":authority", ":scheme"]  // OkHttp
        }
    }

    /// Serves the room, puts the proxy before it, runs the scenario through it and returns what
    /// the proxy captured and visitors.csv's rows.
    static func capture(http: String) async throws -> (requests: [H2StandInRequest], visitors: [[String]]) {
        let roomFile = try TemporaryScenario(room)
        let server = try ServeProcess(arguments: ["serve", roomFile.path, "--port", "0"])
        defer { server.kill() }
        let roomPort = try server.waitForPort()
        let proxy = try await CapturingTLSProxy.start(
            forwardingTo: roomPort, certificatePath: fixtures + "/routes-server.cert.pem",
            keyPath: fixtures + "/routes-server.key.pem")
        let out = RunCommandProcess.reportDirectory()
        defer { try? FileManager.default.removeItem(atPath: out) }
        let scenario = try TemporaryScenario(scenario(proxyPort: proxy.port, http: http))
        let result = try RunCommandProcess.run(["run", scenario.path, "--out", out, "--quiet"], limit: .seconds(90))
        await proxy.shutdown()
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        let visitors = (try? RunCommandProcess.rows(out, "visitors.csv").rows) ?? []
        return (proxy.requests, visitors)
    }

    @Test("client.http: auto — every platform's enqueue, page and API requests are h2 in their stack's frames")
    func autoIsH2InEachStacksFrames() async throws {
        let (requests, visitors) = try await Self.capture(http: "auto")
        #expect(visitors.count == 8)
        let phones = requests.filter { Self.kind($0) != nil }
        var seen: Set<String> = []
        for request in phones {
            let kind = try #require(Self.kind(request))
            let platform = try #require(Self.platform(request), "no platform in \(request.headers)")
            seen.insert("\(platform.rawValue) \(kind.rawValue)")
            let what = "\(platform) \(kind) \(request.path ?? "")"
            #expect(request.alpn == "h2", "\(what) over \(request.alpn ?? "no ALPN")")
            #expect(request.pseudoHeaderNames == Self.expectedOrder(platform, kind), "\(what)")
            let names = request.headerNames
            #expect(names.allSatisfy { $0 == $0.lowercased() }, "\(what): \(names)")
            #expect(names.allSatisfy { !Self.connectionSpecific.contains($0) }, "\(what): \(names)")
            let host = kind == .api ? "api.shop.example" : "acme.queue-it.net"
            #expect(request.pseudoHeaders[":authority"] == host, "\(what)")
        }
        // Both platforms made every kind of request.
        #expect(
            seen == ["ios enqueue", "ios page", "ios api", "android enqueue", "android page", "android api"],
            "\(seen)")
    }

    @Test("client.http: h1 — every request reaches the proxy as HTTP/1.1")
    func h1IsHTTP1() async throws {
        let (requests, visitors) = try await Self.capture(http: "h1")
        #expect(visitors.count == 8)
        let phones = requests.filter { Self.kind($0) != nil }
        #expect(Set(phones.compactMap(Self.kind)) == [.enqueue, .page, .api])
        #expect(phones.allSatisfy { $0.streamID == 0 && $0.pseudoHeaderNames.isEmpty && $0.alpn != "h2" })
        #expect(requests.allSatisfy { $0.alpn != "h2" })
    }
}
