import HTTPTypes
import NIOCore
import NIOPosix
import QueueClientCore
import StandInServers

@testable import QueueSim

/// A real pool on a real loop, against a loopback stand-in that answers 204: what the pool
/// tests that need sockets (not `EmbeddedChannel`s) share.
enum LoopbackPoolFixture {
    /// The owner of one exchange: its answer's status, or its error.
    final class Owner: LiveExchangeOwner {
        let answered: EventLoopPromise<Int>
        init(answered: EventLoopPromise<Int>) { self.answered = answered }
        func awaits(slot: Int, serial: UInt32) -> Bool { true }
        func exchangeCompleted(
            slot: Int, serial: UInt32, result: Result<IncomingResponse, TransportError>, handshake: Handshake?,
            at now: RunInstant
        ) {
            switch result {
            case .success(let response): answered.succeed(response.status.code)
            case .failure(let error): answered.fail(error)
            }
        }
    }

    /// Runs `body` with a one-thread loop and the stand-in's endpoint; shuts the loop down after.
    static func withStandIn(_ body: (any EventLoop, LiveEndpoint) async throws -> Void) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            try await ScriptedQueueItServer.with(script: { _ in StandInAnswer(status: 204) }) { server in
                let endpoint = LiveEndpoint(
                    address: try SocketAddress(ipAddress: "127.0.0.1", port: server.port),
                    authority: "127.0.0.1:\(server.port)", tls: nil, serverHostname: nil)
                try await body(group.next(), endpoint)
            }
        } catch {
            try await group.shutdownGracefully()
            throw error
        }
        try await group.shutdownGracefully()
    }

    /// A one-connection pool on `loop` that has sent one GET of `path`, and its owner (keep it
    /// while the answer is awaited). On `loop` only.
    /// `factory`: the pool's (SwiftNIO's on `loop` when nil).
    static func poolSendingOne(
        on loop: any EventLoop, to endpoint: LiveEndpoint, path: String, factory: (any ConnectionFactory)? = nil
    ) -> (pool: LiveConnectionPool, owner: Owner) {
        let pool = LiveConnectionPool(
            connections: factory ?? NIOConnectionFactory(loop: loop), endpoint: endpoint, limit: 1,
            connectTimeout: .seconds(5))
        let owner = Owner(answered: loop.makePromise())
        pool.owner = owner
        pool.send(
            LiveExchange(
                slot: 0, serial: 1,
                request: OutgoingRequest(head: HTTPRequest(method: .get, scheme: "http", authority: nil, path: path))))
        return (pool, owner)
    }
}
