import NIOCore
import NIOHPACK
import NIOHTTP1
import NIOHTTP2

/// One h2 connection of `H2StandInServer`: sees every frame after HPACK decoding, records
/// requests, SETTINGS and WINDOW_UPDATEs, and answers (or refuses) each stream once its last
/// frame is in.
final class H2FrameRecorder: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    private let connection: Int
    private let log: H2StandInLog
    private let options: H2StandInServer.Options
    private var open: [HTTP2StreamID: H2StandInRequest] = [:]
    private var answered = 0
    /// The last stream id of the GOAWAY sent, if one was.
    private var goAwayLast: HTTP2StreamID?
    private var highestStream = HTTP2StreamID.rootStream

    init(connection: Int, log: H2StandInLog, options: H2StandInServer.Options) {
        self.connection = connection
        self.log = log
        self.options = options
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.payload {
        case .settings(.settings(let settings)):
            let recorded = settings.map {
                H2StandInConnection.Setting(identifier: Self.identifier(of: $0.parameter), value: $0.value)
            }
            log.update(connection) { $0.settings += recorded }
        case .goAway(_, let code, _):
            log.update(connection) { $0.receivedGoAway = code.networkCode }
        case .windowUpdate(let increment):
            let update = H2StandInConnection.WindowUpdate(streamID: Int(frame.streamID), increment: increment)
            log.update(connection) { $0.windowUpdates.append(update) }
        case .headers(let headers):
            receiveHeaders(headers, on: frame.streamID, context: context)
        case .data(let data):
            guard var request = open[frame.streamID] else { return }
            if case .byteBuffer(var buffer) = data.data, let bytes = buffer.readBytes(length: buffer.readableBytes) {
                request.body += bytes
            }
            open[frame.streamID] = request
            if data.endStream { finish(frame.streamID, context: context) }
        default:
            break
        }
    }

    private func receiveHeaders(
        _ headers: HTTP2Frame.FramePayload.Headers, on stream: HTTP2StreamID, context: ChannelHandlerContext
    ) {
        if let goAwayLast, stream > goAwayLast { return }
        if open[stream] == nil {
            // A new stream's request headers (a second HEADERS on it is trailers).
            var request = H2StandInRequest(number: 0, connection: connection, streamID: Int(stream), alpn: "h2")
            for (name, value, _) in headers.headers {
                if name.hasPrefix(":") {
                    request.pseudoHeaderNames.append(name)
                    request.pseudoHeaders[name] = value
                } else {
                    request.headers.append(.init(name: name, value: value))
                }
            }
            open[stream] = request
            highestStream = max(highestStream, stream)
            log.update(connection) { $0.streams += 1 }
        }
        if headers.endStream { finish(stream, context: context) }
    }

    private func finish(_ stream: HTTP2StreamID, context: ChannelHandlerContext) {
        guard let pending = open.removeValue(forKey: stream) else { return }
        let request = log.record(pending, refusing: options.refusedRequests)
        if let raw = options.rawBytesInsteadOfAnswer,
            let codec = try? context.pipeline.syncOperations.context(handlerType: NIOHTTP2Handler.self)
        {
            // From the h2 codec's place: what is written there goes to the TLS handler as it is.
            codec.writeAndFlush(NIOAny(context.channel.allocator.buffer(bytes: raw)), promise: nil)
            return
        }
        if request.refused {
            context.write(
                wrapOutboundOut(HTTP2Frame(streamID: stream, payload: .rstStream(.refusedStream))), promise: nil)
        } else {
            answer(options.respond(request), on: stream, context: context)
            if options.resetAnsweredStreams {
                // The answer out first: NIOHTTP2 drops a stream's DATA still buffered when it is reset.
                context.flush()
                context.write(
                    wrapOutboundOut(HTTP2Frame(streamID: stream, payload: .rstStream(.noError))), promise: nil)
            }
        }
        answered += 1
        if let limit = options.goAwayAfterStreams, answered >= limit, goAwayLast == nil {
            goAwayLast = highestStream
            let goAway = HTTP2Frame.FramePayload.goAway(
                lastStreamID: highestStream, errorCode: .noError, opaqueData: nil)
            context.write(wrapOutboundOut(HTTP2Frame(streamID: .rootStream, payload: goAway)), promise: nil)
            log.update(connection) { $0.sentGoAway = true }
        }
        context.flush()
    }

    private func answer(_ response: H2StandInResponse, on stream: HTTP2StreamID, context: ChannelHandlerContext) {
        var fields: [(String, String)] = [(":status", String(response.status))]
        fields += response.headers.map { ($0.name, $0.value) }
        fields.append(("content-length", String(response.body.count)))
        let head = HTTP2Frame.FramePayload.Headers(headers: HPACKHeaders(fields), endStream: response.body.isEmpty)
        context.write(wrapOutboundOut(HTTP2Frame(streamID: stream, payload: .headers(head))), promise: nil)
        guard !response.body.isEmpty else { return }
        let body = context.channel.allocator.buffer(bytes: response.body)
        let data = HTTP2Frame.FramePayload.Data(data: .byteBuffer(body), endStream: true)
        context.write(wrapOutboundOut(HTTP2Frame(streamID: stream, payload: .data(data))), promise: nil)
    }

    private static let knownSettings: [(HTTP2SettingsParameter, Int)] = [
        (.headerTableSize, 1), (.enablePush, 2), (.maxConcurrentStreams, 3), (.initialWindowSize, 4),
        (.maxFrameSize, 5), (.maxHeaderListSize, 6), (.enableConnectProtocol, 8),
    ]

    private static func identifier(of parameter: HTTP2SettingsParameter) -> Int {
        knownSettings.first { $0.0 == parameter }?.1 ?? -1
    }
}

/// One HTTP/1.1 connection of `H2StandInServer` (the client offered `http/1.1` or no ALPN).
final class H1StandInRecorder: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let connection: Int
    private let alpn: String?
    private let log: H2StandInLog
    private let options: H2StandInServer.Options
    private var pending: H2StandInRequest?
    private var answered = 0

    init(connection: Int, alpn: String?, log: H2StandInLog, options: H2StandInServer.Options) {
        self.connection = connection
        self.alpn = alpn
        self.log = log
        self.options = options
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            var request = H2StandInRequest(number: 0, connection: connection, streamID: 0, alpn: alpn)
            request.pseudoHeaders = [":method": head.method.rawValue, ":path": head.uri]
            request.headers = head.headers.map { .init(name: $0.name, value: $0.value) }
            pending = request
            log.update(connection) { $0.streams += 1 }
        case .body(var buffer):
            pending?.body += buffer.readBytes(length: buffer.readableBytes) ?? []
        case .end:
            guard let complete = pending else { return }
            pending = nil
            let request = log.record(complete, refusing: options.refusedRequests)
            if request.refused {
                context.close(promise: nil)
                return
            }
            answered += 1
            let closes = options.goAwayAfterStreams.map { answered >= $0 } ?? false
            answer(options.respond(request), closes: closes, context: context)
        }
    }

    private func answer(_ response: H2StandInResponse, closes: Bool, context: ChannelHandlerContext) {
        var headers = HTTPHeaders(response.headers.map { ($0.name, $0.value) })
        headers.add(name: "content-length", value: String(response.body.count))
        if closes { headers.add(name: "connection", value: "close") }
        let head = HTTPResponseHead(version: .http1_1, status: .init(statusCode: response.status), headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        if !response.body.isEmpty {
            context.write(
                wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: response.body)))),
                promise: nil)
        }
        let written = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if closes {
            let channel = context.channel
            written.whenComplete { _ in channel.close(promise: nil) }
        }
    }
}

/// Counts the TLS records a client sends, before NIOSSL reads them (`H2StandInConnection
/// .tlsRecords`): what a client's writes cost in seals. Passes every byte on unchanged.
final class TLSRecordCounter: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let connection: Int
    private let log: H2StandInLog
    /// A record header split across reads, so far.
    private var header: [UInt8] = []
    /// Bytes of the current record's body still to come.
    private var remaining = 0

    init(connection: Int, log: H2StandInLog) {
        self.connection = connection
        self.log = log
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = unwrapInboundIn(data)
        var records = 0
        for byte in bytes.readableBytesView {
            if remaining > 0 {
                remaining -= 1
                continue
            }
            header.append(byte)
            if header.count == 5 {
                remaining = Int(header[3]) << 8 | Int(header[4])
                header.removeAll(keepingCapacity: true)
                records += 1
            }
        }
        if records > 0 { log.update(connection) { $0.tlsRecords += records } }
        context.fireChannelRead(data)
    }
}
