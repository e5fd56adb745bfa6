import NIOCore
import QueueClientCore

/// The HTTP/1.1 side of one keep-alive connection, whatever carries its bytes: the request in
/// flight, its answer read with `HTTP1ResponseParser`, and the connection's handshake costs.
/// One exchange at a time, no pipelining. Both HTTP/1.1 connection kinds hold one (a SwiftNIO
/// channel's `LiveHTTP1Handler`, the plain loop's `PlainHTTPConnection`): they differ only in
/// how bytes move; what the bytes mean is decided here, once. It calls nobody: it answers
/// what happened and its connection acts (`HTTP1Connection`).
struct HTTP1ExchangeReader {
    private var parser = HTTP1ResponseParser()
    /// The start of an answer's head that has not all arrived yet.
    private var pending: ByteBuffer?
    /// A request is written and its answer not yet read.
    private(set) var awaitingAnswer = false
    /// The last request's bytes (`wrote(_:keep:at:)`).
    private var spareBuffer: ByteBuffer?
    /// Why the connection ended, when it was an error.
    var failure: (any Error)?

    /// When the exchange in flight last made progress: its request written, or bytes of its
    /// answer read.
    private(set) var lastProgress: RunInstant
    /// The exchange the connection was opened for: its answer carries the handshake.
    var firstExchange: ExchangeID?
    /// How long the TCP connect took, and when it completed (the TLS handshake starts then).
    private var connectDuration: Duration?
    private var connectedAt: RunInstant?
    private var tlsDuration: Duration?
    /// What ALPN agreed on ("h2", "http/1.1"; nil: nothing offered or agreed, or plain HTTP).
    var applicationProtocol: String?

    init(at now: RunInstant) {
        lastProgress = now
    }

    /// What bytes read from the connection came to.
    enum Reading {
        /// Not a whole answer yet.
        case partial
        /// The answer; `reusable`: the connection may carry another exchange.
        case answered(IncomingResponse, reusable: Bool)
        /// Bytes nobody asked for, or an answer that does not parse (`failure` says why):
        /// the connection must close.
        case mustClose
    }

    mutating func connected(after duration: Duration, at now: RunInstant) {
        connectDuration = duration
        connectedAt = now
    }

    mutating func tlsHandshakeCompleted(at now: RunInstant) {
        if let connectedAt { tlsDuration = now - connectedAt }
    }

    mutating func takeHandshake() -> Handshake? {
        guard firstExchange != nil, let connectDuration else { return nil }
        firstExchange = nil
        return Handshake(connect: connectDuration, tls: tlsDuration, applicationProtocol: applicationProtocol)
    }

    /// The exchange in flight made progress at `now` another way than through `received`
    /// (an h2 frame of its answer, its request framed).
    mutating func progressed(at now: RunInstant) {
        lastProgress = now
    }

    /// A request's bytes were handed to the transport at `now`.
    mutating func wrote(_ bytes: ByteBuffer, keep: Bool, at now: RunInstant) {
        awaitingAnswer = true
        lastProgress = now
        if keep { spareBuffer = bytes }
    }

    mutating func takeSpareBuffer() -> ByteBuffer? {
        spareBuffer.take()
    }

    /// Bytes read at `now`. A partial head is copied: the buffer read into is the transport's
    /// to reuse.
    mutating func received(_ bytes: inout ByteBuffer, at now: RunInstant) -> Reading {
        lastProgress = now
        // Bytes nobody asked for (a server's 408 on an idle connection, say): whatever they
        // are, they must not be read as the next request's answer.
        guard awaitingAnswer else { return .mustClose }
        if var earlier = pending {
            earlier.writeBuffer(&bytes)
            bytes = earlier
            pending = nil
        }
        let response: HTTP1ResponseParser.Response
        do {
            guard let complete = try parser.parse(&bytes) else {
                if bytes.readableBytes > 0 { pending = ByteBuffer(bytes.readableBytesView) }
                return .partial
            }
            response = complete
        } catch {
            failure = error
            return .mustClose
        }
        awaitingAnswer = false
        // Bytes past the answer were never asked for (no request is pipelined): the
        // connection is not trusted with another exchange.
        let reusable = response.keepAlive && bytes.readableBytes == 0
        return .answered(IncomingResponse(head: response.head, body: response.body), reusable: reusable)
    }

    /// The connection closed: an answer that ends with the connection (no length), if one was
    /// awaited and is whole, and whether part of an answer had come.
    mutating func connectionClosed() -> (answer: IncomingResponse?, receivedResponseBytes: Bool) {
        var answer: IncomingResponse?
        if failure == nil, awaitingAnswer, let response = parser.connectionClosed() {
            awaitingAnswer = false
            answer = IncomingResponse(head: response.head, body: response.body)
        }
        return (answer, parser.hasPartialResponse || pending != nil)
    }
}

/// A `PooledConnection` that times its connect, handshake and progress with an
/// `HTTP1ExchangeReader`: every connection kind (the two HTTP/1.1 ones and `LiveTLSConnection`,
/// which may speak h2) answers the pool's questions about them here, once.
protocol ExchangeReaderConnection: PooledConnection {
    /// Strong: the pool forgets the connection when it has ended, which ends the cycle.
    var pool: LiveConnectionPool { get }
    var reader: HTTP1ExchangeReader { get set }
}

extension ExchangeReaderConnection {
    var lastProgress: RunInstant { reader.lastProgress }

    func connected(after duration: Duration) {
        reader.connected(after: duration, at: pool.clock.now)
    }

    func markFirstExchange(_ exchange: ExchangeID) {
        reader.firstExchange = exchange
    }

    func takeHandshake() -> Handshake? {
        reader.takeHandshake()
    }

    /// h2 when ALPN agreed on it; HTTP/1.1 otherwise (plain HTTP has no ALPN).
    var spokenProtocol: SpokenProtocol {
        reader.applicationProtocol == "h2" ? .h2 : .http1
    }
}

/// A `PooledConnection` speaking HTTP/1.1 through its `HTTP1ExchangeReader`: the pool-facing
/// part both HTTP/1.1 connection kinds share, written once here. A conformer moves bytes
/// (`send`, `flush`, `close`) and tells `received(_:at:)` and `ended()` what its transport saw.
protocol HTTP1Connection: ExchangeReaderConnection {
    /// Hands a request's bytes to the transport (sent at the next `flush`).
    func send(_ bytes: ByteBuffer)
}

extension HTTP1Connection {
    func takeSpareBuffer() -> ByteBuffer? {
        reader.takeSpareBuffer()
    }

    func write(
        _ exchange: borrowing LiveExchange, defaultAuthority: String, heads: inout EncodedHeads, keep: Bool,
        at now: RunInstant
    ) {
        let bytes = exchange.encodeRequest(
            defaultAuthority: defaultAuthority, heads: &heads, reusing: keep ? takeSpareBuffer() : nil)
        write(bytes, keep: keep, at: now)
    }

    /// Writes a request's bytes, sent at the next `flush`; `keep`: hold the buffer for the next
    /// request (`takeSpareBuffer`).
    func write(_ bytes: ByteBuffer, keep: Bool, at now: RunInstant) {
        reader.wrote(bytes, keep: keep, at: now)
        send(bytes)
    }

    /// The TLS handshake completed.
    func tlsHandshakeCompleted() {
        reader.tlsHandshakeCompleted(at: pool.clock.now)
    }

    /// Bytes read from the connection at `now`.
    func received(_ bytes: inout ByteBuffer, at now: RunInstant) {
        switch reader.received(&bytes, at: now) {
        case .partial:
            return
        case .answered(let response, let reusable):
            pool.exchangeAnswered(on: id, response, reusable: reusable, at: now)
        case .mustClose:
            close()
        }
    }

    /// The connection is closed (by either side) or failed (`reader.failure`).
    func ended() {
        let (answer, partial) = reader.connectionClosed()
        if let answer { pool.exchangeAnswered(on: id, answer, reusable: false, at: pool.clock.now) }
        pool.connectionEnded(id, error: reader.failure, receivedResponseBytes: partial)
    }
}
