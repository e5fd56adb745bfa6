import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

/// A loopback server that answers each HTTP/1.1 request with raw bytes chosen by the test:
/// well-formed answers, answers that stall half-way, bodies trickled a byte at a time,
/// connections closed after an answer. It counts connections and requests, so tests can see
/// what the client's pool did.
package final class RawHTTPServer: Sendable {
    package enum Reply: Sendable {
        /// Write these bytes; close the connection afterwards when `close` is set.
        case bytes(String, close: Bool = false)
        /// Write these bytes, then nothing more (the client's timeout must end it).
        case stall(String)
        /// Write `head`, then one byte of body every `interval`, at most `count` bytes.
        case trickle(head: String, interval: TimeAmount, count: Int)
        /// The head at once, then `body` one byte every `interval`.
        case trickleBody(head: String, body: String, interval: TimeAmount)
        /// No answer: the socket is closed under the TLS layer, so a TLS client sees the
        /// connection end without `close_notify` (over plain HTTP, a close).
        case drop
    }

    private let channel: any Channel
    private let counts: Counts
    package let port: Int

    package var connectionsAccepted: Int { counts.connections.withLock { $0 } }
    package var requestsReceived: Int { counts.requests.withLock { $0 } }
    /// Each request's head (request line and header fields), in the order they came.
    package var requestHeads: [String] { counts.heads.withLock { $0 } }

    private init(channel: any Channel, counts: Counts) {
        self.channel = channel
        self.counts = counts
        port = channel.localAddress?.port ?? 0
    }

    /// - Parameter tls: serve TLS with this context (a self-signed certificate, say).
    /// - Parameter host: the loopback address to listen on (`::1` for IPv6).
    package static func start(
        tls: NIOSSLContext? = nil, host: String = "127.0.0.1",
        reply: @escaping @Sendable (_ requestNumber: Int) -> Reply
    ) async throws -> RawHTTPServer {
        let counts = Counts()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.backlog, value: 256)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                counts.connections.withLock { $0 += 1 }
                do {
                    // First, at the socket's end: a close from here bypasses TLS's shutdown.
                    try channel.pipeline.syncOperations.addHandler(SocketCloser())
                    if let tls {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls))
                    }
                    try channel.pipeline.syncOperations.addHandler(RawRequestHandler(counts: counts, reply: reply))
                    return channel.eventLoop.makeSucceededVoidFuture()
                } catch {
                    return channel.eventLoop.makeFailedFuture(error)
                }
            }
            .bind(host: host, port: 0)
            .get()
        return RawHTTPServer(channel: channel, counts: counts)
    }

    package func shutdown() async {
        try? await channel.close()
    }

    /// Runs `body` with a started server and always closes it.
    package static func with<T>(
        tls: NIOSSLContext? = nil, host: String = "127.0.0.1", reply: @escaping @Sendable (Int) -> Reply,
        _ body: (RawHTTPServer) async throws -> T
    ) async throws -> T {
        let server = try await start(tls: tls, host: host, reply: reply)
        do {
            let value = try await body(server)
            await server.shutdown()
            return value
        } catch {
            await server.shutdown()
            throw error
        }
    }

    /// A complete answer with a body and its length.
    package static func answer(status: String = "200 OK", headers: [String] = [], body: String) -> String {
        var text = "HTTP/1.1 \(status)\r\n"
        for header in headers { text += header + "\r\n" }
        text += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body
        return text
    }

    fileprivate final class Counts: Sendable {
        let connections = Mutex(0)
        let requests = Mutex(0)
        let heads = Mutex<[String]>([])
    }
}

/// Reads requests (head, then `Content-Length` bytes of body) and answers each per the script.
/// `@unchecked Sendable`: NIO calls a handler only on its channel's event loop, so its
/// buffer is never touched from two threads.
private final class RawRequestHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let counts: RawHTTPServer.Counts
    private let reply: @Sendable (Int) -> RawHTTPServer.Reply
    private var pending = ByteBuffer()

    init(counts: RawHTTPServer.Counts, reply: @escaping @Sendable (Int) -> RawHTTPServer.Reply) {
        self.counts = counts
        self.reply = reply
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        pending.writeBuffer(&bytes)
        while let length = completeRequestLength() {
            let text = String(buffer: pending)
            let head = text.range(of: "\r\n\r\n").map { String(text[..<$0.lowerBound]) } ?? text
            counts.heads.withLock { $0.append(head) }
            pending.moveReaderIndex(forwardBy: length)
            let number = counts.requests.withLock {
                $0 += 1
                return $0
            }
            answer(reply(number), context: context)
        }
    }

    /// The length of the first whole request in `pending`, if it is all there.
    private func completeRequestLength() -> Int? {
        let text = String(buffer: pending)
        guard let end = text.range(of: "\r\n\r\n") else { return nil }
        let head = text[..<end.lowerBound].lowercased()
        var bodyLength = 0
        for line in head.split(separator: "\r\n") where line.hasPrefix("content-length:") {
            bodyLength = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) ?? 0
        }
        let headLength = text[..<end.upperBound].utf8.count
        return pending.readableBytes >= headLength + bodyLength ? headLength + bodyLength : nil
    }

    private func answer(_ reply: RawHTTPServer.Reply, context: ChannelHandlerContext) {
        let channel = context.channel
        switch reply {
        case .bytes(let text, let close):
            let written = channel.writeAndFlush(ByteBuffer(string: text))
            if close { written.whenComplete { _ in channel.close(promise: nil) } }
        case .stall(let text):
            channel.writeAndFlush(ByteBuffer(string: text), promise: nil)
        case .trickle(let head, let interval, let count):
            channel.writeAndFlush(ByteBuffer(string: head), promise: nil)
            let sent = Mutex(0)
            channel.eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { task in
                let number = sent.withLock {
                    $0 += 1
                    return $0
                }
                guard channel.isActive, number <= count else {
                    task.cancel()
                    return
                }
                channel.writeAndFlush(ByteBuffer(string: "x"), promise: nil)
            }
        case .drop:
            let closer = try? context.pipeline.syncOperations.context(handlerType: SocketCloser.self)
            closer?.close(promise: nil)
        case .trickleBody(let head, let body, let interval):
            channel.writeAndFlush(ByteBuffer(string: head), promise: nil)
            let bytes = Array(body.utf8)
            let sent = Mutex(0)
            channel.eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { task in
                let number = sent.withLock {
                    $0 += 1
                    return $0
                }
                guard channel.isActive, number <= bytes.count else {
                    task.cancel()
                    return
                }
                channel.writeAndFlush(ByteBuffer(bytes: [bytes[number - 1]]), promise: nil)
            }
        }
    }
}

/// Sits at the socket's end of the pipeline: a close issued from its context reaches the socket
/// without passing the TLS handler, which would send `close_notify` first.
private final class SocketCloser: ChannelOutboundHandler, Sendable {
    typealias OutboundIn = ByteBuffer
}
