import HTTPTypes
import NIOCore
import QueueClientCore

/// Reads HTTP/1.x responses from the bytes of one connection, straight into swift-http-types'
/// vocabulary: one response at a time (no pipelining), heads up to `maxHeadBytes`, bodies up
/// to `maxBodyBytes`, framed by `Content-Length`, `Transfer-Encoding: chunked` (extensions
/// and trailers read and dropped) or the connection's close. Interim 1xx answers are skipped;
/// 204, 304 and 1xx carry no body (RFC 9112 §6.3). Anything else malformed is an error, and
/// the connection is not used again.
///
/// NIO's llhttp decoder did this job first; it builds NIO's own header type, which then had to
/// be converted, and needs to see every request head go by. This parser is a third of the
/// live engine's cost per request less (docs/benchmarks.md).
struct HTTP1ResponseParser {
    static let maxHeadBytes = 64 << 10
    static let maxBodyBytes = 4 << 20

    struct ParseError: Error, CustomStringConvertible {
        var reason: String
        var description: String { "invalid HTTP response: \(reason)" }
    }

    /// A whole response, and whether the connection may carry another request.
    struct Response {
        var head: HTTPResponse
        var body: [UInt8]
        var keepAlive: Bool
    }

    private enum State {
        case head
        case fixedBody(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers
        case untilClose
    }

    private var state = State.head
    private var head: HTTPResponse?
    private var body: [UInt8] = []
    private var keepAlive = true
    /// Bytes of the current response received so far (for "did the server answer at all").
    private(set) var hasPartialResponse = false

    /// Consumes what it can of `buffer`; returns a response once one is complete (the rest of
    /// the buffer stays for the next call).
    mutating func parse(_ buffer: inout ByteBuffer) throws -> Response? {
        if buffer.readableBytes > 0 { hasPartialResponse = true }
        while true {
            switch state {
            case .head:
                guard try parseHead(&buffer) else { return nil }
            case .fixedBody(let remaining):
                let taken = min(remaining, buffer.readableBytes)
                try appendBody(&buffer, count: taken)
                guard remaining - taken == 0 else {
                    state = .fixedBody(remaining: remaining - taken)
                    return nil
                }
                return complete()
            case .chunkSize:
                guard let line = try readLine(&buffer, limit: 1024) else { return nil }
                let digits = line.prefix(while: { $0 != UInt8(ascii: ";") }).filter { $0 != 0x20 && $0 != 0x09 }
                guard !digits.isEmpty, digits.count <= 8,
                    let size = Int(String(decoding: digits, as: UTF8.self), radix: 16)
                else { throw ParseError(reason: "bad chunk size") }
                state = size == 0 ? .trailers : .chunkData(remaining: size)
            case .chunkData(let remaining):
                let taken = min(remaining, buffer.readableBytes)
                try appendBody(&buffer, count: taken)
                guard remaining - taken == 0 else {
                    state = .chunkData(remaining: remaining - taken)
                    return nil
                }
                state = .chunkDataEnd
            case .chunkDataEnd:
                guard let line = try readLine(&buffer, limit: 2) else { return nil }
                guard line.isEmpty else { throw ParseError(reason: "chunk without its line end") }
                state = .chunkSize
            case .trailers:
                guard let line = try readLine(&buffer, limit: Self.maxHeadBytes) else { return nil }
                if line.isEmpty { return complete() }
            case .untilClose:
                try appendBody(&buffer, count: buffer.readableBytes)
                return nil
            }
        }
    }

    /// The connection closed: a body framed by the close is complete now; anything else in
    /// progress is cut short (nil: no whole response).
    mutating func connectionClosed() -> Response? {
        guard case .untilClose = state else { return nil }
        keepAlive = false
        return complete()
    }

    private mutating func complete() -> Response? {
        guard let head else { return nil }
        let response = Response(head: head, body: body, keepAlive: keepAlive)
        self.head = nil
        body = []
        keepAlive = true
        state = .head
        hasPartialResponse = false
        return response
    }

    private mutating func appendBody(_ buffer: inout ByteBuffer, count: Int) throws {
        guard count > 0 else { return }
        guard body.count + count <= Self.maxBodyBytes else {
            throw ParseError(reason: "body over \(Self.maxBodyBytes) bytes")
        }
        buffer.withUnsafeReadableBytes { bytes in body.append(contentsOf: bytes.prefix(count)) }
        buffer.moveReaderIndex(forwardBy: count)
    }

    /// One line (without its CRLF or LF), or nil when the buffer does not hold a whole one yet.
    private func readLine(_ buffer: inout ByteBuffer, limit: Int) throws -> [UInt8]? {
        let found: (line: [UInt8], consumed: Int)? = buffer.withUnsafeReadableBytes { bytes in
            guard let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
            let end = newline > 0 && bytes[newline - 1] == UInt8(ascii: "\r") ? newline - 1 : newline
            return (Array(bytes[0..<end]), newline + 1)
        }
        guard let found else {
            if buffer.readableBytes > limit { throw ParseError(reason: "line over \(limit) bytes") }
            return nil
        }
        buffer.moveReaderIndex(forwardBy: found.consumed)
        return found.line
    }

    /// Parses a whole head if the buffer holds one; false when more bytes are needed.
    private mutating func parseHead(_ buffer: inout ByteBuffer) throws -> Bool {
        let parsed: (head: ParsedHead, length: Int)? = try buffer.withUnsafeReadableBytes { bytes in
            guard let end = Self.endOfHead(bytes) else {
                if bytes.count > Self.maxHeadBytes { throw ParseError(reason: "head over \(Self.maxHeadBytes) bytes") }
                return nil
            }
            return (try ParsedHead(UnsafeRawBufferPointer(rebasing: bytes[0..<end.headEnd])), end.consumed)
        }
        guard let parsed else { return false }
        buffer.moveReaderIndex(forwardBy: parsed.length)
        let code = parsed.head.status
        if code >= 100 && code < 200 && code != 101 { return true }  // interim: the real answer follows
        head = HTTPResponse(
            status: HTTPResponse.Status(code: code, reasonPhrase: parsed.head.reason), headerFields: parsed.head.fields)
        keepAlive = parsed.head.keepAlive
        if code == 204 || code == 304 || code == 101 {
            state = .fixedBody(remaining: 0)
        } else if parsed.head.chunked {
            state = .chunkSize
        } else if let length = parsed.head.contentLength {
            guard length <= Self.maxBodyBytes else { throw ParseError(reason: "body over \(Self.maxBodyBytes) bytes") }
            state = .fixedBody(remaining: length)
        } else {
            keepAlive = false
            state = .untilClose
        }
        return true
    }

    /// Where the head ends: the index of its blank line and how many bytes it takes with it.
    private static func endOfHead(_ bytes: UnsafeRawBufferPointer) -> (headEnd: Int, consumed: Int)? {
        var index = 0
        let count = bytes.count
        while index < count {
            guard let newline = bytes[index...].firstIndex(of: UInt8(ascii: "\n")) else { return nil }
            // A blank line: "\n\n" or "\n\r\n".
            if newline + 1 < count, bytes[newline + 1] == UInt8(ascii: "\n") { return (newline + 1, newline + 2) }
            if newline + 2 < count, bytes[newline + 1] == UInt8(ascii: "\r"), bytes[newline + 2] == UInt8(ascii: "\n") {
                return (newline + 1, newline + 3)
            }
            index = newline + 1
        }
        return nil
    }
}

/// The status line and header fields of one response head.
private struct ParsedHead {
    var status: Int
    var reason: String
    var fields = HTTPFields()
    var contentLength: Int?
    var chunked = false
    var keepAlive: Bool

    init(_ bytes: UnsafeRawBufferPointer) throws {
        var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { line in
            line.last == UInt8(ascii: "\r") ? line.dropLast() : line
        }
        while lines.last?.isEmpty == true { lines.removeLast() }
        guard let statusLine = lines.first else { throw HTTP1ResponseParser.ParseError(reason: "no status line") }
        // HTTP/1.x SP 3DIGIT [SP reason]
        guard statusLine.count >= 12, statusLine.starts(with: Self.http1Prefix),
            statusLine[statusLine.startIndex + 8] == UInt8(ascii: " ")
        else { throw HTTP1ResponseParser.ParseError(reason: "not an HTTP/1 status line") }
        let minor = statusLine[statusLine.startIndex + 7]
        let digits = statusLine[(statusLine.startIndex + 9)..<(statusLine.startIndex + 12)]
        guard digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            throw HTTP1ResponseParser.ParseError(reason: "bad status code")
        }
        status = digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        let reasonStart = min(statusLine.startIndex + 13, statusLine.endIndex)
        reason = String(decoding: statusLine[reasonStart...], as: UTF8.self)
        var closeRequested = false
        var keepAliveRequested = false
        fields.reserveCapacity(lines.count - 1)
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex else {
                throw HTTP1ResponseParser.ParseError(reason: "malformed header line")
            }
            guard line.first != UInt8(ascii: " "), line.first != UInt8(ascii: "\t") else {
                throw HTTP1ResponseParser.ParseError(reason: "folded header line")
            }
            guard let name = LiveHeaderNames.name(line[line.startIndex..<colon]) else {
                throw HTTP1ResponseParser.ParseError(reason: "bad header name")
            }
            var value = line[(colon + 1)...]
            while let first = value.first, first == 0x20 || first == 0x09 { value = value.dropFirst() }
            while let last = value.last, last == 0x20 || last == 0x09 { value = value.dropLast() }
            let text = String(decoding: value, as: UTF8.self)
            fields.append(HTTPField(name: name, value: text))
            if name == .contentLength {
                guard !value.isEmpty, value.count <= 18, value.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                    let length = Int(text), contentLength == nil || contentLength == length
                else { throw HTTP1ResponseParser.ParseError(reason: "bad Content-Length") }
                contentLength = length
            } else if name == .transferEncoding {
                chunked = text.lowercased().split(separator: ",").last?.trimmingASCIIBlanks() == "chunked"
                if !chunked { throw HTTP1ResponseParser.ParseError(reason: "unsupported Transfer-Encoding") }
            } else if name == .connection {
                for token in text.lowercased().split(separator: ",") {
                    switch token.trimmingASCIIBlanks() {
                    case "close": closeRequested = true
                    case "keep-alive": keepAliveRequested = true
                    default: break
                    }
                }
            }
        }
        if chunked { contentLength = nil }
        keepAlive = !closeRequested && (minor == UInt8(ascii: "1") || keepAliveRequested)
    }

    private static let http1Prefix = Array("HTTP/1.".utf8)
}

extension Substring {
    fileprivate func trimmingASCIIBlanks() -> Substring {
        var text = self
        while text.first == " " || text.first == "\t" { text = text.dropFirst() }
        while text.last == " " || text.last == "\t" { text = text.dropLast() }
        return text
    }
}
