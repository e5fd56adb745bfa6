import NIOCore
import Testing

@testable import QueueSim

#if canImport(Glibc)
    import Glibc
#endif

/// A visitor's request leaves at once (Nagle's algorithm off, as on a phone's HTTP stack), and
/// the pool sets nothing else on the socket: `.socketOption(.tcp_nodelay)` once named level
/// SOL_SOCKET, where option 1 is SO_DEBUG: it needs CAP_NET_ADMIN, so for any user but root
/// every connection failed (EACCES); for root it was set, a wasted syscall per connection.
@Suite("Live connection pool: socket options", .timeLimit(.minutes(1)))
struct LiveSocketOptionsTests {
    @Test("a pool's connection has TCP_NODELAY on and SO_DEBUG off")
    func noDelayNotDebug() async throws {
        try await LoopbackPoolFixture.withStandIn { loop, endpoint in
            let options = try await loop.flatSubmit { () -> EventLoopFuture<[SocketOptionValue]> in
                let factory = NIOConnectionFactory(loop: loop)
                var channels: [any Channel] = []
                factory.established = { handler in handler.channel.map { channels.append($0) } }
                let (pool, owner) = LoopbackPoolFixture.poolSendingOne(
                    on: loop, to: endpoint, path: "/options", factory: factory)
                return owner.answered.futureResult.assumeIsolated().map { status -> [SocketOptionValue] in
                    defer { withExtendedLifetime(owner) { pool.closeAll() } }
                    guard status == 204, let channel = channels.first,
                        let options = try? channel.syncOptions
                    else { return [] }
                    let noDelay = (try? options.getOption(.tcpOption(.tcp_nodelay))) ?? -1
                    let debugOption = ChannelOptions.socketOption(NIOBSDSocket.Option(rawValue: SO_DEBUG))
                    let debug = (try? options.getOption(debugOption)) ?? -1
                    return [noDelay, debug]
                }.nonisolated()
            }.get()
            #expect(options == [1, 0])
        }
    }
}
