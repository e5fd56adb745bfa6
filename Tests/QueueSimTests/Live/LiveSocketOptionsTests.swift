import HTTPTypes
import NIOCore
import NIOPosix
import QueueClientCore
import StandInServers
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
    final class Owner: LiveExchangeOwner {
        let answered: EventLoopPromise<Int>
        init(answered: EventLoopPromise<Int>) { self.answered = answered }
        func awaits(slot: Int, serial: UInt32) -> Bool { true }
        func exchangeCompleted(
            slot: Int, serial: UInt32, result: Result<IncomingResponse, TransportError>, handshake: Handshake?
        ) {
            switch result {
            case .success(let response): answered.succeed(response.status.code)
            case .failure(let error): answered.fail(error)
            }
        }
    }

    @Test("a pool's connection has TCP_NODELAY on and SO_DEBUG off")
    func noDelayNotDebug() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            try await ScriptedQueueItServer.with(script: { _ in StandInAnswer(status: 204) }) { server in
                let loop = group.next()
                let endpoint = LiveEndpoint(
                    address: try SocketAddress(ipAddress: "127.0.0.1", port: server.port),
                    authority: "127.0.0.1:\(server.port)", tls: nil, serverHostname: nil)
                let options = try await loop.flatSubmit { () -> EventLoopFuture<[SocketOptionValue]> in
                    let pool = LiveConnectionPool(loop: loop, endpoint: endpoint, limit: 1, connectTimeout: .seconds(5))
                    let owner = Owner(answered: loop.makePromise())
                    pool.owner = owner
                    pool.send(
                        LiveExchange(
                            slot: 0, serial: 1,
                            request: OutgoingRequest(
                                head: HTTPRequest(method: .get, scheme: "http", authority: nil, path: "/options"))))
                    return owner.answered.futureResult.assumeIsolated().map { status -> [SocketOptionValue] in
                        defer { withExtendedLifetime(owner) { pool.closeAll() } }
                        guard status == 204, let channel = pool.establishedChannels.first,
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
        } catch {
            try await group.shutdownGracefully()
            throw error
        }
        try await group.shutdownGracefully()
    }
}
