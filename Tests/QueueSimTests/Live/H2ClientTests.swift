import HTTPTypes
import QueueClientCore
import StandInServers
import Synchronization
import Testing

@testable import QueueSim

/// The live engine's HTTP/2 client (issue 55, item 1) against a loopback TLS h2 server that
/// records the frames: each phone stack's ALPN, pseudo-header order, header names, SETTINGS
/// and connection window; one connection per visitor carrying its requests on streams 1, 3,
/// 5; HTTP/1.1 when h2 is not agreed.
@Suite("HTTP/2 client: frames per stack", .serialized, .timeLimit(.minutes(1)))
struct H2ClientTests {
    typealias Setting = H2StandInConnection.Setting

    /// One request of a stack, what it must look like on an h2 connection.
    struct Case {
        var name: String
        var request: OutgoingRequest
        var pseudo: [String]
        var headers: [String]
        var settings: [Setting]
        var window: Int
    }

    static let okHttp = (
        pseudo: [":method", ":path", ":authority", ":scheme"], settings: [Setting(identifier: 4, value: 16_777_216)],
        window: 16_711_681
    )
    static let chromium = (
        pseudo: [":method", ":authority", ":scheme", ":path"],
        settings: [
            Setting(identifier: 1, value: 65_536), Setting(identifier: 2, value: 0),
            Setting(identifier: 4, value: 6_291_456), Setting(identifier: 6, value: 262_144),
        ],
        window: 15_663_105
    )
    static let cfNetwork = (
        pseudo: [":method", ":scheme", ":path", ":authority"],
        settings: [
            Setting(identifier: 2, value: 0), Setting(identifier: 4, value: 2_097_152),
            Setting(identifier: 3, value: 100), Setting(identifier: 5, value: 16_384),
            // SETTINGS_NO_RFC7540_PRIORITIES (9): the stand-in names identifiers it does not know -1.
            Setting(identifier: -1, value: 1),
        ],
        window: 10_485_760
    )

    static func cases() throws -> [Case] {
        let android = PlatformRequestBytesTests.configuration(.android, userId: "0123456789abcdef")
        let ios = PlatformRequestBytesTests.configuration(.ios, userId: "6F9619FF-8B86-D011-B42D-00C04FC964FF")
        return [
            Case(
                name: "Android enqueue (OkHttp)",
                request: EnqueueRequest.make(android.enqueueParameters, sharedHead: android.sharedEnqueueHead),
                pseudo: okHttp.pseudo,
                headers: ["user-agent", "content-type", "content-length", "accept-encoding"],
                settings: okHttp.settings, window: okHttp.window),
            Case(
                name: "Android API call (OkHttp)", request: try ProtectedApiHeadTests.firstCall(.android),
                pseudo: okHttp.pseudo, headers: ["x-queueit-ajaxpageurl", "accept-encoding", "user-agent"],
                settings: okHttp.settings, window: okHttp.window),
            Case(
                name: "Android API call with the app's user agent (OkHttp)",
                request: try ProtectedApiHeadTests.firstCall(.android, apiUserAgent: "shop/7 (Android)"),
                pseudo: okHttp.pseudo, headers: ["user-agent", "x-queueit-ajaxpageurl", "accept-encoding"],
                settings: okHttp.settings, window: okHttp.window),
            Case(
                name: "Android page load (Chromium WebView)",
                request: try PlatformRequestBytesTests.firstPageLoad(.android), pseudo: chromium.pseudo,
                headers: [
                    "sec-ch-ua", "sec-ch-ua-mobile", "sec-ch-ua-platform", "upgrade-insecure-requests", "user-agent",
                    "accept", "x-requested-with", "sec-fetch-site", "sec-fetch-mode", "sec-fetch-dest",
                    "accept-encoding", "accept-language", "cookie",
                ],
                settings: chromium.settings, window: chromium.window),
            Case(
                name: "iOS enqueue (CFNetwork)",
                request: EnqueueRequest.make(ios.enqueueParameters, sharedHead: ios.sharedEnqueueHead),
                pseudo: cfNetwork.pseudo,
                headers: [
                    "content-type", "accept", "user-agent", "content-length", "accept-language", "accept-encoding",
                ],
                settings: cfNetwork.settings, window: cfNetwork.window),
            Case(
                name: "iOS page load (WKWebView)", request: try PlatformRequestBytesTests.firstPageLoad(.ios),
                pseudo: cfNetwork.pseudo,
                headers: [
                    "accept", "sec-fetch-site", "cookie", "sec-fetch-dest", "accept-language", "sec-fetch-mode",
                    "user-agent", "accept-encoding",
                ],
                settings: cfNetwork.settings, window: cfNetwork.window),
            Case(
                name: "iOS API call (URLSession)", request: try ProtectedApiHeadTests.firstCall(.ios),
                pseudo: cfNetwork.pseudo,
                headers: [
                    "x-queueit-ajaxpageurl", "accept", "user-agent", "accept-language", "accept-encoding",
                ],
                settings: cfNetwork.settings, window: cfNetwork.window),
        ]
    }

    @Test("every platform's enqueue, page load and API call go as h2 with its stack's order, SETTINGS and window")
    func stacks() async throws {
        for item in try Self.cases() {
            try await H2StandInServer.with { server in
                let completions = try await H2ClientFixture.send([item.request], to: server)
                #expect(completions.count == 1)
                let status = try completions.first.map { try $0.result.get().status.code }
                #expect(status == 200, "\(item.name)")
                #expect(completions.first?.handshake?.applicationProtocol == "h2", "\(item.name)")
                let request = try #require(server.requests.first, "\(item.name)")
                #expect(request.alpn == "h2", "\(item.name)")
                #expect(request.streamID == 1, "\(item.name)")
                #expect(request.pseudoHeaderNames == item.pseudo, "\(item.name)")
                #expect(request.headerNames == item.headers, "\(item.name)")
                #expect(request.headerNames.allSatisfy { $0 == $0.lowercased() }, "\(item.name)")
                #expect(request.pseudoHeaders[":authority"] == item.request.head.authority, "\(item.name)")
                #expect(request.body == (item.request.body ?? []), "\(item.name)")
                let connection = try #require(server.connections.first)
                #expect(connection.settings == item.settings, "\(item.name)")
                #expect(connection.windowUpdates.first == .init(streamID: 0, increment: item.window), "\(item.name)")
            }
        }
    }

    @Test("a visitor's requests in turn share its one h2 connection, on streams 1, 3 and 5")
    func sequentialStreams() async throws {
        try await H2StandInServer.with { server in
            let requests = ["/a", "/b", "/c"].map(H2ClientFixture.get)
            let completions = try await H2ClientFixture.send(requests, to: server)
            #expect(try completions.map { try $0.result.get().status.code } == [200, 200, 200])
            #expect(
                try completions.map { String(decoding: try $0.result.get().body, as: UTF8.self) } == ["ok", "ok", "ok"])
            #expect(server.requests.map(\.streamID) == [1, 3, 5])
            #expect(server.requests.map(\.path) == ["/a", "/b", "/c"])
            #expect(server.connections.count == 1)
            #expect(server.connections.first?.streams == 3)
            // The handshake belongs to the request that opened the connection.
            #expect(completions.map { $0.handshake?.applicationProtocol } == ["h2", nil, nil])
        }
    }

    @Test("an answer larger than the stack's stream window arrives whole: the windows are topped up")
    func largeAnswer() async throws {
        var options = H2StandInServer.Options()
        let body = (0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        options.respond = { _ in H2StandInResponse(status: 200, body: body) }
        try await H2StandInServer.with(options) { server in
            // CFNetwork's stream window is 2 MiB and its connection window 10 MiB and a bit.
            let completions = try await H2ClientFixture.send([H2ClientFixture.get("/big")], to: server)
            let answer = try #require(try completions.first?.result.get())
            #expect(answer.body.count == body.count)
            #expect(answer.body == body)
            let updates = server.connections.first?.windowUpdates ?? []
            #expect(updates.contains { $0.streamID == 1 }, "the stream's window was topped up: \(updates)")
        }
    }

    @Test("without h2 offered (client.http: h1) the connection speaks HTTP/1.1, no ALPN")
    func http1WhenNotOffered() async throws {
        try await H2StandInServer.with { server in
            let completions = try await H2ClientFixture.send(
                ["/a", "/b"].map(H2ClientFixture.get), to: server, offering: [])
            #expect(try completions.map { try $0.result.get().status.code } == [200, 200])
            #expect(server.requests.map(\.alpn) == [nil, nil])
            #expect(server.requests.map(\.streamID) == [0, 0])
            #expect(server.connections.count == 1, "HTTP/1.1 keep-alive")
            #expect(completions.first?.handshake?.tls != nil)
            #expect(completions.first?.handshake?.applicationProtocol == nil)
        }
    }

    @Test("a server that picks http/1.1 is spoken HTTP/1.1 on the same connection")
    func http1WhenServerPicksIt() async throws {
        var options = H2StandInServer.Options()
        options.applicationProtocols = ["http/1.1"]
        try await H2StandInServer.with(options) { server in
            let completions = try await H2ClientFixture.send([H2ClientFixture.get("/a")], to: server)
            #expect(try completions.first?.result.get().status.code == 200)
            #expect(server.requests.first?.alpn == "http/1.1")
            #expect(completions.first?.handshake?.applicationProtocol == "http/1.1")
        }
    }

    @Test("client.http: h2 against a server that does not agree to h2 fails the request in words")
    func h2Required() async throws {
        var options = H2StandInServer.Options()
        options.applicationProtocols = ["http/1.1"]
        try await H2StandInServer.with(options) { server in
            let completions = try await H2ClientFixture.send(
                [H2ClientFixture.get("/a")], to: server, offering: ["h2"], requiresH2: true)
            guard case .failure(let error) = completions.first?.result else {
                Issue.record("expected a failure, got \(String(describing: completions.first))")
                return
            }
            #expect(error.description.contains("did not agree to HTTP/2"), "\(error)")
            #expect(server.requests.isEmpty)
        }
    }
}

@Suite("HTTP/2 client: what each endpoint spoke", .serialized, .timeLimit(.minutes(1)))
struct H2ProtocolTallyTests {
    @Test("connections are counted by the protocol they spoke, with their requests per connection")
    func tally() async throws {
        try await H2StandInServer.with { server in
            let tally = ConnectionProtocolTally()
            _ = try await H2ClientFixture.send(["/a", "/b", "/c"].map(H2ClientFixture.get), to: server, tally: tally)
            _ = try await H2ClientFixture.send(
                ["/d", "/e"].map(H2ClientFixture.get), to: server, offering: [], tally: tally)
            let origin = "https://localhost:\(server.port)"
            #expect(
                tally.figures(origins: [origin]) == [
                    EndpointProtocolFigures(
                        endpoint: origin, connections: ["h2": 1, "http/1.1": 1], streamsPerConnectionMean: 2.5,
                        streamsPerConnectionMax: 3)
                ])
            #expect(
                tally.figures(origins: [origin])?.first?.summary
                    == "\(origin): h2 on 1 connection, http/1.1 on 1 connection; 2.5 requests per connection (at most 3 on one connection)"
            )
        }
    }

    /// A run reads the tally once its loops have closed their pools, while TLS connections are
    /// still exchanging close_notify: each is counted when it is closed, not only when it ends
    /// (issue 55: 60 of the bench's 2,145 connections were missing).
    @Test("connections still open when the pool closes them are counted, h2 and http/1.1 alike")
    func openAtTheEnd() async throws {
        try await H2StandInServer.with { server in
            let tally = ConnectionProtocolTally()
            let origin = "https://localhost:\(server.port)"
            let read = Mutex<[[EndpointProtocolFigures]?]>([])
            let readAtClose: @Sendable () -> Void = {
                let figures = tally.figures(origins: [origin])
                read.withLock { $0.append(figures) }
            }
            _ = try await H2ClientFixture.send(
                ["/a", "/b", "/c"].map(H2ClientFixture.get), to: server, tally: tally, atClose: readAtClose)
            _ = try await H2ClientFixture.send(
                ["/d", "/e"].map(H2ClientFixture.get), to: server, offering: [], tally: tally, atClose: readAtClose)
            #expect(
                read.withLock { $0 } == [
                    [
                        EndpointProtocolFigures(
                            endpoint: origin, connections: ["h2": 1], streamsPerConnectionMean: 3,
                            streamsPerConnectionMax: 3)
                    ],
                    [
                        EndpointProtocolFigures(
                            endpoint: origin, connections: ["h2": 1, "http/1.1": 1], streamsPerConnectionMean: 2.5,
                            streamsPerConnectionMax: 3)
                    ],
                ])
            #expect(
                tally.figures(origins: [origin])?.first?.connections == ["h2": 1, "http/1.1": 1],
                "counted once, not again when the connection ends")
        }
    }

    @Test("a run whose connections were all plain HTTP has nothing to say")
    func nothingCounted() {
        #expect(ConnectionProtocolTally().figures(origins: ["http://127.0.0.1:8080"]) == nil)
    }
}
