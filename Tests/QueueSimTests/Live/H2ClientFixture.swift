import HTTPTypes
import NIOCore
import NIOPosix
import NIOSSL
import QueueClientCore
import StandInServers

@testable import QueueSim

/// A real pool on a real loop sending requests one after another (each once the last is
/// answered, as a visitor does) over TLS to an `H2StandInServer`: what the HTTP/2 client's
/// tests share.
enum H2ClientFixture {
    struct Completion: Sendable {
        var result: Result<IncomingResponse, TransportError>
        var handshake: Handshake?
    }

    /// Sends `requests` in turn from `owner`'s connections and returns every completion; a
    /// stalled exchange fails the whole after `bound`. `atClose` runs on the loop right after
    /// the pool has closed its connections, before any of them has ended (a TLS close waits
    /// for the server's close_notify): what a run's end reads. `gap`: each request after the
    /// first is sent that long after the last answer, from a timer (outside any read), as a
    /// visitor's next poll is; nil: at once, from the answer's read.
    static func send(
        _ requests: [OutgoingRequest], to server: H2StandInServer, offering protocols: [String] = ["h2", "http/1.1"],
        owner: ConnectionOwner = ConnectionOwner(visitor: 0, role: .enqueue, endpoint: 0), requiresH2: Bool = false,
        tally: ConnectionProtocolTally? = nil, bound: TimeAmount = .seconds(10), gap: TimeAmount? = nil,
        atClose: (@Sendable () -> Void)? = nil
    ) async throws -> [Completion] {
        let endpoint = try endpoint(server, offering: protocols)
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        let completions: Result<[Completion], any Error>
        do {
            completions = .success(
                try await loop.flatSubmit {
                    Self.start(
                        requests, on: loop, to: endpoint, owner: owner, requiresH2: requiresH2, tally: tally,
                        bound: bound, gap: gap, atClose: atClose)
                }.get())
        } catch {
            completions = .failure(error)
        }
        // Every connection has ended (and counted itself) once the loop is shut down.
        try await group.shutdownGracefully()
        return try completions.get()
    }

    private static func start(
        _ requests: [OutgoingRequest], on loop: any EventLoop, to endpoint: LiveEndpoint, owner: ConnectionOwner,
        requiresH2: Bool, tally: ConnectionProtocolTally?, bound: TimeAmount, gap: TimeAmount?,
        atClose: (@Sendable () -> Void)?
    ) -> EventLoopFuture<[Completion]> {
        let pool = LiveConnectionPool(
            connections: NIOConnectionFactory(loop: loop, requiresH2: requiresH2, protocols: tally),
            endpoint: endpoint, limit: 4, connectTimeout: .seconds(5))
        let sender = InTurn(pool: pool, requests: requests, owner: owner, gap: gap, done: loop.makePromise())
        pool.owner = sender
        sender.sendNext()
        let timeout = loop.assumeIsolated().scheduleTask(in: bound) {
            sender.done.fail(TransportError.other("the stand-in did not answer within \(bound)"))
        }
        return sender.done.futureResult.assumeIsolated().always { _ in
            timeout.cancel()
            pool.owner = nil
            pool.closeAll()
            atClose?()
        }.nonisolated()
    }

    /// The stand-in's endpoint: TLS trusting its certificate, SNI `localhost`, ALPN `protocols`.
    static func endpoint(_ server: H2StandInServer, offering protocols: [String]) throws -> LiveEndpoint {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.additionalTrustRoots = [.file(H2StandInServer.fixtureCertificatePath)]
        configuration.applicationProtocols = protocols
        return LiveEndpoint(
            address: try SocketAddress(ipAddress: "127.0.0.1", port: server.port),
            authority: "localhost:\(server.port)", tls: try NIOSSLContext(configuration: configuration),
            serverHostname: "localhost")
    }

    /// The owner of the exchanges: sends the next request from the last one's completion.
    private final class InTurn: LiveExchangeOwner {
        let pool: LiveConnectionPool
        var requests: [OutgoingRequest]
        let owner: ConnectionOwner
        let gap: TimeAmount?
        let done: EventLoopPromise<[Completion]>
        var completions: [Completion] = []

        init(
            pool: LiveConnectionPool, requests: [OutgoingRequest], owner: ConnectionOwner, gap: TimeAmount?,
            done: EventLoopPromise<[Completion]>
        ) {
            self.pool = pool
            self.requests = requests
            self.owner = owner
            self.gap = gap
            self.done = done
        }

        func sendNext() {
            guard !requests.isEmpty else { return done.succeed(completions) }
            let request = requests.removeFirst()
            pool.send(
                LiveExchange(slot: 0, serial: UInt32(completions.count + 1), request: request, owner: owner))
        }

        func awaits(slot: Int, serial: UInt32) -> Bool { true }

        func exchangeCompleted(
            slot: Int, serial: UInt32, result: Result<IncomingResponse, TransportError>, handshake: Handshake?,
            at now: RunInstant
        ) {
            completions.append(Completion(result: result, handshake: handshake))
            guard let gap else { return sendNext() }
            let loop = done.futureResult.eventLoop
            loop.assumeIsolated().scheduleTask(in: gap) { self.sendNext() }
        }
    }

    /// A GET of `path` with no fields of its own (CFNetwork's order, as iOS's calls).
    static func get(_ path: String) -> OutgoingRequest {
        OutgoingRequest(head: HTTPRequest(method: .get, scheme: "https", authority: nil, path: path))
    }
}
