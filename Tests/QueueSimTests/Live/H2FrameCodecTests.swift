import NIOCore
import NIOHPACK
import NIOHTTP2
import Testing

@testable import QueueSim

/// The h2 client's own frame layer (`H2FrameCodec`, issue 55 item 8): bytes a server sends in,
/// the frames the session acts on out, and what the codec writes back, byte for byte.
@Suite("HTTP/2 client: the frame codec")
struct H2FrameCodecTests {
    // MARK: - Frames the session acts on

    @Test("HEADERS with padding and priority, CONTINUATION, padded DATA, RST_STREAM, GOAWAY: read at every split")
    func splitAtEveryByte() throws {
        var server = HPACKEncoder(allocator: ByteBufferAllocator())
        let block = try Self.encode([(":status", "200"), ("content-type", "text/plain"), ("x-long", "v")], &server)
        let (first, rest) = (Array(block.prefix(5)), Array(block.dropFirst(5)))
        // HEADERS: padded (2 bytes), priority, no END_HEADERS; then CONTINUATION with it.
        let headers = [2] + [0, 0, 0, 0, 16] + first + [0, 0]
        let bytes =
            Self.frame(.settings, flags: 0, stream: 0, [])
            + Self.frame(.headers, flags: 0x8 | 0x20, stream: 1, headers)
            + Self.frame(.continuation, flags: 0x4, stream: 1, rest)
            + Self.frame(.data, flags: 0x8, stream: 1, [3] + Array("hello".utf8) + [0, 0, 0])
            + Self.frame(.data, flags: 0x1, stream: 1, Array(" world".utf8))
            + Self.frame(200, flags: 0, stream: 0, [1, 2, 3])  // An unknown type: ignored.
            + Self.frame(.priority, flags: 0, stream: 3, [0, 0, 0, 1, 16])
            + Self.frame(.rstStream, flags: 0, stream: 3, [0, 0, 0, 7])
            + Self.frame(.goAway, flags: 0, stream: 0, [0, 0, 0, 3, 0, 0, 0, 0] + Array("bye".utf8))
        let expected = [
            "HEADERS 1 :status=200 content-type=text/plain x-long=v", "DATA 1 hello", "DATA 1  world end",
            "RST_STREAM 3 7", "GOAWAY 3 0",
        ]
        for split in 0...bytes.count {
            var codec = Self.codec()
            codec.sendRequest(stream: 1, headers: HPACKHeaders([(":method", "GET")]), body: nil)
            var read: [String] = []
            for part in [bytes[..<split], bytes[split...]] {
                codec.receive(ByteBuffer(bytes: part))
                while let frame = try codec.nextFrame() { read.append(Self.describe(frame)) }
            }
            #expect(read == expected, "split at \(split)")
        }
    }

    @Test("SETTINGS is acknowledged and applied: a HEADERS block over MAX_FRAME_SIZE leaves as CONTINUATIONs")
    func settingsAckedAndHeadersSplit() throws {
        var codec = Self.codec()
        let settings: [UInt8] = [0, 5, 0, 0, 0x40, 0x01] + [0, 4, 0, 0, 0, 100]  // 16,385 bytes; window 100.
        codec.receive(ByteBuffer(bytes: Self.frame(.settings, flags: 0, stream: 0, settings)))
        #expect(try codec.nextFrame() == nil)
        #expect(Self.frames(codec.takeOutbound()).map(\.summary) == ["SETTINGS ack 0 0"])
        codec.prepareOutbound()
        let long = String(repeating: "a", count: 60_000)
        codec.sendRequest(
            stream: 1, headers: HPACKHeaders([(":method", "POST"), ("x-long", long)]),
            body: Array(repeating: 7, count: 150))
        let sent = Self.frames(codec.takeOutbound())
        #expect(
            sent.map(\.summary) == [
                "HEADERS 0 1 16385", "CONTINUATION 0 1 16385", "CONTINUATION 4 1 \(sent[2].payload.count)",
                "DATA 0 1 100",
            ])
        var decoder = HPACKDecoder(
            allocator: ByteBufferAllocator(), maxDynamicTableSize: 4096, maxHeaderListSize: 1 << 20)
        var block = ByteBuffer(bytes: sent.prefix(3).flatMap(\.payload))
        let decoded = try decoder.decodeHeaders(from: &block)
        #expect(decoded.first(name: "x-long") == long)
        // The rest of the body waits for the stream's window.
        codec.prepareOutbound()
        codec.receive(ByteBuffer(bytes: Self.frame(.windowUpdate, flags: 0, stream: 1, [0, 0, 0, 60])))
        #expect(try codec.nextFrame() == nil)
        #expect(Self.frames(codec.takeOutbound()).map(\.summary) == ["DATA 1 1 50"])
    }

    @Test("PING is answered with PING ACK and the same 8 bytes")
    func pingAcked() throws {
        var codec = Self.codec()
        codec.receive(ByteBuffer(bytes: Self.frame(.ping, flags: 0, stream: 0, [1, 2, 3, 4, 5, 6, 7, 8])))
        #expect(try codec.nextFrame() == nil)
        let sent = Self.frames(codec.takeOutbound())
        #expect(sent.map(\.summary) == ["PING ack 0 8"])
        #expect(sent.first?.payload == [1, 2, 3, 4, 5, 6, 7, 8])
    }

    @Test("the preface, the stack's SETTINGS and its connection WINDOW_UPDATE come first, in that order")
    func prefaceFirst() throws {
        var codec = H2FrameCodec(stack: .okHttp, allocator: ByteBufferAllocator())
        let taken = codec.takeOutbound()
        var bytes = try #require(taken)
        #expect(bytes.readString(length: 24) == "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
        let sent = Self.frames(bytes)
        #expect(sent.map(\.summary) == ["SETTINGS 0 0 6", "WINDOW_UPDATE 0 0 4"])
        #expect(sent[0].payload == [0, 4, 1, 0, 0, 0])
        #expect(sent[1].payload == [0, 0xFF, 0, 1])  // 16 MiB less 65,535.
    }

    @Test("the windows are topped up once less than half is left, as OkHttp and Chromium do")
    func windowsToppedUp() throws {
        var codec = Self.codec()  // CFNetwork: a 2 MiB stream window.
        codec.sendRequest(stream: 1, headers: HPACKHeaders([(":method", "GET")]), body: nil)
        _ = codec.takeOutbound()
        let data = Self.frame(.data, flags: 0, stream: 1, [UInt8](repeating: 1, count: 16_384))
        for _ in 0..<64 {
            codec.receive(ByteBuffer(bytes: data))
            #expect(try codec.nextFrame() != nil)
        }
        #expect(codec.takeOutbound() == nil, "1 MiB read: half of the stream's window is left")
        codec.receive(ByteBuffer(bytes: data))
        #expect(try codec.nextFrame() != nil)
        let sent = Self.frames(codec.takeOutbound())
        #expect(sent.map(\.summary) == ["WINDOW_UPDATE 0 1 4"])
        #expect(sent.first?.payload == [0, 0x10, 0x40, 0])  // 65 × 16,384 back.
    }

    @Test("OkHttp leaves push on: a PUSH_PROMISE's stream is cancelled, the request's answer still read")
    func okHttpCancelsAPush() throws {
        // OkHttp 4.9 sends no ENABLE_PUSH 0 and cancels each push (`PushObserver.CANCEL`).
        var codec = H2FrameCodec(stack: .okHttp, allocator: ByteBufferAllocator())
        _ = codec.takeOutbound()
        codec.prepareOutbound()
        codec.sendRequest(stream: 1, headers: HPACKHeaders([(":method", "GET")]), body: nil)
        _ = codec.takeOutbound()
        var server = HPACKEncoder(allocator: ByteBufferAllocator())
        let pushed = try Self.encode(
            [(":method", "GET"), (":scheme", "https"), (":authority", "acme.example"), (":path", "/app.js")], &server)
        let promise = Self.frame(.pushPromise, flags: 0x4, stream: 1, [0, 0, 0, 2] + pushed)
        let answer = Self.frame(.headers, flags: 0x5, stream: 1, try Self.encode([(":status", "200")], &server))
        codec.receive(ByteBuffer(bytes: promise + answer))
        var read: [String] = []
        while let frame = try codec.nextFrame() { read.append(Self.describe(frame)) }
        #expect(read == ["HEADERS 1 :status=200 end"])
        let sent = Self.frames(codec.takeOutbound())
        #expect(sent.map(\.summary) == ["RST_STREAM 0 2 4"])
        #expect(sent.first?.payload == [0, 0, 0, 8])  // CANCEL.
    }

    // MARK: - Frames that break the connection

    @Test("a frame over SETTINGS_MAX_FRAME_SIZE: GOAWAY FRAME_SIZE_ERROR before its payload is in")
    func frameTooLarge() throws {
        var codec = Self.codec()
        let header: [UInt8] = [0, 0x40, 0x01, 0, 0, 0, 0, 0, 1]  // DATA of 16,385 bytes.
        codec.receive(ByteBuffer(bytes: header))
        #expect(throws: H2ConnectionError.self) { try codec.nextFrame() }
        #expect(Self.frames(codec.takeOutbound()).map(\.summary) == ["GOAWAY 0 0 8"])
        #expect(Self.frames(codec.takeOutbound()).isEmpty)
        var again = Self.codec()
        again.receive(ByteBuffer(bytes: header))
        do throws(H2ConnectionError) {
            _ = try again.nextFrame()
        } catch {
            #expect(error.code == .frameSizeError)
            #expect(Self.frames(again.takeOutbound()).first?.payload == [0, 0, 0, 0, 0, 0, 0, 6])
        }
    }

    @Test(
        "broken frames are connection errors with their code",
        arguments: [
            (H2FrameCodecTests.frame(.ping, flags: 0, stream: 0, [1, 2, 3]), HTTP2ErrorCode.frameSizeError),
            (H2FrameCodecTests.frame(.settings, flags: 0, stream: 0, [0, 4, 0]), .frameSizeError),
            (H2FrameCodecTests.frame(.settings, flags: 0, stream: 1, []), .protocolError),
            (H2FrameCodecTests.frame(.data, flags: 0, stream: 0, [1]), .protocolError),
            (H2FrameCodecTests.frame(.continuation, flags: 0x4, stream: 1, [0x88]), .protocolError),
            (
                H2FrameCodecTests.frame(.headers, flags: 0, stream: 1, [0x88])
                    + H2FrameCodecTests.frame(.data, flags: 0, stream: 1, []),
                .protocolError
            ),
            (H2FrameCodecTests.frame(.pushPromise, flags: 0x4, stream: 1, [0, 0, 0, 2, 0x88]), .protocolError),
            (H2FrameCodecTests.frame(.headers, flags: 0x4, stream: 1, [0xFF, 0xFF, 0xFF, 0xFF]), .compressionError),
            (H2FrameCodecTests.frame(.data, flags: 0x8, stream: 1, [5, 1]), .protocolError),
            (H2FrameCodecTests.frame(.windowUpdate, flags: 0, stream: 0, [0, 0, 0, 0]), .protocolError),
        ])
    func brokenFrames(bytes: [UInt8], code: HTTP2ErrorCode) throws {
        var codec = Self.codec()  // CFNetwork: ENABLE_PUSH 0.
        codec.receive(ByteBuffer(bytes: bytes))
        do throws(H2ConnectionError) {
            while try codec.nextFrame() != nil {}
            Issue.record("no error for \(bytes)")
        } catch {
            #expect(error.code == code)
            let goAway = Self.frames(codec.takeOutbound()).last
            #expect(goAway?.summary == "GOAWAY 0 0 8")
            #expect(goAway.map { Array($0.payload.suffix(4)) } == [0, 0, 0, UInt8(code.networkCode)])
        }
    }

    // MARK: - Helpers

    static func codec() -> H2FrameCodec {
        var codec = H2FrameCodec(stack: .cfNetwork, allocator: ByteBufferAllocator())
        _ = codec.takeOutbound()
        codec.prepareOutbound()
        return codec
    }

    static func encode(_ fields: [(String, String)], _ encoder: inout HPACKEncoder) throws -> [UInt8] {
        var buffer = ByteBuffer()
        try encoder.encode(headers: HPACKHeaders(fields), to: &buffer)
        return Array(buffer.readableBytesView)
    }

    static func frame(_ type: H2FrameCodec.FrameType, flags: UInt8, stream: UInt32, _ payload: [UInt8]) -> [UInt8] {
        frame(type.rawValue, flags: flags, stream: stream, payload)
    }

    static func frame(_ type: UInt8, flags: UInt8, stream: UInt32, _ payload: [UInt8]) -> [UInt8] {
        let length = payload.count
        return [UInt8(length >> 16), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF), type, flags]
            + [UInt8(stream >> 24), UInt8(stream >> 16 & 0xFF), UInt8(stream >> 8 & 0xFF), UInt8(stream & 0xFF)]
            + payload
    }

    struct SentFrame {
        var summary: String
        var payload: [UInt8]
    }

    /// The frames in `buffer` as "TYPE flags stream length" (ACKs as "TYPE ack…").
    static func frames(_ buffer: ByteBuffer?) -> [SentFrame] {
        guard var buffer else { return [] }
        var frames: [SentFrame] = []
        while let head = buffer.readInteger(as: UInt32.self), let flags = buffer.readInteger(as: UInt8.self),
            let stream = buffer.readInteger(as: UInt32.self), let payload = buffer.readBytes(length: Int(head >> 8))
        {
            let type = H2FrameCodec.FrameType(rawValue: UInt8(head & 0xFF)).map { "\($0)" } ?? "?"
            let name = Self.names[type] ?? type
            let flagText = (name == "SETTINGS" || name == "PING") && flags == 1 ? "ack" : "\(flags)"
            frames.append(SentFrame(summary: "\(name) \(flagText) \(stream) \(payload.count)", payload: payload))
        }
        return frames
    }

    private static let names = [
        "data": "DATA", "headers": "HEADERS", "settings": "SETTINGS", "ping": "PING", "goAway": "GOAWAY",
        "windowUpdate": "WINDOW_UPDATE", "continuation": "CONTINUATION", "rstStream": "RST_STREAM",
    ]

    static func describe(_ frame: HTTP2Frame) -> String {
        let stream = "\(Int32(frame.streamID))"
        switch frame.payload {
        case .headers(let headers):
            let fields = headers.headers.map { "\($0.name)=\($0.value)" }.joined(separator: " ")
            return "HEADERS \(stream) \(fields)" + (headers.endStream ? " end" : "")
        case .data(let data):
            guard case .byteBuffer(let bytes) = data.data else { return "DATA ?" }
            return "DATA \(stream) \(String(buffer: bytes))" + (data.endStream ? " end" : "")
        case .rstStream(let code): return "RST_STREAM \(stream) \(code.networkCode)"
        case .goAway(let last, let code, _): return "GOAWAY \(Int32(last)) \(code.networkCode)"
        default: return "other"
        }
    }
}
