import NIOCore
import NIOTLS
import QueueClientCore

/// A TLS connection that speaks what ALPN agreed on: h2 (`H2Session` and its frame codec)
/// when the server picked `h2`, HTTP/1.1 (`HTTP1ExchangeReader`) otherwise, decided
/// once when the handshake completes. A request handed over before then waits for it, as its
/// bytes would wait in the TLS handler anyway. `requiresH2` (`client.http: h2`): a server
/// that does not pick `h2` fails the connection, in words.
///
/// The pool sees one `PooledConnection` either way: an h2 connection carries its owner's
/// requests one stream at a time, so its answers, its reuse and its end reach the pool as an
/// HTTP/1.1 connection's do.
final class LiveTLSConnection: ExchangeReaderConnection, ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let id: ConnectionID
    let pool: LiveConnectionPool
    let requiresH2: Bool
    /// Where the connection counts what it spoke, as endpoint `endpoint`: once, when it is
    /// closed or when it ends, whichever comes first (`countSpoken`).
    private let tally: (tally: ConnectionProtocolTally, endpoint: Int)?
    private var counted = false
    /// Requests written on it (h2: streams opened).
    private var requests = 0
    /// Told when the TLS handshake completes (a visitor's handshakes are counted by platform).
    var handshakeCompleted: (() -> Void)?
    /// The handshake's costs and the HTTP/1.1 side (used for timing in h2 too).
    var reader: HTTP1ExchangeReader
    private var context: ChannelHandlerContext?
    private var mode = Mode.negotiating(nil)
    /// The server did not process the request in flight (h2 REFUSED_STREAM, or above GOAWAY's
    /// last stream): the pool may send it again once.
    private var unprocessed = false
    /// The server reset the stream in flight after it may have processed it: not sent again.
    private var streamFailed = false

    private enum Mode {
        /// The handshake has not completed; the request handed over meanwhile, if one was.
        case negotiating(Pending?)
        case http1
        case h2(H2Session)
    }

    /// A request waiting for ALPN's answer: its HTTP/1.1 bytes, encoded when handed over
    /// (with the pool's shared heads), and the exchange, framed again if h2 is agreed.
    private struct Pending {
        var exchange: LiveExchange
        var defaultAuthority: String
        var bytes: ByteBuffer
        var keep: Bool
        var flushed = false
    }

    init(
        pool: LiveConnectionPool, id: ConnectionID, requiresH2: Bool,
        tally: (tally: ConnectionProtocolTally, endpoint: Int)? = nil
    ) {
        self.pool = pool
        self.id = id
        self.requiresH2 = requiresH2
        self.tally = tally
        reader = HTTP1ExchangeReader(at: pool.clock.now)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    var channel: (any Channel)? { context?.channel }

    /// The protocol the connection speaks once negotiated ("h2", "http/1.1"); nil before.
    var negotiatedProtocol: String? {
        switch mode {
        case .negotiating: nil
        case .http1: "http/1.1"
        case .h2: "h2"
        }
    }

    // MARK: - PooledConnection

    func write(
        _ exchange: borrowing LiveExchange, defaultAuthority: String, heads: inout EncodedHeads, keep: Bool,
        at now: RunInstant
    ) {
        requests += 1
        switch mode {
        case .negotiating:
            let bytes = exchange.encodeRequest(
                defaultAuthority: defaultAuthority, heads: &heads, reusing: keep ? reader.takeSpareBuffer() : nil)
            reader.wrote(bytes, keep: false, at: now)
            mode = .negotiating(
                Pending(exchange: copy exchange, defaultAuthority: defaultAuthority, bytes: bytes, keep: keep))
        case .http1:
            let bytes = exchange.encodeRequest(
                defaultAuthority: defaultAuthority, heads: &heads, reusing: keep ? reader.takeSpareBuffer() : nil)
            reader.wrote(bytes, keep: keep, at: now)
            context?.write(wrapOutboundOut(bytes), promise: nil)
        case .h2(let session):
            reader.progressed(at: now)
            session.send(exchange.request, defaultAuthority: defaultAuthority)
        }
    }

    func flush() {
        switch mode {
        case .negotiating(var pending?):
            pending.flushed = true
            mode = .negotiating(pending)
        case .negotiating(nil), .http1:
            context?.flush()
        case .h2(let session):
            session.flush()
        }
    }

    func close() {
        countSpoken()
        context?.close(promise: nil)
    }

    /// Counts the connection in the run's tally, once. Also from `close()`: a TLS connection
    /// ends only after the server's close_notify, and a run reads the tally as soon as its
    /// loops have closed their pools, so the connections still open at the end would be
    /// missing. It carries no request once closed.
    private func countSpoken() {
        // Not yet negotiated: nothing spoken so far (the handshake may still complete).
        guard !counted, let tally, let spoken = negotiatedProtocol else { return }
        counted = true
        tally.tally.connectionEnded(endpoint: tally.endpoint, spoke: spoken, requests: requests)
    }

    // MARK: - The channel

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case TLSUserEvent.handshakeCompleted(let negotiated) = event {
            reader.tlsHandshakeCompleted(at: pool.clock.now)
            handshakeCompleted?()
            negotiate(negotiated, context: context)
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// Sets the connection up for what ALPN agreed on and sends the request that waited.
    private func negotiate(_ negotiated: String?, context: ChannelHandlerContext) {
        guard case .negotiating(let pending) = mode else { return }
        reader.applicationProtocol = negotiated
        guard negotiated == "h2" else {
            if requiresH2 {
                reader.failure = TransportError.connectFailed(
                    "the server did not agree to HTTP/2 (ALPN h2), which client.http: h2 requires")
                context.close(promise: nil)
                return
            }
            mode = .http1
            guard let pending else { return }
            reader.wrote(pending.bytes, keep: pending.keep, at: pool.clock.now)
            context.write(wrapOutboundOut(pending.bytes), promise: nil)
            if pending.flushed { context.flush() }
            return
        }
        // The connection's SETTINGS and window are its first request's stack's (a shared
        // connection warmed ahead of any request takes CFNetwork's).
        let stack = pending.map { H2Stack.of($0.exchange.request) } ?? .cfNetwork
        let session = H2Session(stack: stack, events: self, allocator: context.channel.allocator)
        do {
            try context.pipeline.syncOperations.addHandler(session, position: .after(self))
        } catch {
            reader.failure = error
            context.close(promise: nil)
            return
        }
        mode = .h2(session)
        guard let pending else { return }
        session.send(pending.exchange.request, defaultAuthority: pending.defaultAuthority)
        if pending.flushed { session.flush() }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch mode {
        case .h2:
            context.fireChannelRead(data)
        case .http1:
            var bytes = unwrapInboundIn(data)
            let now = pool.clock.now
            switch reader.received(&bytes, at: now) {
            case .partial: return
            case .answered(let response, let reusable):
                pool.exchangeAnswered(on: id, response, reusable: reusable, at: now)
            case .mustClose: close()
            }
        case .negotiating:
            // Nothing is read before the handshake completes (the TLS handler holds it).
            close()
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        context.fireChannelReadComplete()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if reader.failure == nil { reader.failure = error }
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        countSpoken()
        let now = pool.clock.now
        switch mode {
        case .h2(let session):
            context.fireChannelInactive()
            pool.connectionEnded(
                id, error: reader.failure, receivedResponseBytes: session.receivedAnswerBytes || streamFailed,
                unprocessed: unprocessed)
        case .http1, .negotiating:
            let (answer, partial) = reader.connectionClosed()
            if let answer { pool.exchangeAnswered(on: id, answer, reusable: false, at: now) }
            pool.connectionEnded(id, error: reader.failure, receivedResponseBytes: partial)
        }
        self.context = nil
    }
}

extension LiveTLSConnection: H2SessionEvents {
    func h2Answered(_ response: IncomingResponse, reusable: Bool) {
        pool.exchangeAnswered(on: id, response, reusable: reusable, at: pool.clock.now)
    }

    func h2Unprocessed(_ reason: TransportError) {
        unprocessed = true
        if reader.failure == nil { reader.failure = reason }
        close()
    }

    func h2StreamFailed(_ reason: TransportError) {
        streamFailed = true
        if reader.failure == nil { reader.failure = reason }
        close()
    }

    func h2GoingAway() {
        close()
    }

    func h2Progressed() {
        reader.progressed(at: pool.clock.now)
    }
}
