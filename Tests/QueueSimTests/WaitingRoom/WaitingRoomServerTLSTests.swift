import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL
import QueueClientCore
import Testing

@testable import QueueSim

/// The room over TLS (issue 55, item 2): ALPN picks h2 or HTTP/1.1, every route answers the
/// same over both and over plain HTTP, and the plain listener's bounds hold. Loopback only;
/// every wait is bounded.
@Suite("WaitingRoomServer over TLS", .serialized)
struct WaitingRoomServerTLSTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/tls").path
    static let certificate = fixtures + "/self-signed.cert.pem"
    static let key = fixtures + "/self-signed.key.pem"
    private static let enqueuePath = "/api/mobileapp/queue/acme/spring-launch/enqueue"

    @Test(.timeLimit(.minutes(1)))
    func anH2ClientSpeaksH2AndGetsThePlainRoomsAnswers() async throws {
        let tls = try RoomTLS.load(certificate: Self.certificate, key: Self.key)
        let configuration = RoomFixture.configuration(outflowPerMinute: 0)
        try await Self.withRoom(configuration, tls: nil) { plainPort in
            try await Self.withRoom(configuration, tls: tls) { tlsPort in
                try await Self.withClient { client in
                    // The same requests, in the same order, to two rooms of the same seed.
                    let requests: [(String, HTTPMethod, String?)] = [
                        (Self.enqueuePath, .POST, #"{"userId":"u1"}"#),
                        (Self.enqueuePath, .GET, nil),
                        ("/queue/acme/spring-launch?q=unknown", .GET, nil),
                        ("/api/protected", .GET, nil),
                        ("/nowhere", .GET, nil),
                    ]
                    for (path, method, body) in requests {
                        let plain = try await Self.exchange(
                            client, "http://127.0.0.1:\(plainPort)\(path)", method: method, body: body)
                        let secure = try await Self.exchange(
                            client, "https://127.0.0.1:\(tlsPort)\(path)", method: method, body: body)
                        #expect(plain.version == .http1_1)
                        #expect(secure.version == .http2, "\(method) \(path)")
                        #expect(secure.status == plain.status, "\(method) \(path)")
                        // The protected API's redirect names the URL each call came in on (its
                        // `t`): the same but for the scheme and the port.
                        let secureOrigin = "https%3A%2F%2F127.0.0.1%3A\(tlsPort)"
                        let plainOrigin = "http%3A%2F%2F127.0.0.1%3A\(plainPort)"
                        if path == "/api/protected" {
                            #expect(secure.headers.contains { $0.contains("&t=\(secureOrigin)%2Fapi%2Fprotected") })
                        }
                        let sameOrigin = secure.headers.map {
                            $0.replacingOccurrences(of: secureOrigin, with: plainOrigin)
                        }
                        #expect(sameOrigin == plain.headers, "\(method) \(path)")
                        #expect(secure.body == plain.body, "\(method) \(path)")
                    }
                }
            }
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func aClientOfferingOnlyHTTP11OrNoALPNSpeaksHTTP11() async throws {
        let tls = try RoomTLS.load(certificate: Self.certificate, key: Self.key)
        try await Self.withRoom(RoomFixture.configuration(), tls: tls) { port in
            for offered in [["http/1.1"], []] {
                let (alpn, answer) = try await TLSProbe.exchange(
                    port: port, alpn: offered,
                    request: "GET /nowhere HTTP/1.1\r\nHost: acme.queue-it.net\r\nConnection: close\r\n\r\n")
                #expect(alpn == offered.first, "offered \(offered)")
                #expect(answer.hasPrefix("HTTP/1.1 404 Not Found\r\n"), "offered \(offered): \(answer)")
                #expect(answer.contains("\r\nConnection: close\r\n"), "\(answer)")
            }
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func anH2ConnectionAdvertisesItsStreamAndHeaderBounds() async throws {
        let tls = try RoomTLS.load(certificate: Self.certificate, key: Self.key)
        try await Self.withRoom(RoomFixture.configuration(), tls: tls) { port in
            let settings = try await TLSProbe.serverSettings(port: port)
            #expect(settings[3] == WaitingRoomServer.h2MaxConcurrentStreams)
            #expect(settings[3] == 100)
            #expect(settings[6] == WaitingRoomServer.h2MaxHeaderListSize)
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func aConnectionThatNeverFinishesItsHandshakeIsClosedAtTheIdleTimeout() async throws {
        let tls = try RoomTLS.load(certificate: Self.certificate, key: Self.key)
        try await Self.withRoom(RoomFixture.configuration(), tls: tls, idleTimeout: .milliseconds(300)) { port in
            let started = ContinuousClock.now
            let closed = try await TLSProbe.silentConnection(port: port, limit: .seconds(10))
            #expect(closed, "the server kept a silent connection open for 10 s")
            #expect(ContinuousClock.now - started < .seconds(5))
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func aResetFaultOverH2ResetsTheStreamAndTheConnectionServesTheNext() async throws {
        let tls = try RoomTLS.load(certificate: Self.certificate, key: Self.key)
        let reset = FaultRule(from: .zero, to: .seconds(3600), endpoint: .protectedApi, effect: .reset)
        try await Self.withRoom(RoomFixture.configuration(faults: [reset]), tls: tls) { port in
            try await Self.withClient { client in
                await #expect(throws: (any Error).self) {
                    _ = try await Self.exchange(client, "https://localhost:\(port)/api/protected", method: .GET)
                }
                // The same client's next request on h2 still gets an answer.
                let next = try await Self.exchange(client, "https://localhost:\(port)/nowhere", method: .GET)
                #expect(next.version == .http2)
                #expect(next.status == 404)
            }
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func aStopResetsAHeldH2RequestAtOnceAndEndsTheServer() async throws {
        let tls = try RoomTLS.load(certificate: Self.certificate, key: Self.key)
        let held = FaultRule(from: .zero, to: .seconds(3600), endpoint: .protectedApi, effect: .timeout)
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let server = WaitingRoomServer(
            configuration: RoomFixture.configuration(faults: [held]), logger: Logger(label: "room-tls-test"),
            tls: tls, onServerRunning: { continuation.yield($0) })
        let serverTask = Task { try await server.run() }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        try await Self.withClient { client in
            // A first answer, so the held request rides an established h2 connection.
            let first = try await Self.exchange(client, "https://127.0.0.1:\(port)/nowhere", method: .GET)
            #expect(first.version == .http2)
            let stopper = Task {
                try await Task.sleep(for: .milliseconds(300))
                serverTask.cancel()
            }
            let started = ContinuousClock.now
            await #expect(throws: (any Error).self) {
                _ = try await Self.exchange(client, "https://127.0.0.1:\(port)/api/protected", method: .GET)
            }
            // Reset when the stop reached its stream, not after the 5 s grace or the 60 s hold.
            #expect(ContinuousClock.now - started < .seconds(3))
            _ = await stopper.result
        }
        _ = await serverTask.result
    }

    @Test func aPairThatCannotBeServedIsRefusedWithThePathInTheMessage() throws {
        let missing = Self.fixtures + "/no-such.pem"
        #expect(throws: RoomTLSError("\(missing): no such certificate file")) {
            try RoomTLS.load(certificate: missing, key: Self.key)
        }
        #expect(throws: RoomTLSError("\(missing): no such private key file")) {
            try RoomTLS.load(certificate: Self.certificate, key: missing)
        }
        #expect(throws: RoomTLSError("\(Self.key): not a PEM certificate (-----BEGIN CERTIFICATE-----)")) {
            try RoomTLS.load(certificate: Self.key, key: Self.key)
        }
        let otherKey = Self.fixtures + "/private-ca-server.key.pem"
        #expect(throws: RoomTLSError("\(otherKey) is not the private key of \(Self.certificate)'s certificate")) {
            try RoomTLS.load(certificate: Self.certificate, key: otherKey)
        }
        #expect(throws: RoomTLSError("\(Self.fixtures): cannot read the certificate file")) {
            try RoomTLS.load(certificate: Self.fixtures, key: Self.key)
        }
    }

    // MARK: - Support

    struct Answer: Equatable {
        var version: HTTPVersion
        var status: Int
        /// Lowercased names, in order, as the client read them.
        var headers: [String]
        var body: String
    }

    static func exchange(
        _ client: HTTPClient, _ url: String, method: HTTPMethod, body: String? = nil
    ) async throws -> Answer {
        var request = HTTPClientRequest(url: url)
        request.method = method
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: body))
        }
        let response = try await client.execute(request, timeout: .seconds(5))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        return Answer(
            version: response.version, status: Int(response.status.code),
            headers: response.headers.map { "\($0.name.lowercased()): \($0.value)" },
            body: String(buffer: bytes))
    }

    /// A client that trusts the fixture's certificate, follows no redirect and offers h2.
    static func withClient(_ body: (HTTPClient) async throws -> Void) async throws {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(certificate))
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls, redirectConfiguration: .disallow)
        configuration.httpVersion = .automatic
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        do {
            try await body(client)
        } catch {
            try await client.shutdown()
            throw error
        }
        try await client.shutdown()
    }

    /// The room on 127.0.0.1:0, plain or over TLS, for the length of `body`.
    static func withRoom(
        _ configuration: WaitingRoomConfiguration, tls: RoomTLS?,
        idleTimeout: Duration = WaitingRoomServer.defaultIdleTimeout, _ body: (Int) async throws -> Void
    ) async throws {
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let server = WaitingRoomServer(
            configuration: configuration, logger: Logger(label: "room-tls-test"), idleTimeout: idleTimeout, tls: tls,
            onServerRunning: { continuation.yield($0) })
        let serverTask = Task {
            defer { continuation.finish() }
            try await server.run()
        }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        do {
            try await body(port)
        } catch {
            serverTask.cancel()
            throw error
        }
        serverTask.cancel()
        _ = await serverTask.result
    }
}
