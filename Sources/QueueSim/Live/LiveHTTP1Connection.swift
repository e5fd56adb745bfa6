import NIOCore
import QueueClientCore

/// One keep-alive HTTP/1.1 connection of a loop's pool (`LiveConnectionPool`): it writes the
/// request bytes the pool encoded and reads the answer with `HTTP1ResponseParser`. One
/// exchange at a time, no pipelining, confined to its event loop. Two transports carry it:
/// a SwiftNIO channel (`LiveHTTP1Handler`: TLS, and every run with the embedded room) and a
/// socket on a loop of queuesim's own (`PlainHTTPConnection`: plain HTTP to a real endpoint).
/// They differ only in how bytes move; what the bytes mean is decided here, once.
///
/// It decides nothing about the pool: it reports answers and its end to the pool by its
/// `ConnectionID`, and the pool's state machine decides. It never times itself out either:
/// the loop's calendar holds every exchange's deadline and aborts through the pool.
class LiveHTTP1Connection {
    let id: ConnectionID
    /// Strong: the pool forgets the connection when it has ended, which ends the cycle.
    let pool: LiveConnectionPool
    private var parser = HTTP1ResponseParser()
    /// The start of an answer's head that has not all arrived yet.
    private var pending: ByteBuffer?
    /// Why the connection ended, when it was an error.
    var failure: (any Error)?
    /// A request is written and its answer not yet read.
    private var awaitingAnswer = false
    /// The last request's bytes (`write(_:keep:at:)`).
    private var spareBuffer: ByteBuffer?

    /// When the exchange in flight last made progress: its request written, or bytes of its
    /// answer read (the idle timeout's clock).
    private(set) var lastProgress: RunInstant
    let clock: WallClock
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

    // MARK: - What a transport does

    /// Hands a request's bytes to the transport (sent at the next `flush`).
    func send(_ bytes: ByteBuffer) {
        preconditionFailure("a transport sends")
    }

    /// Sends what `send` handed over.
    func flush() {}

    /// Closes the connection; the transport reports its end with `ended()`.
    func close() {}

    // MARK: - From the pool

    /// The pool saw the connect complete, `duration` after it began.
    final func connected(after duration: Duration) {
        connectDuration = duration
        connectedAt = clock.now
    }

    /// The handshake of the connection's first exchange, once: nil for any later exchange.
    final func takeHandshake() -> Handshake? {
        guard firstExchange != nil, let connectDuration else { return nil }
        firstExchange = nil
        return Handshake(connect: connectDuration, tls: tlsDuration)
    }

    /// Writes a request's bytes; the pool flushes every connection written in a tick of the
    /// loop together, once it ends. `keep`: hold on to the buffer for the next request's bytes
    /// (`takeSpareBuffer`), once the write has let go of it (a shared connection: a visitor's
    /// own idle connection would hold its memory through the wait).
    /// `now`: the pool's reading of the clock for this event.
    final func write(_ bytes: ByteBuffer, keep: Bool, at now: RunInstant) {
        awaitingAnswer = true
        lastProgress = now
        if keep { spareBuffer = bytes }
        send(bytes)
    }

    /// The last request's buffer, for the next one's bytes (nil when there is none).
    final func takeSpareBuffer() -> ByteBuffer? {
        spareBuffer.take()
    }

    // MARK: - From the transport

    /// The TLS handshake completed.
    final func tlsHandshakeCompleted() {
        if let connectedAt { tlsDuration = clock.now - connectedAt }
    }

    /// Bytes read from the connection at `now`.
    final func received(_ bytes: inout ByteBuffer, at now: RunInstant) {
        lastProgress = now
        guard awaitingAnswer else {
            // Bytes nobody asked for (a server's 408 on an idle connection, say): whatever
            // they are, they must not be read as the next request's answer.
            close()
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
                // A copy of its own: the buffer read into is the transport's to reuse.
                if bytes.readableBytes > 0 { pending = ByteBuffer(bytes.readableBytesView) }
                return
            }
            response = complete
        } catch {
            failure = error
            close()
            return
        }
        awaitingAnswer = false
        // Bytes past the answer were never asked for (no request is pipelined): the
        // connection is not trusted with another exchange.
        let reusable = response.keepAlive && bytes.readableBytes == 0
        pool.exchangeAnswered(
            on: id, IncomingResponse(head: response.head, body: response.body), reusable: reusable, at: now)
    }

    /// The connection is closed (by either side) or failed (`failure`).
    final func ended() {
        if failure == nil, awaitingAnswer, let response = parser.connectionClosed() {
            awaitingAnswer = false
            pool.exchangeAnswered(
                on: id, IncomingResponse(head: response.head, body: response.body), reusable: false, at: clock.now)
        }
        pool.connectionEnded(
            id, error: failure, receivedResponseBytes: parser.hasPartialResponse || pending != nil)
    }
}
