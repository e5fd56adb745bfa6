import HTTPTypes
import NIOCore
import NIOPosix
import QueueClientCore
import Testing

@testable import QueueSim

/// One behaviour for every transport a run may get (`LiveTransport`): the same pool, the same
/// requests and the same scripted loopback server, once over SwiftNIO's channels and once over
/// queuesim's own plain loop (Linux), with the same outcomes expected of both: what a visitor
/// sees must not depend on which one carried it.
@Suite("Transport behaviour", .timeLimit(.minutes(1)))
struct TransportBehaviourTests {
    enum Kind: String, CustomTestStringConvertible {
        case nio, plain
        var testDescription: String { rawValue }

        /// The transports this platform has.
        static var all: [Kind] {
            #if os(Linux)
                [.nio, .plain]
            #else
                [.nio]
            #endif
        }

        /// Runs `body` on a one-loop transport of this kind, shut down (and awaited) after.
        func withLoop<T>(_ body: (LiveTransport.Loop) async throws -> T) async throws -> T {
            let transport: LiveTransport
            let group: any EventLoopGroup
            switch self {
            case .nio:
                let nio = MultiThreadedEventLoopGroup(numberOfThreads: 1)
                (transport, group) = (.nio([nio.next()]), nio)
            case .plain:
                #if os(Linux)
                    let plain = try PlainEventLoopGroup(loops: 1)
                    (transport, group) = (.plain(plain), plain)
                #else
                    preconditionFailure("the plain transport exists on Linux only")
                #endif
            }
            #expect(transport.kind.rawValue == rawValue)
            do {
                let value = try await body(transport.loops[0])
                try await group.shutdownGracefully()
                return value
            } catch {
                try await group.shutdownGracefully()
                throw error
            }
        }
    }

    /// Records every result; fulfils `done` once `expected` have come.
    final class Owner: LiveExchangeOwner {
        var results: [Result<IncomingResponse, TransportError>] = []
        let expected: Int
        let done: EventLoopPromise<Void>
        init(expected: Int, done: EventLoopPromise<Void>) {
            self.expected = expected
            self.done = done
        }
        func awaits(slot: Int, serial: UInt32) -> Bool { true }
        func exchangeCompleted(
            slot: Int, serial: UInt32, result: Result<IncomingResponse, TransportError>, handshake: Handshake?,
            at now: RunInstant
        ) {
            results.append(result)
            if results.count == expected { done.succeed() }
        }
    }

    /// What a run of exchanges came to: each result's body (or error), in order.
    struct Outcome: Sendable {
        var results: [Result<IncomingResponse, TransportError>]
        var opened: Int

        var bodies: [[UInt8]?] { results.map { try? $0.get().body } }
    }

    /// Sends `requests` through a one-connection pool on `loop` to 127.0.0.1:`port` (each once
    /// the one before is answered), the pool closed at once after the sends when
    /// `closeAtOnce`; the results, and how many connections the pool opened.
    static func exchanges(
        _ requests: [OutgoingRequest], port: Int, on loop: LiveTransport.Loop, closeAtOnce: Bool = false
    ) async throws -> Outcome {
        let endpoint = LiveEndpoint(
            address: try SocketAddress(ipAddress: "127.0.0.1", port: port), authority: "127.0.0.1:\(port)", tls: nil,
            serverHostname: nil)
        let eventLoop = loop.eventLoop
        let outcome = try await eventLoop.flatSubmit {
            let pool = LiveConnectionPool(
                connections: loop.makeConnectionFactory(), endpoint: endpoint, limit: 1, connectTimeout: .seconds(5))
            let owner = Owner(expected: requests.count, done: eventLoop.makePromise())
            pool.owner = owner
            for (index, request) in requests.enumerated() {
                pool.send(LiveExchange(slot: index + 1, serial: UInt32(index + 1), request: request))
            }
            if closeAtOnce { pool.closeAll() }
            return owner.done.futureResult.assumeIsolated().map {
                let outcome = Outcome(results: owner.results, opened: pool.connectionsOpened)
                pool.closeAll()
                pool.owner = nil
                return outcome
            }.nonisolated()
        }.get()
        return outcome
    }

    static func get(_ path: String) -> OutgoingRequest {
        OutgoingRequest(head: HTTPRequest(method: .get, scheme: "http", authority: nil, path: path))
    }

    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test("keep-alive: three answers over one connection", arguments: Kind.all)
    func keepAlive(kind: Kind) async throws {
        let script = TransportBehaviourServer.Script { request, _ in
            .bytes(TransportBehaviourServer.answer(Self.bytes("answer \(request)")))
        }
        try await TransportBehaviourServer.with(script) { server in
            let outcome = try await kind.withLoop {
                try await Self.exchanges([Self.get("/a"), Self.get("/b"), Self.get("/c")], port: server.port, on: $0)
            }
            #expect(outcome.bodies == ["answer 1", "answer 2", "answer 3"].map(Self.bytes))
            #expect(outcome.opened == 1)
            #expect(server.seen.accepted == 1)
        }
    }

    @Test("an answer over 64 KiB arrives whole, byte for byte, and the connection is reused", arguments: Kind.all)
    func largeAnswer(kind: Kind) async throws {
        // Larger than the plain loop's receive buffer (64 KiB) and than a SwiftNIO read:
        // the answer comes in many reads.
        let large = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) }
        let script = TransportBehaviourServer.Script { request, _ in
            .bytes(TransportBehaviourServer.answer(request == 1 ? large : Self.bytes("small")))
        }
        try await TransportBehaviourServer.with(script) { server in
            let outcome = try await kind.withLoop {
                try await Self.exchanges([Self.get("/large"), Self.get("/small")], port: server.port, on: $0)
            }
            #expect(outcome.bodies.first == large)
            #expect(outcome.bodies.last == Self.bytes("small"))
            #expect(server.seen.accepted == 1)
        }
    }

    @Test(
        "a request larger than the socket takes at once waits for a peer that reads late, and all of it arrives",
        arguments: Kind.all)
    func sendWaitsForTheSlowPeer(kind: Kind) async throws {
        // 16 MiB into a peer that reads nothing for 300 ms: more than loopback's socket
        // buffers hold together, so the client's sends stop (EAGAIN) until the peer reads.
        let size = 16 << 20
        let script = TransportBehaviourServer.Script(
            reply: { _, body in .bytes(TransportBehaviourServer.answer(Self.bytes("received \(body)"))) },
            holdReads: .milliseconds(300))
        let upload = OutgoingRequest(
            head: HTTPRequest(method: .post, scheme: "http", authority: nil, path: "/upload"),
            body: [UInt8](repeating: 0x61, count: size))
        try await TransportBehaviourServer.with(script) { server in
            let outcome = try await kind.withLoop {
                try await Self.exchanges([upload, Self.get("/after")], port: server.port, on: $0)
            }
            #expect(outcome.bodies == ["received \(size)", "received 0"].map(Self.bytes))
            #expect(server.seen.accepted == 1)
        }
    }

    @Test("a refused connect fails the exchange in the same words", arguments: Kind.all)
    func refused(kind: Kind) async throws {
        let port = try await TransportBehaviourServer.freedPort()
        let outcome = try await kind.withLoop { try await Self.exchanges([Self.get("/")], port: port, on: $0) }
        #expect(throws: TransportError.connectFailed("Connection refused (errno 111)")) {
            try outcome.results[0].get()
        }
    }

    @Test(
        "the pool closed while its connection connects: the exchange fails as closed, the connection is never used",
        arguments: Kind.all)
    func closedWhileConnecting(kind: Kind) async throws {
        let script = TransportBehaviourServer.Script { _, _ in .bytes(TransportBehaviourServer.answer([])) }
        try await TransportBehaviourServer.with(script) { server in
            let outcome = try await kind.withLoop {
                try await Self.exchanges([Self.get("/never")], port: server.port, on: $0, closeAtOnce: true)
            }
            #expect(throws: LiveConnectionPool.closedError) { try outcome.results[0].get() }
            // The connect went on and completed; the pool closed the connection it brought.
            let closed = try await server.waitUntil { $0.accepted == 1 && $0.ended == 1 }
            #expect(closed, "the late connection should be closed: \(server.seen)")
            #expect(server.seen.requests == 0)
        }
    }

    @Test("a peer that resets the connection as it accepts it fails the exchange as a reset", arguments: Kind.all)
    func resetOnAccept(kind: Kind) async throws {
        var script = TransportBehaviourServer.Script { _, _ in .bytes([]) }
        script.resetOnAccept = true
        try await TransportBehaviourServer.with(script) { server in
            let outcome = try await kind.withLoop {
                try await Self.exchanges([Self.get("/reset")], port: server.port, on: $0)
            }
            #expect(throws: TransportError.connectionReset) { try outcome.results[0].get() }
        }
    }

    @Test(
        "a peer that closes or resets in the middle of an answer fails the exchange as a reset",
        arguments: Kind.all, [false, true])
    func cutMidAnswer(kind: Kind, reset: Bool) async throws {
        let cut =
            Self.bytes("HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n") + [UInt8](repeating: 0x62, count: 70_000)
        let script = TransportBehaviourServer.Script { _, _ in
            reset ? .bytesThenReset(cut) : .bytes(cut, close: true)
        }
        try await TransportBehaviourServer.with(script) { server in
            let outcome = try await kind.withLoop {
                try await Self.exchanges([Self.get("/cut")], port: server.port, on: $0)
            }
            #expect(throws: TransportError.connectionReset) { try outcome.results[0].get() }
        }
    }
}
