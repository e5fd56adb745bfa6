import HTTPTypes
import NIOCore
import QueueClientCore

/// One keep-alive HTTP/1.1 connection of a loop's pool (`LiveConnectionPool`): one exchange at
/// a time, no pipelining, confined to its event loop like everything else of the live engine.
///
/// Requests are written as bytes (`LiveRequestEncoding`) and responses read by
/// `HTTP1ResponseParser`, both in one handler (`LiveHTTP1Handler`). A connection never times
/// itself out: the loop's calendar holds every exchange's deadline and calls `abort`.
final class LiveConnection {
    enum State {
        case connecting
        case idle
        case busy(LiveExchange)
        case closed
    }

    private(set) var state: State = .connecting
    /// Exchanges this connection has completed (0: fresh).
    private(set) var exchangesServed = 0
    /// Where it sits in the pool's list of open connections (swap-remove).
    var poolIndex = -1
    /// Strong: the pool lets go of a connection when it closes, which ends the cycle.
    private let pool: LiveConnectionPool
    private var collector: LiveHTTP1Handler?

    /// When the exchange in flight last made progress: its request written, or bytes of its
    /// answer read (the idle timeout's clock).
    private(set) var lastProgress = NIODeadline.now()

    init(pool: LiveConnectionPool) {
        self.pool = pool
    }

    func progressed() { lastProgress = .now() }

    /// The channel is up; the pool hands it its first exchange.
    func connected(_ collector: LiveHTTP1Handler) {
        self.collector = collector
        state = .idle
    }

    func begin(_ exchange: LiveExchange, allocator: ByteBufferAllocator) {
        guard case .idle = state, let collector else {
            preconditionFailure("an exchange on a connection that is not idle")
        }
        state = .busy(exchange)
        lastProgress = .now()
        collector.send(pool.encode(exchange.request, allocator: allocator), pool: pool)
    }

    func carries(slot: Int, serial: UInt32) -> Bool {
        guard case .busy(let exchange) = state else { return false }
        return exchange.slot == slot && exchange.serial == serial
    }

    /// The loop's calendar gave up on this exchange (`requestTimeout`): nothing is delivered,
    /// the connection is closed (its response could still arrive and must not be read as the
    /// next one's).
    func abort() {
        guard case .busy = state else { return }
        state = .closed
        collector?.close()
    }

    func close() {
        if case .closed = state { return }
        state = .closed
        collector?.close()
    }

    // MARK: - From the collector

    func responded(_ response: IncomingResponse, keepAlive: Bool) {
        guard case .busy(let exchange) = state else { return }
        exchangesServed += 1
        if keepAlive {
            state = .idle
        } else {
            state = .closed
            collector?.close()
        }
        pool.exchangeEnded(exchange, on: self, result: .success(response))
    }

    /// The channel closed (by either side) or failed. `error` is why, when NIO said.
    func ended(error: (any Error)?, receivedResponseBytes: Bool) {
        let previous = state
        state = .closed
        switch previous {
        case .busy(let exchange):
            // A server may close an idle keep-alive connection just as a request goes out on
            // it. Browsers and HTTP stacks resend such a request once on a new connection;
            // so does the pool, so the visitor does not pay an SDK retry for a race that is
            // the transport's.
            let staleKeepAlive = exchangesServed > 0 && !receivedResponseBytes && !exchange.resent
            pool.exchangeEnded(
                exchange, on: self,
                result: .failure(error.map(LiveTransportErrors.map) ?? .connectionReset),
                mayResend: staleKeepAlive)
        case .connecting, .idle, .closed:
            pool.connectionClosed(self)
        }
    }
}

/// Writes a connection's requests and reads its responses, one at a time.
final class LiveHTTP1Handler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let connection: LiveConnection
    private var context: ChannelHandlerContext?
    private var parser = HTTP1ResponseParser()
    private var pending: ByteBuffer?
    private var failure: (any Error)?

    init(connection: LiveConnection) {
        self.connection = connection
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func send(_ bytes: ByteBuffer, pool: LiveConnectionPool) {
        guard let context else { return }
        context.write(wrapOutboundOut(bytes), promise: nil)
        pool.flushAtEndOfTick(self)
    }

    func flush() {
        context?.flush()
    }

    func close() {
        context?.close(promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        connection.progressed()
        var bytes = unwrapInboundIn(data)
        if var earlier = pending {
            earlier.writeBuffer(&bytes)
            bytes = earlier
            pending = nil
        }
        do {
            while let response = try parser.parse(&bytes) {
                connection.responded(
                    IncomingResponse(head: response.head, body: response.body), keepAlive: response.keepAlive)
                guard bytes.readableBytes > 0, context.channel.isActive else { break }
            }
        } catch {
            failure = error
            context.close(promise: nil)
            return
        }
        if bytes.readableBytes > 0 { pending = bytes }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if failure == nil { failure = error }
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if failure == nil, let response = parser.connectionClosed() {
            connection.responded(
                IncomingResponse(head: response.head, body: response.body), keepAlive: false)
        }
        connection.ended(error: failure, receivedResponseBytes: parser.hasPartialResponse || pending != nil)
        self.context = nil
    }
}
