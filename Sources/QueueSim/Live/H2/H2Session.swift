import NIOCore
import NIOHPACK
import NIOHTTP2
import QueueClientCore

/// What an h2 session tells its connection (`LiveTLSConnection`).
protocol H2SessionEvents: AnyObject {
    /// The stream in flight was answered; `reusable`: no GOAWAY has come, the connection may
    /// carry another request.
    func h2Answered(_ response: IncomingResponse, reusable: Bool)
    /// The server did not process the stream in flight: RST_STREAM `REFUSED_STREAM`, or a
    /// GOAWAY whose last stream id is below it (RFC 9113 §8.7). It may be sent again.
    func h2Unprocessed(_ reason: TransportError)
    /// The stream in flight failed (`reason`, in words); the server may have processed it.
    func h2StreamFailed(_ reason: TransportError)
    /// GOAWAY came with no stream in flight: the connection carries nothing more.
    func h2GoingAway()
    /// Bytes of the stream in flight arrived (the idle timeout's clock).
    func h2Progressed()
}

/// One h2 connection's frames, on NIOHTTP2's frame-level API (no stream multiplexer): a
/// visitor's requests are sequential, so one stream at a time, on stream ids 1, 3, 5…, each
/// request's HEADERS in its own stack's order (`H2Stack`), the connection's SETTINGS and first
/// WINDOW_UPDATE those of the stack it was opened for. Sits after `NIOHTTP2Handler`, which
/// keeps the connection's state (SETTINGS acknowledged, windows, stream states, HPACK).
final class H2Session: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    /// The connection's stack (its SETTINGS and windows): the first request's.
    let stack: H2Stack
    /// The stack's connection and stream windows, read once: the window events come with
    /// every DATA frame, and `H2Stack.streamWindow` reads its SETTINGS, an array made per call.
    private let connectionWindow: Int
    private let streamWindow: Int
    private unowned let events: any H2SessionEvents
    private var context: ChannelHandlerContext?
    private var nextStream: Int32 = 1
    /// The stream whose answer is awaited.
    private var inFlight: HTTP2StreamID?
    private var reader = H2AnswerReader()
    /// GOAWAY's last stream id, once one came: no stream above it is processed.
    private var goAwayLast: HTTP2StreamID?
    /// The last shared enqueue head's HEADERS block (`headerBlock`).
    private var sharedBlock: SharedBlock?

    private struct SharedBlock {
        /// Kept alive, so `===` never matches a later template at the same address.
        let template: EnqueueHeaderTemplate
        let bodyLength: Int?
        let defaultAuthority: String
        let block: HPACKHeaders
        let isHead: Bool
    }

    init(stack: H2Stack, events: any H2SessionEvents) {
        self.stack = stack
        self.events = events
        connectionWindow = stack.connectionWindow
        streamWindow = stack.streamWindow
    }

    /// The handler NIOHTTP2 puts before the session: the stack's SETTINGS, and no limit on the
    /// server's RST_STREAMs (`streamResets`). Its checks of header blocks and content lengths
    /// are off: they are one switch for both directions, so they also re-checked every request
    /// queuesim builds itself (lowercase names, no connection-specific fields: `H2Stack`), and
    /// cost about a fifth of the client's CPU per request. Answers are still checked, by the
    /// same rules, in the pass that reads them (`H2AnswerReader`, `AnswerFields`).
    static func protocolHandler(for stack: H2Stack) -> NIOHTTP2Handler {
        var configuration = NIOHTTP2Handler.ConnectionConfiguration()
        configuration.initialSettings = stack.initialSettings
        configuration.headerBlockValidation = .disabled
        configuration.contentLengthValidation = .disabled
        return NIOHTTP2Handler(
            mode: .client, connectionConfiguration: configuration, streamConfiguration: streamResets)
    }

    /// NIOHTTP2 closes a connection that receives over 200 RST_STREAMs in 30 s: a server's
    /// guard against rapid reset (CVE-2023-44487), where a client opens and resets streams to
    /// make the server work for nothing. A client is not its target: the resets it receives
    /// are the server's own, and a phone's stack has no such limit. nginx resets every POST it
    /// answers before reading the body with NO_ERROR (legal, RFC 9113 §8.1), so under load the
    /// limit closed a connection every ~202 requests and made new ones. Lifted by a window of
    /// one nanosecond rather than a larger count: the limiter keeps a timestamp per reset in
    /// its window and reserves `maximumCount` of them per connection up front, so a count
    /// high enough for a long run would cost memory on every held connection; within one
    /// nanosecond a sequential client never sees a second reset.
    private static let streamResets: NIOHTTP2Handler.StreamConfiguration = {
        var configuration = NIOHTTP2Handler.StreamConfiguration()
        configuration.streamResetFrameRateLimit.windowLength = .nanoseconds(1)
        return configuration
    }()

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        // Right after the SETTINGS NIOHTTP2Handler wrote when it was added: the stack's
        // connection window (flushed with the first request).
        let frame = HTTP2Frame(
            streamID: .rootStream, payload: .windowUpdate(windowSizeIncrement: stack.connectionWindowIncrement))
        context.write(wrapOutboundOut(frame), promise: nil)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    /// Sends what was written, from the session's place in the pipeline: the flush passes
    /// NIOHTTP2's handler and the `H2WriteCoalescer`, which hands on what it gathered only at a
    /// flush that passes it. A flush from the TLS connection's own place (before both) reached
    /// NIOSSL alone, and the request waited in the coalescer until some later read's flush: a
    /// request sent outside a read (a visitor's timer) never left, and the run hung.
    func flush() {
        context?.flush()
    }

    /// Whether part of the answer in flight has come.
    var receivedAnswerBytes: Bool { reader.receivedAnything }

    /// Opens the next stream with `request` (sent at the next flush).
    func send(_ request: borrowing OutgoingRequest, defaultAuthority: String) {
        guard let context else { return }
        let stream = HTTP2StreamID(nextStream)
        nextStream += 2
        inFlight = stream
        let body = request.body.flatMap { $0.isEmpty ? nil : $0 }
        let (block, isHead) = headerBlock(request, defaultAuthority: defaultAuthority)
        reader = H2AnswerReader(headRequest: isHead)
        let headers = HTTP2Frame.FramePayload.Headers(headers: block, endStream: body == nil)
        context.write(wrapOutboundOut(HTTP2Frame(streamID: stream, payload: .headers(headers))), promise: nil)
        if let body {
            let data = HTTP2Frame.FramePayload.Data(
                data: .byteBuffer(context.channel.allocator.buffer(bytes: body)), endStream: true)
            context.write(wrapOutboundOut(HTTP2Frame(streamID: stream, payload: .data(data))), promise: nil)
        }
    }

    /// `request`'s HEADERS block in its own stack's order; a group's shared enqueue head's is
    /// made once per connection and body length and reused, as HTTP/1.1 reuses its bytes
    /// (`EncodedHeads`): the same fields for every visitor of the group but the body. `isHead`:
    /// the request is a HEAD (its answer's `content-length` describes no DATA).
    private func headerBlock(
        _ request: borrowing OutgoingRequest, defaultAuthority: String
    ) -> (block: HPACKHeaders, isHead: Bool) {
        let bodyLength = request.body?.count
        let template = request.sharedHead
        if let template, let shared = sharedBlock, shared.template === template, shared.bodyLength == bodyLength,
            shared.defaultAuthority == defaultAuthority
        {
            return (shared.block, shared.isHead)
        }
        // The head read once (a page load makes it when read); a shared head's is the template's.
        let (head, layout) = (request.head, request.layout)
        let block = H2Stack.of(head, layout: layout).headerBlock(
            head, layout: layout, bodyLength: bodyLength, defaultAuthority: defaultAuthority)
        let isHead = head.method == .head
        guard let template else { return (block, isHead) }
        sharedBlock = SharedBlock(
            template: template, bodyLength: bodyLength, defaultAuthority: defaultAuthority, block: block,
            isHead: isHead)
        return (block, isHead)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.payload {
        case .headers(let headers):
            guard frame.streamID == inFlight else { return }
            read(reader.headers(headers.headers, endStream: headers.endStream))
        case .data(let data):
            guard frame.streamID == inFlight, case .byteBuffer(let bytes) = data.data else { return }
            read(reader.data(bytes, endStream: data.endStream))
        case .rstStream(let code):
            guard frame.streamID == inFlight else { return }
            inFlight = nil
            if code == .refusedStream {
                events.h2Unprocessed(.other("the server refused the request's HTTP/2 stream (REFUSED_STREAM)"))
            } else {
                events.h2StreamFailed(.other("the server reset the request's HTTP/2 stream (\(code))"))
            }
        case .goAway(let last, _, _):
            goAwayLast = last
            if let inFlight, inFlight > last {
                self.inFlight = nil
                events.h2Unprocessed(
                    .other("the server sent GOAWAY below the request's HTTP/2 stream, which it did not process"))
            } else if inFlight == nil {
                events.h2GoingAway()
            }
        case .pushPromise(let promise):
            // A push the stack did not ask for (OkHttp's PushObserver.CANCEL; the others send
            // ENABLE_PUSH 0): cancelled.
            let reset = HTTP2Frame(streamID: promise.pushedStreamID, payload: .rstStream(.cancel))
            context.writeAndFlush(wrapOutboundOut(reset), promise: nil)
        default:
            break
        }
    }

    private func read(_ reading: H2AnswerReader.Reading) {
        switch reading {
        case .partial:
            events.h2Progressed()
        case .answered(let response):
            inFlight = nil
            events.h2Answered(response, reusable: goAwayLast == nil)
        case .unreadable(let reason):
            inFlight = nil
            events.h2StreamFailed(.other(reason))
        }
    }

    /// NIOHTTP2's errors (a stream error on the stream in flight, an answer that breaks h2's
    /// rules): the request fails and the connection closes.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        inFlight = nil
        events.h2StreamFailed(.other("HTTP/2: \(LiveTransportErrors.plain(error))"))
    }

    /// Tops the connection's and the stream's windows up as the stacks do: once less than half
    /// is left, back to the whole (OkHttp's `Http2Stream.receiveData`, Chromium's
    /// `SpdySession`).
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let update = event as? NIOHTTP2WindowUpdatedEvent, let inbound = update.inboundWindowSize {
            let target: Int
            if update.streamID == .rootStream {
                target = connectionWindow
            } else if update.streamID == inFlight {
                target = streamWindow
            } else {
                return context.fireUserInboundEventTriggered(event)
            }
            if inbound < target / 2 {
                let frame = HTTP2Frame(
                    streamID: update.streamID, payload: .windowUpdate(windowSizeIncrement: target - inbound))
                context.writeAndFlush(wrapOutboundOut(frame), promise: nil)
            }
        }
        context.fireUserInboundEventTriggered(event)
    }
}
