import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL
import StandInServers
import Testing

/// The h2 stand-in records what a client put on the wire (issue 55, item 4): AsyncHTTPClient,
/// which offers h2, is the client whose frames it must read back.
@Suite("H2StandInServer", .serialized)
struct H2StandInServerTests {
    @Test(.timeLimit(.minutes(1)))
    func recordsALPNPseudoHeaderOrderHeaderNamesSettingsAndStreams() async throws {
        var options = H2StandInServer.Options()
        options.respond = { request in
            H2StandInResponse(status: 201, headers: [.init(name: "x-seen", value: request.path ?? "")], body: [1, 2])
        }
        try await H2StandInServer.with(options) { server in
            try await Self.withClient { client in
                for path in ["/first", "/second?x=1"] {
                    var request = HTTPClientRequest(url: "https://localhost:\(server.port)\(path)")
                    request.method = .POST
                    request.headers.add(name: "X-Custom-One", value: "a")
                    request.headers.add(name: "accept", value: "*/*")
                    request.body = .bytes(ByteBuffer(string: "hello"))
                    let response = try await client.execute(request, timeout: .seconds(5))
                    #expect(response.version == .http2)
                    #expect(response.status.code == 201)
                    #expect(response.headers.first(name: "x-seen") == path)
                    #expect(Array(try await response.body.collect(upTo: 1024).readableBytesView) == [1, 2])
                }
            }
            let requests = server.requests
            try #require(requests.count == 2)
            for (index, request) in requests.enumerated() {
                #expect(request.number == index + 1)
                #expect(request.alpn == "h2")
                #expect(request.connection == 0)
                // NIOHTTP2's HTTP/1 → h2 codec (AsyncHTTPClient's) writes this order.
                #expect(request.pseudoHeaderNames == [":path", ":method", ":scheme", ":authority"])
                #expect(request.pseudoHeaders[":authority"] == "localhost:\(server.port)")
                #expect(request.pseudoHeaders[":scheme"] == "https")
                #expect(request.method == "POST")
                // Regular names in the order the client wrote them, lowercased by h2's codec.
                let custom = request.headerNames.filter { $0 == "x-custom-one" || $0 == "accept" }
                #expect(custom == ["x-custom-one", "accept"], "\(request.headerNames)")
                #expect(!request.headerNames.contains("host"))
                #expect(String(decoding: request.body, as: UTF8.self) == "hello")
                #expect(!request.refused)
            }
            #expect(requests.map(\.path) == ["/first", "/second?x=1"])
            #expect(requests.map(\.streamID) == [1, 3])
            let connection = try #require(server.connections.first)
            #expect(server.connections.count == 1)
            #expect(connection.alpn == "h2")
            #expect(connection.streams == 2)
            #expect(!connection.sentGoAway)
            // AsyncHTTPClient's SETTINGS: NIOHTTP2's defaults (100 streams, 16 KiB header list).
            #expect(connection.settings.contains(.init(identifier: 3, value: 100)), "\(connection.settings)")
            #expect(connection.settings.contains(.init(identifier: 6, value: 16384)), "\(connection.settings)")
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func goAwayAfterAStreamSendsTheNextRequestToANewConnection() async throws {
        var options = H2StandInServer.Options()
        options.goAwayAfterStreams = 1
        try await H2StandInServer.with(options) { server in
            try await Self.withClient { client in
                for _ in 0..<2 {
                    let response = try await client.execute(
                        HTTPClientRequest(url: "https://localhost:\(server.port)/"), timeout: .seconds(5))
                    #expect(response.status == .ok)
                    _ = try await response.body.collect(upTo: 1024)
                }
            }
            #expect(server.requests.map(\.connection) == [0, 1])
            #expect(server.requests.map(\.streamID) == [1, 1])
            #expect(server.connections.map(\.sentGoAway) == [true, true])
            #expect(server.connections.map(\.streams) == [1, 1])
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func aRefusedStreamIsRecordedAndAnsweredWithRefusedStream() async throws {
        var options = H2StandInServer.Options()
        options.refusedRequests = [1]
        try await H2StandInServer.with(options) { server in
            try await Self.withClient { client in
                do {
                    let refused = try await client.execute(
                        HTTPClientRequest(url: "https://localhost:\(server.port)/a"), timeout: .seconds(5))
                    // AsyncHTTPClient does not re-send a refused stream: the request fails.
                    Issue.record("a refused stream was answered \(refused.status)")
                } catch {}
                let second = try await client.execute(
                    HTTPClientRequest(url: "https://localhost:\(server.port)/b"), timeout: .seconds(5))
                #expect(second.status == .ok)
                _ = try await second.body.collect(upTo: 1024)
            }
            #expect(server.requests.map(\.refused) == [true, false])
            #expect(server.requests.map(\.path) == ["/a", "/b"])
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func aClientOfferingOnlyHTTP11IsRecordedOverHTTP11() async throws {
        try await H2StandInServer.with { server in
            try await Self.withClient(httpVersion: .http1Only) { client in
                var request = HTTPClientRequest(url: "https://localhost:\(server.port)/one")
                request.headers.add(name: "X-Custom-One", value: "a")
                let response = try await client.execute(request, timeout: .seconds(5))
                #expect(response.version == .http1_1)
                #expect(response.status == .ok)
                _ = try await response.body.collect(upTo: 1024)
            }
            let request = try #require(server.requests.first)
            #expect(request.alpn == "http/1.1")
            #expect(request.streamID == 0)
            #expect(request.pseudoHeaderNames.isEmpty)
            #expect(request.method == "GET")
            #expect(request.path == "/one")
            // HTTP/1.1 names keep the client's case.
            #expect(request.headerNames.contains("X-Custom-One"), "\(request.headerNames)")
        }
    }

    static func withClient(
        httpVersion: HTTPClient.Configuration.HTTPVersion = .automatic, _ body: (HTTPClient) async throws -> Void
    ) async throws {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(H2StandInServer.fixtureCertificatePath))
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls, redirectConfiguration: .disallow)
        configuration.httpVersion = httpVersion
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        do {
            try await body(client)
        } catch {
            try await client.shutdown()
            throw error
        }
        try await client.shutdown()
    }
}
