import HTTPTypes
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import QueueClientCore
import Testing

@testable import QueueSim

/// Android's enqueue connection on a real socket: after the answer, and after its visitor has
/// ended, it stays open until the server closes it (or the pool's bound, or the run's end),
/// against a loopback stand-in that counts the connections open on its side.
@Suite("Held Android connections on loopback", .serialized, .timeLimit(.minutes(1)))
struct HeldConnectionLoopbackTests {
    /// Answers every request `200 {}` on a keep-alive connection; counts the connections open
    /// and closes them all when told (its idle timeout).
    final class CountingServer: Sendable {
        private let open = NIOLockedValueBox<[any Channel]>([])
        private let channel: any Channel
        let port: Int

        init(group: any EventLoopGroup) async throws {
            let open = open
            channel = try await ServerBootstrap(group: group)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in
                    open.withLockedValue { $0.append(channel) }
                    channel.closeFuture.whenComplete { _ in
                        open.withLockedValue { $0.removeAll { $0 === channel } }
                    }
                    return channel.pipeline.addHandler(Answerer())
                }
                .bind(host: "127.0.0.1", port: 0).get()
            port = channel.localAddress?.port ?? 0
        }

        var openConnections: Int { open.withLockedValue { $0.count } }

        /// Closes every connection, as a server's idle timeout does.
        func closeAll() {
            for channel in open.withLockedValue({ $0 }) { channel.close(promise: nil) }
        }

        func shutdown() async throws {
            closeAll()
            try await channel.close()
        }
    }

    /// Answers each request's head (a request without a body: the test sends GETs) at once.
    final class Answerer: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let text = String(buffer: unwrapInboundIn(data))
            guard text.contains("\r\n\r\n") else { return }
            let answer = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: application/json\r\n\r\n{}"
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: answer)), promise: nil)
        }
    }

    static let visitor = ConnectionOwner(visitor: 1, role: .enqueue, endpoint: 0)

    /// Sends one Android enqueue call on a new pool and waits for its answer; the pool, the
    /// owner to keep while the pool lives.
    static func answeredAndroidCall(
        on loop: any EventLoop, port: Int, lifetime: IdleLifetime
    ) async throws -> (NIOLoopBound<LiveConnectionPool>, NIOLoopBound<LoopbackPoolFixture.Owner>) {
        let endpoint = LiveEndpoint(
            address: try SocketAddress(ipAddress: "127.0.0.1", port: port), authority: "127.0.0.1:\(port)",
            tls: nil, serverHostname: nil)
        let (pool, owner, answered) = try await loop.submit {
            let pool = LiveConnectionPool(
                connections: NIOConnectionFactory(loop: loop), endpoint: endpoint, limit: 10,
                connectTimeout: .seconds(5))
            let owner = LoopbackPoolFixture.Owner(answered: loop.makePromise())
            pool.owner = owner
            let exchange = LiveExchange(
                slot: 0, serial: 1,
                request: OutgoingRequest(head: HTTPRequest(method: .get, scheme: "http", authority: nil, path: "/e")),
                owner: visitor, oneUse: true)
            exchange.idleLifetime = lifetime
            pool.send(exchange)
            return (
                NIOLoopBound(pool, eventLoop: loop), NIOLoopBound(owner, eventLoop: loop), owner.answered.futureResult
            )
        }.get()
        #expect(try await answered.get() == 200)
        return (pool, owner)
    }

    /// Waits, 2 s at most, until `condition` holds; whether it did.
    static func eventually(_ condition: () async throws -> Bool) async throws -> Bool {
        for _ in 0..<200 {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return try await condition()
    }

    static func withServer(_ body: (any EventLoop, CountingServer) async throws -> Void) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let server = try await CountingServer(group: MultiThreadedEventLoopGroup.singleton)
        do {
            try await body(group.next(), server)
        } catch {
            try await server.shutdown()
            try await group.shutdownGracefully()
            throw error
        }
        try await server.shutdown()
        try await group.shutdownGracefully()
    }

    @Test("Android: the enqueue connection stays open after the visitor ended, until the server closes it")
    func heldUntilTheServerCloses() async throws {
        try await Self.withServer { loop, server in
            let (pool, owner) = try await Self.answeredAndroidCall(
                on: loop, port: server.port, lifetime: .abandonedAfterUse(IdleLifetime.okHttpKeepAlive))
            try await loop.submit { pool.value.visitorEnded([Self.visitor]) }.get()
            // Still open a while after the visitor's end (it closed at once before the pool held it).
            try await Task.sleep(for: .milliseconds(300))
            #expect(server.openConnections == 1)
            #expect(try await loop.submit { pool.value.heldIdle.level }.get() == 1)
            server.closeAll()
            #expect(try await Self.eventually { try await loop.submit { pool.value.heldIdle.level }.get() == 0 })
            #expect(server.openConnections == 0)
            try await loop.submit {
                withExtendedLifetime(owner.value) { pool.value.closeAll() }
                pool.value.owner = nil
            }.get()
        }
    }

    @Test("Android: a held connection closes when its bound passes; the run's end closes the rest")
    func heldUntilItsBoundOrTheEnd() async throws {
        try await Self.withServer { loop, server in
            let (bounded, boundedOwner) = try await Self.answeredAndroidCall(
                on: loop, port: server.port, lifetime: .abandonedAfterUse(.milliseconds(200)))
            let (kept, keptOwner) = try await Self.answeredAndroidCall(
                on: loop, port: server.port, lifetime: .abandonedAfterUse(IdleLifetime.okHttpKeepAlive))
            #expect(server.openConnections == 2)
            #expect(try await Self.eventually { server.openConnections == 1 }, "the bounded one closes on time")
            #expect(try await loop.submit { bounded.value.heldIdle.level }.get() == 0)
            #expect(try await loop.submit { kept.value.heldIdle.level }.get() == 1)
            try await loop.submit {
                withExtendedLifetime((boundedOwner.value, keptOwner.value)) {
                    bounded.value.closeAll()
                    kept.value.closeAll()
                }
                bounded.value.owner = nil
                kept.value.owner = nil
            }.get()
            #expect(try await Self.eventually { server.openConnections == 0 }, "the run's end closes what is held")
            #expect(try await loop.submit { kept.value.heldIdle.peak }.get() == 1)
        }
    }
}
