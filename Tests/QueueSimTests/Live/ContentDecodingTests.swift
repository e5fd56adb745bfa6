import NIOCore
import Testing

@testable import QueueSim

/// The phones' stacks inflate the gzip (OkHttp) and gzip/deflate (CFNetwork, WebViews) answers
/// their `Accept-Encoding` asks for; so does the live engine's parser.
@Suite("Compressed answers")
struct ContentDecodingTests {
    static let json = #"{"QueueId":"q-1","QueueUrl":null}"#
    /// `json` compressed by Python's `gzip.compress(mtime=0)`, `zlib.compress` and raw deflate.
    static let gzip: [UInt8] = [
        0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0xab, 0x56, 0x0a, 0x2c, 0x4d, 0x2d, 0x4d, 0xf5,
        0x4c, 0x51, 0xb2, 0x52, 0x2a, 0xd4, 0x35, 0x54, 0xd2, 0x81, 0xf0, 0x43, 0x8b, 0x72, 0x94, 0xac, 0xf2, 0x4a,
        0x73, 0x72, 0x6a, 0x01, 0xea, 0x1d, 0x09, 0xd5, 0x21, 0x00, 0x00, 0x00,
    ]
    static let zlib: [UInt8] = [
        0x78, 0x9c, 0xab, 0x56, 0x0a, 0x2c, 0x4d, 0x2d, 0x4d, 0xf5, 0x4c, 0x51, 0xb2, 0x52, 0x2a, 0xd4, 0x35, 0x54,
        0xd2, 0x81, 0xf0, 0x43, 0x8b, 0x72, 0x94, 0xac, 0xf2, 0x4a, 0x73, 0x72, 0x6a, 0x01, 0xb0, 0xab, 0x0a, 0xd9,
    ]
    static let rawDeflate: [UInt8] = Array(zlib[2..<32])

    /// One answer with `encoding` and `body`, fed `step` bytes at a time.
    static func parse(encoding: String, body: [UInt8], chunked: Bool = false, step: Int = .max) throws
        -> HTTP1ResponseParser.Response?
    {
        var bytes = Array("HTTP/1.1 200 OK\r\nContent-Encoding: \(encoding)\r\n".utf8)
        if chunked {
            bytes += Array("Transfer-Encoding: chunked\r\n\r\n\(String(body.count, radix: 16))\r\n".utf8) + body
            bytes += Array("\r\n0\r\n\r\n".utf8)
        } else {
            bytes += Array("Content-Length: \(body.count)\r\n\r\n".utf8) + body
        }
        var parser = HTTP1ResponseParser()
        var pending = ByteBuffer()
        var offset = 0
        while offset < bytes.count {
            let end = min(bytes.count, offset &+ step)
            pending.writeBytes(bytes[offset..<end])
            offset = end
            if let response = try parser.parse(&pending) { return response }
        }
        return nil
    }

    @Test("gzip and deflate (zlib-wrapped or raw) answers are inflated, framed either way, split anywhere")
    func inflated() throws {
        for (encoding, body) in [
            ("gzip", Self.gzip), ("GZip", Self.gzip), ("deflate", Self.zlib), ("deflate", Self.rawDeflate),
        ] {
            for chunked in [false, true] {
                for step in [Int.max, 1, 5] {
                    let response = try #require(
                        try Self.parse(encoding: encoding, body: body, chunked: chunked, step: step))
                    #expect(
                        String(decoding: response.body, as: UTF8.self) == Self.json, "\(encoding) \(chunked) \(step)")
                }
            }
        }
    }

    @Test("a coding queuesim cannot undo (br) is handed on as sent; a gzip body that does not inflate is an error")
    func notInflated() throws {
        let br = try #require(try Self.parse(encoding: "br", body: Array("opaque".utf8)))
        #expect(br.body == Array("opaque".utf8))
        #expect(throws: HTTP1ResponseParser.ParseError.self) {
            _ = try Self.parse(encoding: "gzip", body: Array(Self.gzip.dropLast(12)))
        }
        #expect(throws: HTTP1ResponseParser.ParseError.self) {
            _ = try Self.parse(encoding: "gzip", body: Array("plain text".utf8))
        }
    }
}
