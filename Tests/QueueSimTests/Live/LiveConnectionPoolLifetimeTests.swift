import HTTPTypes
import NIOCore
import NIOPosix
import QueueClientCore
import StandInServers
import Testing

@testable import QueueSim

/// The pool keeps the bootstraps it reuses, and their initializers must not keep the pool: a
/// pool that has connected is released once its owner is done with it and its connections are
/// closed (the reachability probe makes one per run, a test process many).
@Suite("Live connection pool: lifetime", .timeLimit(.minutes(1)))
struct LiveConnectionPoolLifetimeTests {
    /// What the test sees of the pool: weakly, and the answer's status.
    final class Watch {
        weak var pool: LiveConnectionPool?
        var status: Int?
    }

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

    @Test("a pool that connected is released once its connections are closed")
    func releasedAfterUse() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            try await ScriptedQueueItServer.with(script: { _ in StandInAnswer(status: 204) }) { server in
                let loop = group.next()
                let endpoint = LiveEndpoint(
                    address: try SocketAddress(ipAddress: "127.0.0.1", port: server.port),
                    authority: "127.0.0.1:\(server.port)", tls: nil, serverHostname: nil)
                let watch = try await loop.flatSubmit { () -> EventLoopFuture<NIOLoopBound<Watch>> in
                    let watch = Watch()
                    let pool = LiveConnectionPool(loop: loop, endpoint: endpoint, limit: 1, connectTimeout: .seconds(5))
                    let owner = Owner(answered: loop.makePromise())
                    pool.owner = owner
                    watch.pool = pool
                    pool.send(
                        LiveExchange(
                            slot: 0, serial: 1,
                            request: OutgoingRequest(
                                head: HTTPRequest(method: .get, scheme: "http", authority: nil, path: "/lifetime"))))
                    return owner.answered.futureResult.assumeIsolated().map { status in
                        withExtendedLifetime(owner) { pool.closeAll() }
                        watch.status = status
                        return NIOLoopBound(watch, eventLoop: loop)
                    }.nonisolated()
                }.get()
                #expect(try await loop.submit { watch.value.status }.get() == 204)
                // The channel's close completes on the loop a moment later; bounded: 2 s at most.
                var released = false
                for _ in 0..<200 {
                    released = try await loop.submit { watch.value.pool == nil }.get()
                    if released { break }
                    try await Task.sleep(for: .milliseconds(10))
                }
                #expect(released, "the pool outlived its connections: something it keeps holds it")
            }
        } catch {
            try await group.shutdownGracefully()
            throw error
        }
        try await group.shutdownGracefully()
    }
}
