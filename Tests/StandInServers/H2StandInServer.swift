import Foundation
import NIOCore
import NIOHPACK
import NIOHTTP2
import NIOPosix
import NIOSSL
import NIOTLS
import Synchronization

/// A loopback TLS server that speaks h2 (or HTTP/1.1, by ALPN) and records what a client put
/// on the wire, for tests of an HTTP/2 client (issue 55, item 1: a phone's stack's ALPN,
/// pseudo-header order, SETTINGS, window and re-sends).
///
/// Usage:
/// ```swift
/// let server = try await H2StandInServer.start()          // self-signed 127.0.0.1/localhost
/// defer { Task { await server.shutdown() } }
/// // point the client at https://127.0.0.1:\(server.port), trusting
/// // H2StandInServer.fixtureCertificatePath, then:
/// let request = try #require(server.requests.first)
/// #expect(request.alpn == "h2")
/// #expect(request.pseudoHeaderNames == [":method", ":path", ":authority", ":scheme"])
/// #expect(request.headerNames == ["user-agent", "accept-encoding"])
/// #expect(server.connections[0].settings.contains(.init(identifier: 4, value: 16_777_216)))
/// ```
///
/// What it records:
/// - `requests`, in the order their last frame arrived: the connection (its index in
///   `connections`), the stream id (0 over HTTP/1.1), the ALPN protocol the connection
///   negotiated (nil: the client offered none), the pseudo-header names in the order the
///   HEADERS block carried them (after HPACK decoding, before any HTTP/1 conversion), their
///   values, the regular header names and fields in order, exactly as sent (case kept; h2
///   frames are not validated, so a client's uppercase name or `connection` header shows), the
///   body, and whether it was refused.
/// - `connections`, in accept order: the ALPN protocol, every SETTINGS parameter the client
///   sent (in order, over all its SETTINGS frames, ACKs excluded), every WINDOW_UPDATE (stream
///   0 is the connection's window), the streams the client opened, whether this server
///   sent GOAWAY, and the TLS records the client sent (its handshake's included).
///
/// Knobs (`Options`):
/// - `goAwayAfterStreams`: once that many streams of a connection are answered, send GOAWAY
///   (`NO_ERROR`, last stream id = the highest stream seen); streams the client opened above it
///   are not answered (a client must send them again on a new connection). Over HTTP/1.1 the
///   Nth answer carries `Connection: close` and the connection closes.
/// - `refusedRequests`: request numbers (1-based, over the server's life, in arrival order)
///   answered with RST_STREAM `REFUSED_STREAM` instead of a response (over HTTP/1.1: the
///   connection is closed without an answer). Refused requests are recorded (`refused`).
/// - `resetAnsweredStreams`: after each h2 answer, RST_STREAM `NO_ERROR` on its stream, as
///   nginx does after it answers a POST whose body it has not read (RFC 9113 §8.1 allows it:
///   the client must not treat the answer as failed). Nothing over HTTP/1.1.
/// - `respond`: the answer to every other request (default: 200, `ok`).
/// - `applicationProtocols`: what the server offers in ALPN (default `h2, http/1.1`).
/// - `settings`: the server's own SETTINGS (default: 100 concurrent streams).
package final class H2StandInServer: Sendable {
    /// The self-signed certificate (CN localhost; SAN DNS:localhost, IP:127.0.0.1) a client
    /// must trust, and its key: QueueSimTests' fixtures, found from this file's path.
    package static let fixtureCertificatePath = fixturePath("self-signed.cert.pem")
    package static let fixtureKeyPath = fixturePath("self-signed.key.pem")

    package struct Options: Sendable {
        package var applicationProtocols = ["h2", "http/1.1"]
        package var goAwayAfterStreams: Int?
        package var refusedRequests: Set<Int> = []
        package var resetAnsweredStreams = false
        package var settings: [HTTP2Setting] = [HTTP2Setting(parameter: .maxConcurrentStreams, value: 100)]
        package var respond: @Sendable (H2StandInRequest) -> H2StandInResponse = { _ in
            H2StandInResponse(status: 200, body: Array("ok".utf8))
        }
        /// Bytes written to the TLS stream, past the server's h2 codec, in place of every
        /// stream's answer: a frame that breaks h2's rules, for the client's checks.
        package var rawBytesInsteadOfAnswer: [UInt8]?
        package var certificatePath = H2StandInServer.fixtureCertificatePath
        package var keyPath = H2StandInServer.fixtureKeyPath

        package init() {}
    }

    private let channel: any Channel
    private let log: H2StandInLog
    package let port: Int

    /// Every request received so far (see the type's documentation).
    package var requests: [H2StandInRequest] { log.state.withLock { $0.requests } }
    /// Every connection accepted so far.
    package var connections: [H2StandInConnection] { log.state.withLock { $0.connections } }

    private init(channel: any Channel, log: H2StandInLog) {
        self.channel = channel
        self.log = log
        port = channel.localAddress?.port ?? 0
    }

    /// Listens on 127.0.0.1, a free port.
    package static func start(_ options: Options = Options()) async throws -> H2StandInServer {
        let certificates = try NIOSSLCertificate.fromPEMFile(options.certificatePath)
        let key = try NIOSSLPrivateKey(file: options.keyPath, format: .pem)
        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: certificates.map { .certificate($0) }, privateKey: .privateKey(key))
        tls.applicationProtocols = options.applicationProtocols
        let context = try NIOSSLContext(configuration: tls)
        let log = H2StandInLog()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.backlog, value: 256)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                let index = log.accept()
                do {
                    try channel.pipeline.syncOperations.addHandler(TLSRecordCounter(connection: index, log: log))
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                    try channel.pipeline.syncOperations.addHandler(
                        ApplicationProtocolNegotiationHandler { result, channel in
                            channel.eventLoop.makeCompletedFuture {
                                try Self.configure(
                                    channel, after: result, connection: index, log: log, options: options)
                            }
                        })
                    return channel.eventLoop.makeSucceededVoidFuture()
                } catch {
                    return channel.eventLoop.makeFailedFuture(error)
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        return H2StandInServer(channel: channel, log: log)
    }

    /// Runs `body` with a started server and always closes it.
    package static func with<T>(
        _ options: Options = Options(), _ body: (H2StandInServer) async throws -> T
    ) async throws -> T {
        let server = try await start(options)
        do {
            let value = try await body(server)
            await server.shutdown()
            return value
        } catch {
            await server.shutdown()
            throw error
        }
    }

    package func shutdown() async {
        try? await channel.close()
    }

    private static func configure(
        _ channel: any Channel, after result: ALPNResult, connection: Int, log: H2StandInLog, options: Options
    ) throws {
        let alpn: String? =
            switch result {
            case .negotiated(let name): name
            case .fallback: nil
            }
        log.update(connection) { $0.alpn = alpn }
        let sync = channel.pipeline.syncOperations
        guard alpn == "h2" else {
            try sync.configureHTTPServerPipeline(withErrorHandling: false)
            try sync.addHandler(H1StandInRecorder(connection: connection, alpn: alpn, log: log, options: options))
            return
        }
        var configuration = NIOHTTP2Handler.ConnectionConfiguration()
        configuration.initialSettings = options.settings
        // The client's header block as sent, even where it breaks h2's rules: the tests judge it.
        configuration.headerBlockValidation = .disabled
        configuration.contentLengthValidation = .disabled
        // No multiplexer: every frame of every stream reaches the recorder in wire order.
        try sync.addHandler(NIOHTTP2Handler(mode: .server, connectionConfiguration: configuration))
        try sync.addHandler(H2FrameRecorder(connection: connection, log: log, options: options))
    }

    private static func fixturePath(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("QueueSimTests/Fixtures/tls/\(name)").path
    }
}

/// One request as the stand-in received it.
package struct H2StandInRequest: Sendable, Equatable {
    /// 1-based, over the server's life, in the order requests were complete.
    package var number: Int
    /// The index of its connection in `H2StandInServer.connections`.
    package var connection: Int
    /// Its h2 stream id; 0 over HTTP/1.1.
    package var streamID: Int
    /// The ALPN protocol of its connection ("h2", "http/1.1"; nil: none offered).
    package var alpn: String?
    /// `:method`, `:path`, `:authority`, `:scheme` … in the order the HEADERS block held them
    /// (empty over HTTP/1.1).
    package var pseudoHeaderNames: [String] = []
    package var pseudoHeaders: [String: String] = [:]
    /// The regular fields in order, names as sent.
    package var headers: [Field] = []
    package var body: [UInt8] = []
    /// Answered with RST_STREAM `REFUSED_STREAM` (HTTP/1.1: a close) by `refusedRequests`.
    package var refused = false

    package var headerNames: [String] { headers.map(\.name) }
    /// The method: `:method` over h2, the request line's over HTTP/1.1.
    package var method: String? { pseudoHeaders[":method"] }
    package var path: String? { pseudoHeaders[":path"] }

    package struct Field: Sendable, Equatable {
        package var name: String
        package var value: String

        package init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }
}

/// One connection as the stand-in accepted it.
package struct H2StandInConnection: Sendable, Equatable {
    package var alpn: String?
    /// The client's SETTINGS parameters, in the order sent (identifier as on the wire:
    /// 1 HEADER_TABLE_SIZE, 2 ENABLE_PUSH, 3 MAX_CONCURRENT_STREAMS, 4 INITIAL_WINDOW_SIZE,
    /// 5 MAX_FRAME_SIZE, 6 MAX_HEADER_LIST_SIZE, 8 ENABLE_CONNECT_PROTOCOL; -1 another).
    package var settings: [Setting] = []
    /// Every WINDOW_UPDATE the client sent, in order (stream 0: the connection's window).
    package var windowUpdates: [WindowUpdate] = []
    /// Streams (HTTP/1.1: requests) the client opened on it.
    package var streams = 0
    package var sentGoAway = false
    /// The error code of the GOAWAY the client sent, if it sent one.
    package var receivedGoAway: Int?
    /// TLS records the client sent, its handshake's included.
    package var tlsRecords = 0

    package struct Setting: Sendable, Equatable {
        package var identifier: Int
        package var value: Int

        package init(identifier: Int, value: Int) {
            self.identifier = identifier
            self.value = value
        }
    }

    package struct WindowUpdate: Sendable, Equatable {
        package var streamID: Int
        package var increment: Int

        package init(streamID: Int, increment: Int) {
            self.streamID = streamID
            self.increment = increment
        }
    }
}

/// What the stand-in answers a request with.
package struct H2StandInResponse: Sendable {
    package var status: Int
    /// Sent in this order, after `:status` (h2) or the status line; `content-length` is added.
    package var headers: [H2StandInRequest.Field]
    package var body: [UInt8]

    package init(status: Int, headers: [H2StandInRequest.Field] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// The records, shared by every connection's handlers.
final class H2StandInLog: Sendable {
    struct State {
        var requests: [H2StandInRequest] = []
        var connections: [H2StandInConnection] = []
        var requestCount = 0
    }

    let state = Mutex(State())

    /// A new connection's index.
    func accept() -> Int {
        state.withLock { state in
            state.connections.append(H2StandInConnection())
            return state.connections.count - 1
        }
    }

    func update(_ connection: Int, _ change: (inout H2StandInConnection) -> Void) {
        state.withLock { change(&$0.connections[connection]) }
    }

    /// Numbers `request`, records it, and says whether to refuse it.
    func record(_ request: H2StandInRequest, refusing refused: Set<Int>) -> H2StandInRequest {
        state.withLock { state in
            state.requestCount += 1
            var request = request
            request.number = state.requestCount
            request.refused = refused.contains(request.number)
            state.requests.append(request)
            return request
        }
    }
}
