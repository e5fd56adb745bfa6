import Logging
import NIOCore
import NIOEmbedded
import QueueClientCore
import Testing

@testable import QueueSim

/// The room's connection handler on an `EmbeddedChannel`, with the server's own pipeline:
/// requests whole, in pieces, pipelined, cut short, and the malformed ones answered 400 and
/// closed.
@Suite("Room HTTP handler")
struct RoomHTTPHandlerTests {
    static let enqueue =
        "POST /api/mobileapp/queue/acme/spring-launch/enqueue HTTP/1.1\r\nHost: acme.queue-it.net\r\n"
        + "Content-Type: application/json\r\nContent-Length: 14\r\n\r\n{\"userId\":\"u\"}"

    /// A channel with the room's pipeline, connected.
    static func channel() throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try WaitingRoomServer.configure(
            channel.pipeline.syncOperations,
            service: LockedWaitingRoomService(WaitingRoomService(configuration: RoomFixture.configuration())),
            clock: WallClock(), logger: Logger(label: "room-handler-test"), idleTimeout: .seconds(60))
        _ = channel.connect(to: try SocketAddress(ipAddress: "127.0.0.1", port: 9))
        return channel
    }

    /// Feeds `pieces`, lets delayed answers go out, and returns what the room wrote.
    static func exchange(_ channel: EmbeddedChannel, _ pieces: [String]) throws -> String {
        for piece in pieces { try channel.writeInbound(ByteBuffer(string: piece)) }
        channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        var text = ""
        while let data = try channel.readOutbound(as: IOData.self) {
            guard case .byteBuffer(let buffer) = data else { continue }
            text += String(buffer: buffer)
        }
        return text
    }

    static func answers(in text: String) -> Int {
        text.components(separatedBy: "HTTP/1.1 ").count - 1
    }

    @Test("a request is answered and the connection kept")
    func answered() throws {
        let channel = try Self.channel()
        let text = try Self.exchange(channel, [Self.enqueue])
        #expect(text.hasPrefix("HTTP/1.1 200"))
        #expect(channel.isActive)
    }

    @Test("a request split across reads is answered once")
    func splitRequest() throws {
        let channel = try Self.channel()
        let bytes = Array(Self.enqueue.utf8)
        let pieces = stride(from: 0, to: bytes.count, by: 7).map {
            String(decoding: bytes[$0..<min(bytes.count, $0 + 7)], as: UTF8.self)
        }
        let text = try Self.exchange(channel, pieces)
        #expect(text.hasPrefix("HTTP/1.1 200"))
        #expect(Self.answers(in: text) == 1)
    }

    @Test("pipelined requests are answered in turn")
    func pipelined() throws {
        let channel = try Self.channel()
        let text = try Self.exchange(channel, [Self.enqueue + Self.enqueue])
        #expect(Self.answers(in: text) == 2)
        #expect(channel.isActive)
    }

    @Test("a close mid-body gets no answer")
    func closeMidBody() throws {
        let channel = try Self.channel()
        let cut = String(Self.enqueue.dropLast(6))
        #expect(try Self.exchange(channel, [cut]).isEmpty)
        _ = channel.close()
        let after = try Self.exchange(channel, [])
        #expect(after.isEmpty, "\(after)")
        #expect(!channel.isActive)
    }

    /// Requests NIO's decoder refuses: each is answered 400 and the connection closed.
    static let malformed: [(name: String, request: String)] = [
        ("garbage request line", "\u{1}\u{2} nonsense\r\n\r\n"),
        ("bad Content-Length", "POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: abc\r\n\r\n"),
        ("duplicate Content-Length", "POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nab"),
        (
            "Content-Length with Transfer-Encoding",
            "POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
        ),
        ("unknown method", "FROB /x HTTP/1.1\r\nHost: a\r\n\r\n"),
        (
            "oversize head",
            "GET /x HTTP/1.1\r\nHost: a\r\nX-Filler: " + String(repeating: "a", count: 100_000) + "\r\n\r\n"
        ),
    ]

    @Test("a malformed request is answered 400 and the connection closed", arguments: malformed.indices)
    func malformedRequest(_ index: Int) throws {
        let (name, request) = Self.malformed[index]
        let channel = try Self.channel()
        let text = try Self.exchange(channel, [request])
        #expect(text.hasPrefix("HTTP/1.1 400"), "\(name): \(text.prefix(80))")
        #expect(text.lowercased().contains("connection: close"), "\(name)")
        #expect(Self.answers(in: text) == 1, "\(name)")
        #expect(!channel.isActive, "\(name): closed after the 400")
    }

    @Test("a malformed request after a good one on the same connection")
    func malformedAfterGood() throws {
        let channel = try Self.channel()
        let text = try Self.exchange(channel, [Self.enqueue + "FROB /x HTTP/1.1\r\n\r\n"])
        #expect(Self.answers(in: text) == 2)
        #expect(text.contains("HTTP/1.1 400"))
        #expect(!channel.isActive)
    }
}
