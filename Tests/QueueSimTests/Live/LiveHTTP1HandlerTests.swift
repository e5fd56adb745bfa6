import HTTPTypes
import NIOCore
import NIOEmbedded
import QueueClientCore
import Testing

@testable import QueueSim

/// The pool's connection handler on `EmbeddedChannel`s: what it writes, and how it reads
/// answers that arrive in pieces, with too much, cut short or too big.
@Suite("Live HTTP/1 handler")
struct LiveHTTP1HandlerTests {
    /// An owner that records what the pool delivers.
    final class Owner: LiveExchangeOwner {
        var results: [(slot: Int, serial: UInt32, result: Result<IncomingResponse, TransportError>)] = []
        func awaits(slot: Int, serial: UInt32) -> Bool { true }
        func exchangeCompleted(
            slot: Int, serial: UInt32, result: Result<IncomingResponse, TransportError>, handshake: Handshake?,
            at now: RunInstant
        ) {
            results.append((slot, serial, result))
        }
    }

    /// Connections on `EmbeddedChannel`s of one loop, connected at once: the pool's handler
    /// without sockets.
    final class EmbeddedConnectionFactory: ConnectionFactory {
        let loop = EmbeddedEventLoop()
        var eventLoop: any EventLoop { loop }
        private(set) var channels: [EmbeddedChannel] = []

        func carries(_ endpoint: LiveEndpoint) -> Bool { true }

        func connect(_ request: ConnectionRequest, to endpoint: borrowing LiveEndpoint, for pool: LiveConnectionPool) {
            let handler = LiveHTTP1Handler(pool: pool, id: request.id)
            let channel = EmbeddedChannel(handler: handler, loop: loop)
            channels.append(channel)
            _ = channel.connect(to: endpoint.address)
            pool.connectionEstablished(request.id, connection: handler)
        }
    }

    /// A pool whose connections are `EmbeddedChannel`s on one loop, connected at once.
    final class Harness {
        let factory = EmbeddedConnectionFactory()
        var loop: EmbeddedEventLoop { factory.loop }
        let owner = Owner()
        let pool: LiveConnectionPool
        var channels: [EmbeddedChannel] { factory.channels }

        init(limit: Int = 1) throws {
            let endpoint = LiveEndpoint(
                address: try SocketAddress(ipAddress: "127.0.0.1", port: 9), authority: "room.test", tls: nil,
                serverHostname: nil)
            pool = LiveConnectionPool(
                connections: factory, endpoint: endpoint, limit: limit, connectTimeout: .seconds(1))
            pool.owner = owner
        }

        func send(_ slot: Int, serial: UInt32 = 1) {
            pool.send(
                LiveExchange(
                    slot: slot, serial: serial,
                    request: OutgoingRequest(
                        head: HTTPRequest(method: .get, scheme: "http", authority: nil, path: "/s"))))
            loop.run()  // the end of the tick: the flush
        }

        /// The bytes written on `channel` since the last look.
        func written(_ channel: EmbeddedChannel) throws -> String {
            var text = ""
            while let buffer = try channel.readOutbound(as: ByteBuffer.self) { text += String(buffer: buffer) }
            return text
        }

        func answer(_ channel: EmbeddedChannel, _ pieces: String...) throws {
            for piece in pieces { try channel.writeInbound(ByteBuffer(string: piece)) }
        }
    }

    static let ok = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"

    @Test("the request goes out flushed, and an answer split across reads arrives whole")
    func splitAnswer() throws {
        let harness = try Harness()
        harness.send(1)
        let channel = try #require(harness.channels.first)
        #expect(try harness.written(channel) == "GET /s HTTP/1.1\r\nHost: room.test\r\n\r\n")
        try harness.answer(channel, "HTTP/1.1 200 OK\r\nConte", "nt-Length: 5\r\n\r", "\nhel", "lo")
        let result = try #require(harness.owner.results.first)
        let response = try result.result.get()
        #expect(response.head.status.code == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == "hello")
        // Kept alive: the next request rides the same connection.
        harness.send(2)
        #expect(harness.channels.count == 1)
        #expect(try harness.written(channel).hasPrefix("GET /s"))
    }

    @Test("bytes past the answer: delivered, and the connection is not used again")
    func extraBytes() throws {
        let harness = try Harness()
        harness.send(1)
        let channel = try #require(harness.channels.first)
        try harness.answer(channel, Self.ok + Self.ok)
        #expect(harness.owner.results.count == 1)
        #expect(try harness.owner.results[0].result.get().status.code == 200)
        #expect(channel.isActive, "closed with the tick's other closes, when it ends")
        harness.loop.run()
        #expect(!channel.isActive, "closed")
        harness.send(2)
        #expect(harness.channels.count == 2, "a new connection for the next request")
        #expect(harness.pool.connectionsOpened == 2)
    }

    @Test("bytes on an idle connection close it")
    func unsolicitedBytes() throws {
        let harness = try Harness()
        harness.send(1)
        let channel = try #require(harness.channels.first)
        try harness.answer(channel, Self.ok)
        try harness.answer(channel, "HTTP/1.1 408 Request Timeout\r\nContent-Length: 0\r\n\r\n")
        #expect(!channel.isActive)
        #expect(harness.owner.results.count == 1)
    }

    @Test("a close mid-body fails the exchange (no resend: the server had answered)")
    func closeMidBody() throws {
        let harness = try Harness()
        harness.send(1)
        let channel = try #require(harness.channels.first)
        try harness.answer(channel, Self.ok)
        harness.send(2)
        try harness.answer(channel, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhe")
        _ = channel.close()
        #expect(harness.owner.results.count == 2)
        #expect(harness.owner.results[1].result == .failure(.connectionReset))
        #expect(harness.channels.count == 1, "not sent again")
    }

    @Test("a kept-alive connection closed before any answer byte: the request goes out again once")
    func staleKeepAlive() throws {
        let harness = try Harness()
        harness.send(1)
        let first = try #require(harness.channels.first)
        try harness.answer(first, Self.ok)
        harness.send(2)
        _ = first.close()
        harness.loop.run()
        #expect(harness.owner.results.count == 1, "not failed")
        let second = try #require(harness.channels.last)
        #expect(harness.channels.count == 2)
        #expect(try harness.written(second).hasPrefix("GET /s"))
        try harness.answer(second, Self.ok)
        #expect(harness.owner.results.count == 2)
        #expect(harness.owner.results[1].slot == 2)
        #expect(try harness.owner.results[1].result.get().status.code == 200)
    }

    @Test("an oversize head fails the exchange and closes the connection")
    func oversizeHead() throws {
        let harness = try Harness()
        harness.send(1)
        let channel = try #require(harness.channels.first)
        let header = "X-Filler: " + String(repeating: "a", count: HTTP1ResponseParser.maxHeadBytes) + "\r\n"
        try harness.answer(channel, "HTTP/1.1 200 OK\r\n", header)
        #expect(!channel.isActive)
        let result = try #require(harness.owner.results.first?.result)
        guard case .failure(.other(let reason)) = result else {
            Issue.record("expected a parse failure, got \(result)")
            return
        }
        #expect(reason.contains("head over"))
    }

    @Test("an aborted exchange closes its connection and is not delivered")
    func abort() throws {
        let harness = try Harness()
        harness.send(1)
        let channel = try #require(harness.channels.first)
        #expect(harness.pool.lastProgress(slot: 1, serial: 1) != nil)
        harness.pool.abort(slot: 1, serial: 1)
        #expect(!channel.isActive)
        #expect(harness.owner.results.isEmpty)
        #expect(harness.pool.lastProgress(slot: 1, serial: 1) == nil)
    }

    @Test("a tick's connects go out together, at most 16 waiting, every one made in order")
    func connectsInBursts() throws {
        let count = 2 * LiveConnectionPool.deferredConnectsLimit + 8
        let harness = try Harness(limit: count)
        for slot in 0..<count {
            harness.pool.send(
                LiveExchange(
                    slot: slot, serial: 1,
                    request: OutgoingRequest(
                        head: HTTPRequest(method: .get, scheme: "http", authority: nil, path: "/\(slot)"))))
        }
        // Within the tick: none waits beyond the limit.
        #expect(harness.channels.count == count - 8)
        harness.loop.run()  // the end of the tick
        #expect(harness.channels.count == count)
        for (index, channel) in harness.channels.enumerated() {
            #expect(try harness.written(channel) == "GET /\(index) HTTP/1.1\r\nHost: room.test\r\n\r\n")
        }
    }
}
