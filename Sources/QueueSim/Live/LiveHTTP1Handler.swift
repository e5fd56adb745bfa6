import NIOCore
import NIOTLS
import QueueClientCore

/// One keep-alive HTTP/1.1 connection of a loop's pool (`LiveConnectionPool`) as a channel
/// handler: it writes the request bytes the pool encoded and reads the answer with
/// `HTTP1ResponseParser`. One exchange at a time, no pipelining, confined to its event loop.
///
/// It decides nothing about the pool: it reports answers and its channel's end to the pool by
/// its `ConnectionID`, and the pool's state machine decides. It never times itself out either:
/// the loop's calendar holds every exchange's deadline and aborts through the pool.
final class LiveHTTP1Handler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let id: ConnectionID
    /// Strong: the pool forgets the handler when its channel is gone, which ends the cycle.
    private let pool: LiveConnectionPool
    private var context: ChannelHandlerContext?
    private var parser = HTTP1ResponseParser()
    /// The start of an answer's head that has not all arrived yet.
    private var pending: ByteBuffer?
    private var failure: (any Error)?
    /// A request is written and its answer not yet read.
    private var awaitingAnswer = false
    /// The last request's bytes (`write(_:keep:)`).
    private var spareBuffer: ByteBuffer?

    /// When the exchange in flight last made progress: its request written, or bytes of its
    /// answer read (the idle timeout's clock).
    private(set) var lastProgress: RunInstant
    private let clock: WallClock
    /// The exchange the connection was opened for: its answer carries the handshake.
    var firstExchange: ExchangeID?
    /// How long the TCP connect took, and when it completed (the TLS handshake starts then).
    private var connectDuration: Duration?
    private var connectedAt: RunInstant?
    private var tlsDuration: Duration?

    init(pool: LiveConnectionPool, id: ConnectionID) {
        self.pool = pool
        self.id = id
        clock = pool.clock
        lastProgress = clock.now
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    var channel: (any Channel)? { context?.channel }

    /// The pool saw the connect complete, `duration` after it began.
    func connected(after duration: Duration) {
        connectDuration = duration
        connectedAt = clock.now
    }

    /// The handshake of the connection's first exchange, once: nil for any later exchange.
    func takeHandshake() -> Handshake? {
        guard firstExchange != nil, let connectDuration else { return nil }
        firstExchange = nil
        return Handshake(connect: connectDuration, tls: tlsDuration)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case TLSUserEvent.handshakeCompleted = event, let connectedAt {
            tlsDuration = clock.now - connectedAt
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// Writes a request's bytes; the pool flushes every connection written in a tick of the
    /// loop together, once it ends. `keep`: hold on to the buffer for the next request's bytes
    /// (`takeSpareBuffer`), once the write has let go of it (a shared connection: a visitor's
    /// own idle connection would hold its memory through the wait).
    /// `now`: the pool's reading of the clock for this event.
    func write(_ bytes: ByteBuffer, keep: Bool, at now: RunInstant) {
        awaitingAnswer = true
        lastProgress = now
        if keep { spareBuffer = bytes }
        context?.write(wrapOutboundOut(bytes), promise: nil)
    }

    /// The last request's buffer, for the next one's bytes (nil when there is none).
    func takeSpareBuffer() -> ByteBuffer? {
        spareBuffer.take()
    }

    func flush() {
        context?.flush()
    }

    func close() {
        context?.close(promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let now = clock.now
        lastProgress = now
        var bytes = unwrapInboundIn(data)
        guard awaitingAnswer else {
            // Bytes nobody asked for (a server's 408 on an idle connection, say): whatever
            // they are, they must not be read as the next request's answer.
            context.close(promise: nil)
            return
        }
        if var earlier = pending {
            earlier.writeBuffer(&bytes)
            bytes = earlier
            pending = nil
        }
        let response: HTTP1ResponseParser.Response
        do {
            guard let complete = try parser.parse(&bytes) else {
                if bytes.readableBytes > 0 { pending = bytes }
                return
            }
            response = complete
        } catch {
            failure = error
            context.close(promise: nil)
            return
        }
        awaitingAnswer = false
        // Bytes past the answer were never asked for (no request is pipelined): the
        // connection is not trusted with another exchange.
        let reusable = response.keepAlive && bytes.readableBytes == 0
        pool.exchangeAnswered(
            on: id, IncomingResponse(head: response.head, body: response.body), reusable: reusable, at: now)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if failure == nil { failure = error }
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if failure == nil, awaitingAnswer, let response = parser.connectionClosed() {
            awaitingAnswer = false
            pool.exchangeAnswered(
                on: id, IncomingResponse(head: response.head, body: response.body), reusable: false, at: clock.now)
        }
        pool.connectionEnded(
            id, error: failure, receivedResponseBytes: parser.hasPartialResponse || pending != nil)
        self.context = nil
    }
}
