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

/// One request of one visitor, as the pool carries it.
struct LiveExchange {
    var slot: Int
    var serial: UInt32
    var request: OutgoingRequest
    /// Sent again once already (after a stale keep-alive connection): never twice.
    var resent = false
}

/// A request as HTTP/1.1 bytes.
enum LiveRequestEncoding {
    /// `Host` is the request's own authority (the waiting-room host, even when the connection
    /// goes elsewhere: `target.endpoint`'s connect-to).
    static func encode(
        _ request: OutgoingRequest, defaultAuthority: String, allocator: ByteBufferAllocator
    ) -> ByteBuffer {
        let head = request.head
        var size = 64 + (head.path?.utf8.count ?? 1) + (head.authority ?? defaultAuthority).utf8.count
        for field in head.headerFields { size += field.name.rawName.utf8.count + field.value.utf8.count + 4 }
        var buffer = allocator.buffer(capacity: size + (request.body?.count ?? 0))
        writeHead(head, defaultAuthority: defaultAuthority, into: &buffer)
        writeFraming(body: request.body, into: &buffer)
        return buffer
    }

    /// The same bytes as `encode`, with the head taken from `heads` when the request carries a
    /// group's shared enqueue head (encoded once per group and pool, not once per visitor).
    static func encode(
        _ request: OutgoingRequest, defaultAuthority: String, allocator: ByteBufferAllocator,
        heads: inout EncodedHeads
    ) -> ByteBuffer {
        guard let shared = request.sharedHead else {
            return encode(request, defaultAuthority: defaultAuthority, allocator: allocator)
        }
        let head = heads.head(for: shared) {
            var buffer = allocator.buffer(capacity: 256)
            writeHead(request.head, defaultAuthority: defaultAuthority, into: &buffer)
            return buffer
        }
        var buffer = allocator.buffer(capacity: head.readableBytes + 32 + (request.body?.count ?? 0))
        buffer.writeImmutableBuffer(head)
        writeFraming(body: request.body, into: &buffer)
        return buffer
    }

    /// The request line, `Host` and the machine's header fields, each line with its CRLF.
    private static func writeHead(_ head: HTTPRequest, defaultAuthority: String, into buffer: inout ByteBuffer) {
        buffer.writeString(head.method.rawValue)
        buffer.writeStaticString(" ")
        buffer.writeString(head.path ?? "/")
        buffer.writeStaticString(" HTTP/1.1\r\nHost: ")
        buffer.writeString(head.authority ?? defaultAuthority)
        buffer.writeStaticString("\r\n")
        for field in head.headerFields {
            // The transport owns framing: a machine's own Host or Content-Length is not sent twice.
            let name = field.name
            if name == .contentLength || name == Self.hostName { continue }
            buffer.writeString(name.rawName)
            buffer.writeStaticString(": ")
            buffer.writeString(field.value)
            buffer.writeStaticString("\r\n")
        }
    }

    /// `Content-Length` and the body when there is one, then the blank line.
    private static func writeFraming(body: [UInt8]?, into buffer: inout ByteBuffer) {
        guard let body else {
            buffer.writeStaticString("\r\n")
            return
        }
        buffer.writeStaticString("Content-Length: ")
        writeDecimal(body.count, into: &buffer)
        buffer.writeStaticString("\r\n\r\n")
        buffer.writeBytes(body)
    }

    /// `value` (≥ 0) in decimal digits, without making a `String` of it.
    private static func writeDecimal(_ value: Int, into buffer: inout ByteBuffer) {
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: 20) { out in
            var remaining = max(0, value)
            var count = 1
            var probe = remaining
            while probe >= 10 {
                probe /= 10
                count += 1
            }
            var index = count
            repeat {
                index -= 1
                out[index] = UInt8(ascii: "0") + UInt8(remaining % 10)
                remaining /= 10
            } while remaining > 0
            return count
        }
    }

    private static let hostName = HTTPField.Name("Host")!
}

/// A pool's encoded enqueue heads, by the shared head (`OutgoingRequest.sharedHead`) they were
/// encoded from: one per group of the run, looked up by identity.
struct EncodedHeads {
    /// More groups than this take turns in the slots (a run has a handful).
    static let capacity = 16
    private var entries: [(template: EnqueueHeaderTemplate, head: ByteBuffer)] = []
    private var nextReplaced = 0

    mutating func head(for template: EnqueueHeaderTemplate, encode: () -> ByteBuffer) -> ByteBuffer {
        for entry in entries where entry.template === template { return entry.head }
        let head = encode()
        if entries.count < Self.capacity {
            entries.append((template, head))
        } else {
            entries[nextReplaced] = (template, head)
            nextReplaced = (nextReplaced + 1) % Self.capacity
        }
        return head
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
