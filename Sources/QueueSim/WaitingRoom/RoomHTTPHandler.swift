import HTTPTypes
import Logging
import NIOCore
import NIOHTTP1
import NIOSSL
import QueueClientCore

#if canImport(Glibc)
    import Glibc
#endif

/// One connection of the embedded room's server: a request at a time (NIO's server pipeline
/// holds back pipelined ones), answered by `WaitingRoomService` after the reply's delay.
///
/// A request NIO's decoder cannot read (a garbage request line, a bad or repeated
/// `Content-Length`, `Content-Length` with `Transfer-Encoding`, an unknown method, a head over
/// NIO's limit) is answered 400 with `Connection: close`, and the connection is closed once
/// the answer is written: the decoder reads nothing more on it, so a client kept waiting would
/// only find out at its own timeout.
///
/// Over h2 (WaitingRoomServer+TLS.swift) the handler serves one stream behind NIOHTTP2's
/// HTTP/1 codec: the request arrives as HTTP/2.0, the answer never closes the connection (the
/// stream ends with it), and a reset or an unanswered request resets the stream (RST_STREAM),
/// not the connection the client's other streams share.
final class RoomHTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// The server is stopping: close once the answer in flight (if any) is out.
    struct Stopping {}

    private let service: LockedWaitingRoomService
    private let clock: any RunClock
    private let logger: Logger
    /// `queuesim serve`'s header and status page (nil in a run's own room).
    private let announcement: RoomAnnouncement?
    private var head: HTTPRequestHead?
    private var body = ByteBuffer()
    /// The body went over the limit: the rest of this request is ignored (413 is on its way).
    private var refused = false
    /// A reply is scheduled or a `.noAnswer` request is held.
    private var answering = false
    /// An answer that closes the connection is written or on its way.
    private var closing = false
    private var stopping = false
    private var heldRequest: Scheduled<Void>?
    /// `https` behind the room's TLS listener, `http` on its plain one: HTTP/1.1 heads do not
    /// carry it, and the protected API's connector rebuilds the request's URL from it.
    private let scheme: String

    init(
        service: LockedWaitingRoomService, clock: any RunClock, logger: Logger, announcement: RoomAnnouncement? = nil,
        scheme: String = "http"
    ) {
        self.scheme = scheme
        self.announcement = announcement
        self.service = service
        self.clock = clock
        self.logger = logger
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let requestHead):
            head = requestHead
            body.clear()
            refused = false
            if let length = requestHead.headers.first(name: "content-length").flatMap(Int.init),
                length > WaitingRoomServer.maximumBodySize
            {
                refuseTooLarge(context: context)
            }
        case .body(var part):
            guard !refused else { return }
            if body.readableBytes + part.readableBytes > WaitingRoomServer.maximumBodySize {
                refuseTooLarge(context: context)
                return
            }
            body.writeBuffer(&part)
        case .end:
            guard !refused, let requestHead = head else { return }
            head = nil
            answer(requestHead, context: context)
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        switch event {
        case let idle as IdleStateHandler.IdleStateEvent where idle == .read:
            // Silent between requests, or mid-request: close. Waiting for our own delayed
            // answer is not the client's silence.
            if !answering { context.close(promise: nil) }
        case is Stopping:
            stopping = true
            if let heldRequest {
                heldRequest.cancel()
                self.heldRequest = nil
                Self.reset(context.channel)
            } else if !answering {
                context.close(promise: nil)
            }
        default:
            context.fireUserInboundEventTriggered(event)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard error is HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        // NIO's pipeline handler holds a decoding error back while an answer is pending, so
        // none is in flight here; one that already closes the connection says enough. A
        // request cut short by the client's close fails too: nobody is left to answer.
        guard !closing, context.channel.isActive else { return }
        answering = true
        var response = HTTPResponse(status: .badRequest)
        response.headerFields[.contentType] = "application/json"
        let body = Array("{\"error\":\"malformed HTTP request\"}".utf8)
        write(response, body: body, version: head?.version ?? .http1_1, keepAlive: false, context: context)
    }

    func channelInactive(context: ChannelHandlerContext) {
        heldRequest?.cancel()
        heldRequest = nil
        context.fireChannelInactive()
    }

    private func answer(_ requestHead: HTTPRequestHead, context: ChannelHandlerContext) {
        let request = Self.request(requestHead, scheme: scheme)
        let bytes = Array(buffer: body)
        body.clear()
        let path = requestHead.uri.prefix(while: { $0 != "?" })
        // h2 has no Connection header: the stream ends, the connection stays.
        let keepAlive = (requestHead.version.major == 2 || requestHead.isKeepAlive) && !stopping
        answering = true
        if let announcement, path == RoomAnnouncement.statusPath {
            // Not the room's business: no fault, no latency, not counted as traffic.
            let (response, statusBody) = Self.status(announcement, method: requestHead.method)
            write(response, body: statusBody, version: requestHead.version, keepAlive: keepAlive, context: context)
            return
        }
        let reply = service.handle(request, body: bytes, path: path, at: clock.now)
        let loop = context.eventLoop.assumeIsolated()
        switch reply {
        case .response(let responseHead, let responseBody, let delay):
            logger.debug("\(requestHead.method) \(path) \(responseHead.status.code) delay=\(delay)")
            let version = requestHead.version
            if delay > .zero {
                loop.scheduleTask(in: .nanoseconds(delay.wholeNanoseconds)) { [self] in
                    write(responseHead, body: responseBody, version: version, keepAlive: keepAlive, context: context)
                }
            } else {
                write(responseHead, body: responseBody, version: version, keepAlive: keepAlive, context: context)
            }
        case .reset(let delay):
            logger.debug("\(requestHead.method) \(path) reset")
            let channel = context.channel
            loop.scheduleTask(in: .nanoseconds(max(0, delay.wholeNanoseconds))) { Self.reset(channel) }
        case .noAnswer:
            logger.debug("\(requestHead.method) \(path) no-answer")
            let channel = context.channel
            heldRequest = loop.scheduleTask(in: .nanoseconds(WaitingRoomServer.noAnswerHold.wholeNanoseconds)) {
                Self.reset(channel)
            }
        }
    }

    private func write(
        _ response: HTTPResponse, body: [UInt8], version: HTTPVersion, keepAlive: Bool, context: ChannelHandlerContext
    ) {
        var headers = HTTPHeaders()
        headers.reserveCapacity(response.headerFields.count + 2)
        for field in response.headerFields { headers.add(name: field.name.rawName, value: field.value) }
        headers.replaceOrAdd(name: "Content-Length", value: String(body.count))
        if let announcement { headers.replaceOrAdd(name: RoomAnnouncement.startHeader, value: announcement.secondZero) }
        let closeAfter = !keepAlive || stopping
        if closeAfter { headers.replaceOrAdd(name: "Connection", value: "close") }
        let head = HTTPResponseHead(
            version: version,
            status: HTTPResponseStatus(statusCode: response.status.code, reasonPhrase: response.status.reasonPhrase),
            headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        if !body.isEmpty {
            var buffer = context.channel.allocator.buffer(capacity: body.count)
            buffer.writeBytes(body)
            context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        }
        let written = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        answering = false
        if closeAfter || stopping {
            closing = true
            let channel = context.channel
            written.whenComplete { _ in channel.close(promise: nil) }
        }
    }

    private func refuseTooLarge(context: ChannelHandlerContext) {
        refused = true
        answering = true
        var response = HTTPResponse(status: .contentTooLarge)
        response.headerFields[.contentType] = "application/json"
        let body = Array("{\"error\":\"request body over \(WaitingRoomServer.maximumBodySize) bytes\"}".utf8)
        write(response, body: body, version: head?.version ?? .http1_1, keepAlive: false, context: context)
    }

    /// `GET /queuesim/status`: the room's configuration; any other method is 405.
    static func status(_ announcement: RoomAnnouncement, method: HTTPMethod) -> (HTTPResponse, [UInt8]) {
        var response = HTTPResponse(status: method == .GET ? .ok : .methodNotAllowed)
        response.headerFields[.contentType] = "application/json"
        response.headerFields[.cacheControl] = "no-store"
        guard method == .GET else {
            response.headerFields[.allow] = "GET"
            return (response, Array("{\"error\":\"\(RoomAnnouncement.statusPath) answers GET only\"}".utf8))
        }
        return (response, announcement.status)
    }

    /// The request as swift-http-types sees it: `Host` becomes the authority.
    static func request(_ head: HTTPRequestHead, scheme: String = "http") -> HTTPRequest {
        var fields = HTTPFields()
        fields.reserveCapacity(head.headers.count)
        var authority: String?
        for (name, value) in head.headers {
            if authority == nil, name.utf8.count == 4, name.lowercased() == "host" {
                authority = value
                continue
            }
            guard let fieldName = HTTPField.Name(name) else { continue }
            fields.append(HTTPField(name: fieldName, value: value))
        }
        let method = HTTPRequest.Method(head.method.rawValue) ?? .get
        return HTTPRequest(method: method, scheme: scheme, authority: authority, path: head.uri, headerFields: fields)
    }

    /// Closes the connection abortively (RST) so the client sees a reset, not a clean close.
    /// Over TLS the close goes under the TLS handler, so no `close_notify` precedes the RST; an
    /// h2 stream's channel is no socket, and closing it resets that stream only.
    static func reset(_ channel: any Channel) {
        if let options = channel as? any SocketOptionProvider {
            _ = options.setSoLinger(linger(l_onoff: 1, l_linger: 0))
        }
        if let tls = try? channel.pipeline.syncOperations.context(handlerType: NIOSSLServerHandler.self) {
            tls.close(promise: nil)
            return
        }
        channel.close(promise: nil)
    }
}
