import CNIOBoringSSL
import Foundation
import NIOSSL
import StandInServers
import Synchronization
import Testing

@testable import QueueSim

/// TLS sessions as each phone resumes them (issue 55, item 6), on loopback wall-clock runs
/// against a TLS stand-in (BoringSSL through swift-nio-ssl, which issues TLS 1.3 tickets)
/// that ends every h2 connection after one stream (GOAWAY), so each request is a new
/// connection: an iOS device's second enqueue attempt resumes its first's session (the
/// app's cache), its WKWebView's page load does not (another process's cache); an Android
/// visitor never resumes (a new `OkHttpClient` per attempt); two iOS devices never share a
/// session. Read from run.json's `generator.tls_handshakes`, which counts BoringSSL's
/// `SSL_session_reused` (`ResumingTLSClientHandler`, on swift-nio-ssl's CNIOBoringSSL: these
/// tests are the ones to re-run on an upgrade of swift-nio-ssl).
@Suite("TLS sessions resumed per device", .serialized, .timeLimit(.minutes(1)))
struct TLSResumptionTests {
    static let fixtures = HostRoutingRunTests.fixtures

    /// `room()`, its enqueue answers sending visitors to `address` instead of `queuePage`.
    static func room(queuePage: String, at address: String) -> H2StandInServer.Options {
        var room = room()
        let answer = room.respond
        room.respond = { request in
            var response = answer(request)
            if request.method == "POST" {
                response.body = Array(
                    String(decoding: response.body, as: UTF8.self).replacingOccurrences(
                        of: queuePage, with: address
                    ).utf8)
            }
            return response
        }
        return room
    }

    /// A room whose queue page is on its own host, one stream per connection. `failFirst`:
    /// every odd POST is answered 503, so a visitor arriving alone makes a second attempt.
    static func room(failFirst: Bool = false) -> H2StandInServer.Options {
        let posts = Mutex(0)
        var options = H2StandInServer.Options()
        options.goAwayAfterStreams = 1
        options.certificatePath = fixtures + "/routes-server.cert.pem"
        options.keyPath = fixtures + "/routes-server.key.pem"
        options.respond = { request in
            guard request.method == "POST" else {
                return H2StandInResponse(
                    status: 302,
                    headers: [
                        .init(
                            name: "location",
                            value: "\(HostRoutingRunTests.targetURL)?queueittoken="
                                + HostRoutingRunTests.token(queueId: "q1"))
                    ])
            }
            let number = posts.withLock { count in
                count += 1
                return count
            }
            if failFirst, number % 2 == 1 { return H2StandInResponse(status: 503) }
            let body = """
                {"QueueId":"q1","QueueUrl":"https://acme.queue-it.net/queue/acme/launch?q=q1",\
                "QueueUrlTTLInMinutes":30,"EventTargetUrl":"\(HostRoutingRunTests.targetURL)","QueueitToken":null}
                """
            return H2StandInResponse(
                status: 200, headers: [.init(name: "content-type", value: "application/json")],
                body: Array(body.utf8))
        }
        return options
    }

    static func scenario(port: Int, platform: String, arrivals: String) -> String {
        """
        version: 1
        name: resumption-\(platform)
        target:
          customerId: acme
          waitingRoomId: launch
          endpoint: "https://127.0.0.1:\(port)"
          caFile: "\(fixtures)/routes-ca.cert.pem"
        client: { platform: \(platform), pollInterval: 200ms, maxWait: 20s }
        arrivals: { phases: [ \(arrivals) ] }
        """
    }

    static func handshakes(_ reports: RunReports) -> [String: [String: Int]] {
        let generator = reports.manifest["generator"] as? [String: Any] ?? [:]
        return generator["tls_handshakes"] as? [String: [String: Int]] ?? [:]
    }

    @Test("an iOS device's second enqueue attempt resumes its first's session; its WKWebView's page load does not")
    func iOSResumes() async throws {
        try await H2StandInServer.with(Self.room(failFirst: true)) { server in
            let reports = try await RunFixture.wall(
                Self.scenario(port: server.port, platform: "ios", arrivals: "{ burst: 1 }"))
            #expect(reports.outcomes == ["passed": 1], "\(reports.visitors.rows)")
            // Two enqueue attempts and the page load, each on a connection of its own.
            let visitorRequests = server.requests.filter { $0.path != "/" }
            #expect(visitorRequests.filter { $0.method == "POST" }.count == 2)
            #expect(Set(visitorRequests.map(\.connection)).count == 3)
            #expect(Self.handshakes(reports) == ["ios": ["full": 2, "resumed": 1]])
            let html = try String(contentsOfFile: reports.directory + "/report.html", encoding: .utf8)
            #expect(html.contains("<li>TLS handshakes: ios 1 resumed of 3</li>"))
        }
    }

    @Test("an Android visitor resumes nothing: a second enqueue attempt and its page load are full handshakes")
    func androidDoesNotResume() async throws {
        try await H2StandInServer.with(Self.room(failFirst: true)) { server in
            let reports = try await RunFixture.wall(
                Self.scenario(port: server.port, platform: "android", arrivals: "{ burst: 1 }"))
            #expect(reports.outcomes == ["passed": 1], "\(reports.visitors.rows)")
            let posts = server.requests.filter { $0.method == "POST" }
            #expect(posts.count == 2)
            #expect(Self.handshakes(reports) == ["android": ["full": 3, "resumed": 0]])
        }
    }

    @Test("two iOS devices one after the other never share a session: each resumes only its own")
    func devicesDoNotShare() async throws {
        try await H2StandInServer.with(Self.room(failFirst: true)) { server in
            // The second arrives after the first has passed: a shared cache would resume
            // its first attempt and its page load too.
            let reports = try await RunFixture.wall(
                Self.scenario(
                    port: server.port, platform: "ios", arrivals: "{ burst: 1 }, { pause: 1s }, { burst: 1 }"))
            #expect(reports.outcomes == ["passed": 2], "\(reports.visitors.rows)")
            #expect(Self.handshakes(reports) == ["ios": ["full": 4, "resumed": 2]])
        }
    }

    /// The page is on a host met mid-run (`localhost`): no check before the run touches it,
    /// so its certificate is first refused by a visitor's own connection.
    @Test("a queue page whose certificate is untrusted ends the visitor SslError on the resuming client too")
    func untrustedPageIsSslError() async throws {
        var page = H2StandInServer.Options()
        page.certificatePath = Self.fixtures + "/self-signed.cert.pem"
        page.keyPath = Self.fixtures + "/self-signed.key.pem"
        for platform in ["ios", "android"] {
            try await H2StandInServer.with(page) { page in
                let room = Self.room(queuePage: "acme.queue-it.net/queue", at: "localhost:\(page.port)/queue")
                try await H2StandInServer.with(room) { server in
                    let reports = try await RunFixture.wall(
                        Self.scenario(port: server.port, platform: platform, arrivals: "{ burst: 1 }"))
                    let row = try #require(reports.visitors.rows.first)
                    #expect(row["outcome"] == "error", "\(platform): \(row)")
                    #expect(
                        row["error"]?.contains("SslError: the server's certificate could not be verified") == true,
                        "\(platform): \(row)")
                    #expect(page.requests.isEmpty)
                    #expect(Self.handshakes(reports)[platform]?["full"] == 1)
                }
            }
        }
    }

    /// issue 55's outage rehearsal on the wall clock: the queue page's first two loads are
    /// dropped (the TCP connection closed with no answer: over https, no close_notify). An
    /// iOS visitor's loads go through the resuming client, an Android visitor's through
    /// `NIOSSLClientHandler`; each platform must end as it does over plain http, never `SslError`.
    @Test("a queue page dropped without close_notify ends each platform as over http, never SslError")
    func uncleanCloseAsOverHTTP() async throws {
        let folder = try RunFixture.makeFolder(#function)
        let caFile = folder + "/cas.pem"
        let cas =
            try String(contentsOfFile: Self.fixtures + "/routes-ca.cert.pem", encoding: .utf8)
            + String(contentsOfFile: Self.fixtures + "/private-ca.cert.pem", encoding: .utf8)
        try cas.write(toFile: caFile, atomically: true, encoding: .utf8)
        let pageTLS = try NIOSSLContext(
            configuration: .makeServerConfiguration(
                certificateChain: try NIOSSLCertificate.fromPEMFile(Self.fixtures + "/private-ca-server.cert.pem")
                    .map { .certificate($0) },
                privateKey: .privateKey(
                    try NIOSSLPrivateKey(file: Self.fixtures + "/private-ca-server.key.pem", format: .pem))))
        let pass = RawHTTPServer.answer(
            status: "302 Found",
            headers: [
                "Location: \(HostRoutingRunTests.targetURL)?queueittoken=\(HostRoutingRunTests.token(queueId: "q1"))"
            ],
            body: "")
        for platform in ["android", "ios"] {
            var ends: [String: String] = [:]
            for (scheme, tls) in [("http", nil), ("https", pageTLS)] {
                let reply: @Sendable (Int) -> RawHTTPServer.Reply = { $0 < 2 ? .drop : .bytes(pass) }
                try await RawHTTPServer.with(tls: tls, reply: reply) { page in
                    let room = Self.room(
                        queuePage: "https://acme.queue-it.net/queue", at: "\(scheme)://localhost:\(page.port)/queue"
                    )
                    try await H2StandInServer.with(room) { server in
                        let reports = try await RunFixture.wall(
                            Self.scenario(port: server.port, platform: platform, arrivals: "{ burst: 1 }")
                                .replacingOccurrences(of: "\(Self.fixtures)/routes-ca.cert.pem", with: caFile))
                        let row = try #require(reports.visitors.rows.first)
                        #expect(row["error"]?.contains("SslError") != true, "\(platform) \(scheme): \(row)")
                        ends[scheme] = "\(row["outcome"] ?? "") \(row["error"] ?? "")"
                    }
                }
            }
            #expect(ends["https"] == ends["http"], "\(platform): \(ends)")
            if platform == "android" {
                #expect(ends["https"] == "passed ", "Android reloads and passes")
            } else {
                #expect(ends["https"]?.hasPrefix("error the queue page failed to load: connection reset") == true)
            }
        }
    }

    @Test("a device's sessions: one per cache and endpoint, the newest kept, all freed when its visitor ends")
    func store() throws {
        let store = TLSSessionStore()
        // BoringSSL makes a blank session from a context (its X.509 methods).
        let context = try #require(SSL_CTX_new(TLS_method()))
        defer { SSL_CTX_free(context) }
        let sessions = (0..<5).map { _ in SSL_SESSION_new(context)! }
        store.keep(sessions[0], device: 1, endpoint: 0)
        store.keep(sessions[1], device: 1, endpoint: 0)
        store.keep(sessions[2], device: 1, endpoint: 3)
        store.keep(sessions[3], device: 2, endpoint: 0)
        store.keep(sessions[4], device: 1, cache: 1, endpoint: 0)
        #expect(store.count == 4)
        #expect(store.session(device: 1, endpoint: 0) == sessions[1])
        #expect(store.session(device: 1, cache: 1, endpoint: 0) == sessions[4])
        #expect(store.session(device: 2, endpoint: 0) == sessions[3])
        #expect(store.session(device: 2, endpoint: 3) == nil)
        store.forget(device: 1)
        #expect(store.count == 1)
        #expect(store.session(device: 1, endpoint: 3) == nil)
        #expect(store.session(device: 1, cache: 1, endpoint: 0) == nil)
    }
}
