import Foundation
import NIOCore
import NIOPosix
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A loopback HTTP/1.1 server for the transport behaviour suite, scripted per test: what it
/// answers to each request (by number, with the size of the request's body), whether it holds
/// its reads for a while first (so the client's socket fills and its sends hit `EAGAIN`), or
/// resets each connection as soon as it is accepted. It counts what it saw, so a test reads
/// what the client's pool did on the wire.
final class TransportBehaviourServer: Sendable {
    enum Reply: Sendable {
        /// Write these bytes; close afterwards when `close` is set.
        case bytes([UInt8], close: Bool = false)
        /// Write the bytes, then reset the connection (SO_LINGER 0) without waiting.
        case bytesThenReset([UInt8])
    }

    struct Script: Sendable {
        var reply: @Sendable (_ request: Int, _ bodyBytes: Int) -> Reply
        /// Reads nothing of a new connection for this long.
        var holdReads: TimeAmount?
        /// Resets every connection once accepted, before reading anything.
        var resetOnAccept = false
    }

    /// What the server saw: connections accepted and ended, requests read whole.
    struct Counts: Sendable, Equatable {
        var accepted = 0
        var ended = 0
        var requests = 0
    }

    private let channel: any Channel
    private let counts: CountsBox
    let port: Int

    var seen: Counts { counts.counts.withLock { $0 } }

    private init(channel: any Channel, counts: CountsBox) {
        self.channel = channel
        self.counts = counts
        port = channel.localAddress?.port ?? 0
    }

    static func with<T>(
        _ script: Script, _ body: (TransportBehaviourServer) async throws -> T
    ) async throws -> T {
        let box = CountsBox()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(ChannelOptions.autoRead, value: script.holdReads == nil)
            .childChannelInitializer { channel in
                box.counts.withLock { $0.accepted += 1 }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ScriptedHandler(script: script, counts: box))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let server = TransportBehaviourServer(channel: channel, counts: box)
        do {
            let value = try await body(server)
            try? await channel.close()
            return value
        } catch {
            try? await channel.close()
            throw error
        }
    }

    /// Waits (in steps of 10 ms, at most `limit` of them) until `done` holds for what the
    /// server saw; whether it did.
    func waitUntil(limit: Int = 300, _ done: (Counts) -> Bool) async throws -> Bool {
        for _ in 0..<limit {
            if done(seen) { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return done(seen)
    }

    /// A port nothing listens on: one just freed.
    static func freedPort() async throws -> Int {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0).get()
        let port = channel.localAddress?.port ?? 0
        try await channel.close()
        return port
    }

    /// `HTTP/1.1 200 OK` with `body` and its length.
    static func answer(_ body: [UInt8], close: Bool = false) -> [UInt8] {
        let head = "HTTP/1.1 200 OK\r\nContent-Length: \(body.count)\r\n\(close ? "Connection: close\r\n" : "")\r\n"
        return Array(head.utf8) + body
    }
}

/// What the server and its handlers count, shared (`Mutex` is not copyable).
final class CountsBox: Sendable {
    let counts = Mutex(TransportBehaviourServer.Counts())
}

/// Reads requests (a head, then `Content-Length` bytes of body, counted, not kept) and
/// answers each as the script says.
private final class ScriptedHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let script: TransportBehaviourServer.Script
    private let counts: CountsBox
    private var head: [UInt8] = []
    /// Body bytes still to come of the request being read, and how many came.
    private var bodyLeft: Int?
    private var bodyRead = 0

    init(script: TransportBehaviourServer.Script, counts: CountsBox) {
        self.script = script
        self.counts = counts
    }

    func channelActive(context: ChannelHandlerContext) {
        if script.resetOnAccept {
            reset(context)
            return
        }
        if let hold = script.holdReads {
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            context.eventLoop.assumeIsolated().scheduleTask(in: hold) {
                let context = bound.value
                context.channel.setOption(ChannelOptions.autoRead, value: true).whenComplete { _ in }
                context.read()
            }
        }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        counts.counts.withLock { $0.ended += 1 }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        while bytes.readableBytes > 0 {
            if let left = bodyLeft {
                let taken = min(left, bytes.readableBytes)
                bytes.moveReaderIndex(forwardBy: taken)
                bodyRead += taken
                bodyLeft = left - taken
            } else {
                head.append(bytes.readInteger(as: UInt8.self)!)
                if head.suffix(4) == Array("\r\n\r\n".utf8) { bodyLeft = Self.contentLength(of: head) }
            }
            if bodyLeft == 0 { requestRead(context) }
        }
    }

    private func requestRead(_ context: ChannelHandlerContext) {
        let number = counts.counts.withLock { counts in
            counts.requests += 1
            return counts.requests
        }
        let body = bodyRead
        (head, bodyLeft, bodyRead) = ([], nil, 0)
        switch script.reply(number, body) {
        case .bytes(let answer, let close):
            let written = context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: answer)))
            if close { written.assumeIsolated().whenComplete { _ in context.close(promise: nil) } }
        case .bytesThenReset(let answer):
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: answer)), promise: nil)
            reset(context)
        }
    }

    /// Closes with SO_LINGER 0: the peer gets a reset, not a FIN.
    private func reset(_ context: ChannelHandlerContext) {
        let channel = context.channel
        guard let socket = channel as? any SocketOptionProvider else {
            preconditionFailure("a server connection is a socket")
        }
        socket.setSoLinger(linger(l_onoff: 1, l_linger: 0)).whenComplete { _ in channel.close(promise: nil) }
    }

    private static func contentLength(of head: [UInt8]) -> Int {
        let text = String(decoding: head, as: UTF8.self).lowercased()
        guard let range = text.range(of: "content-length:") else { return 0 }
        // "\r\n" is one Character: the line ends at the first newline of either kind.
        let rest = text[range.upperBound...].prefix { !$0.isNewline }
        return Int(rest.trimmingCharacters(in: .whitespaces)) ?? 0
    }
}
