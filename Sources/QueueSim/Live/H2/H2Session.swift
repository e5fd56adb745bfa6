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

/// One h2 connection's streams: a visitor's requests are sequential, so one stream at a time,
/// on stream ids 1, 3, 5…, each request's HEADERS in its own stack's order (`H2Stack`), the
/// connection's SETTINGS and first WINDOW_UPDATE those of the stack it was opened for. Sits
/// after the TLS connection and reads its decrypted bytes through `H2FrameCodec`, which keeps
/// the connection's state (SETTINGS, windows, HPACK) and gathers what the session writes into
/// one buffer per flush.
final class H2Session: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// The connection's stack (its SETTINGS and windows): the first request's.
    let stack: H2Stack
    private unowned let events: any H2SessionEvents
    private var context: ChannelHandlerContext?
    private var codec: H2FrameCodec
    private var nextStream: Int32 = 1
    /// The stream whose answer is awaited.
    private var inFlight: HTTP2StreamID?
    private var reader = H2AnswerReader()
    /// GOAWAY's last stream id, once one came: no stream above it is processed.
    private var goAwayLast: HTTP2StreamID?
    /// A frame broke h2's rules: the codec wrote GOAWAY, nothing more is read.
    private var broken = false
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

    /// The preface, SETTINGS and connection WINDOW_UPDATE are written at once and leave with
    /// the first flush (the first request's).
    init(stack: H2Stack, events: any H2SessionEvents, allocator: ByteBufferAllocator) {
        self.stack = stack
        self.events = events
        codec = H2FrameCodec(stack: stack, allocator: allocator)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    /// Sends what the codec gathered since the last flush, as one buffer (one TLS record).
    func flush() {
        guard let context else { return }
        if let bytes = codec.takeOutbound() { context.write(wrapOutboundOut(bytes), promise: nil) }
        context.flush()
    }

    /// Whether part of the answer in flight has come.
    var receivedAnswerBytes: Bool { reader.receivedAnything }

    /// Opens the next stream with `request` (sent at the next flush).
    func send(_ request: borrowing OutgoingRequest, defaultAuthority: String) {
        guard context != nil, !broken else { return }
        let stream = nextStream
        nextStream += 2
        inFlight = HTTP2StreamID(stream)
        let body = request.body.flatMap { $0.isEmpty ? nil : $0 }
        let (block, isHead) = headerBlock(request, defaultAuthority: defaultAuthority)
        reader = H2AnswerReader(headRequest: isHead)
        codec.sendRequest(stream: stream, headers: block, body: body)
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
        guard !broken else { return }
        codec.receive(unwrapInboundIn(data))
        do {
            while !broken, let frame = try codec.nextFrame() { handle(frame) }
        } catch {
            // The codec wrote GOAWAY: sent before the connection closes.
            broken = true
            inFlight = nil
            flush()
            events.h2StreamFailed(.other("HTTP/2: \(error)"))
        }
    }

    /// Sends what reading wrote (SETTINGS and PING acknowledgements, WINDOW_UPDATEs) once the
    /// read is done, with any request written meanwhile.
    func channelReadComplete(context: ChannelHandlerContext) {
        if let bytes = codec.takeOutbound() { context.writeAndFlush(wrapOutboundOut(bytes), promise: nil) }
        context.fireChannelReadComplete()
    }

    private func handle(_ frame: HTTP2Frame) {
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
}
