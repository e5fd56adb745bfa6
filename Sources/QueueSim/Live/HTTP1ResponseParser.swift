import HTTPTypes
import NIOCore
@_spi(Wire) import QueueClientCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads HTTP/1.x responses from the bytes of one connection, straight into swift-http-types'
/// vocabulary: one response at a time (no pipelining), heads up to `maxHeadBytes`, bodies up
/// to `maxBodyBytes`, framed by `Content-Length`, `Transfer-Encoding: chunked` (extensions
/// and trailers read and dropped) or the connection's close. Interim 1xx answers are skipped;
/// 204, 304 and 1xx carry no body (RFC 9112 §6.3). A gzip or deflate body is inflated, as the
/// phones' stacks inflate what their `Accept-Encoding` asked for (`ContentCoding`). Anything else
/// malformed is an error, and the connection is not used again.
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
    /// The current answer's `Content-Encoding`, when it is one the parser inflates.
    private var coding: ContentCoding?
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
                return try complete()
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
                if line.isEmpty { return try complete() }
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
        return try? complete()
    }

    private mutating func complete() throws -> Response? {
        guard let head else { return nil }
        var decoded = body
        if let coding {
            guard let inflated = coding.decode(body, limit: Self.maxBodyBytes) else {
                throw ParseError(reason: "a \(coding) body that does not inflate")
            }
            decoded = inflated
        }
        let response = Response(head: head, body: decoded, keepAlive: keepAlive)
        self.head = nil
        body = []
        coding = nil
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

    /// `200 OK` without a field the machines read, the answer to nearly every request: shared.
    /// `HTTPResponse` keeps its status in an object of its own, so a new one per answer was an
    /// allocation where a copy of this one is a retain.
    private static let plainOK = HTTPResponse(status: .ok)

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
        if code == 200, parsed.head.fields.isEmpty, parsed.head.reason == "OK" {
            head = Self.plainOK
        } else {
            head = HTTPResponse(
                status: HTTPResponse.Status(code: code, reasonPhrase: parsed.head.reason),
                headerFields: parsed.head.fields)
        }
        keepAlive = parsed.head.keepAlive
        coding = parsed.head.coding
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
            guard let newline = bytes.index(of: UInt8(ascii: "\n"), in: index..<count) else { return nil }
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

/// The status line and header fields of one response head, read over its bytes.
private struct ParsedHead {
    var status: Int
    var reason: String
    var fields = HTTPFields()
    var contentLength: Int?
    var chunked = false
    var keepAlive: Bool
    var coding: ContentCoding?

    /// `bytes`: the head up to (not including) its blank line; every line ends in LF.
    init(_ bytes: UnsafeRawBufferPointer) throws {
        typealias ParseError = HTTP1ResponseParser.ParseError
        var lineStart = 0
        /// The next line's bounds without its CR LF, or nil at the end.
        func nextLine() -> Range<Int>? {
            guard lineStart < bytes.count else { return nil }
            let newline = bytes.index(of: UInt8(ascii: "\n"), in: lineStart..<bytes.count) ?? bytes.count
            var end = newline
            if end > lineStart, bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
            defer { lineStart = newline + 1 }
            return lineStart..<end
        }
        // HTTP/1.x SP 3DIGIT [SP reason]
        guard let statusLine = nextLine(), statusLine.count >= 12,
            bytes[statusLine].starts(with: Self.http1Prefix), bytes[statusLine.lowerBound + 8] == UInt8(ascii: " ")
        else { throw ParseError(reason: "not an HTTP/1 status line") }
        let minor = bytes[statusLine.lowerBound + 7]
        var code = 0
        for index in (statusLine.lowerBound + 9)..<(statusLine.lowerBound + 12) {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit < 10 else { throw ParseError(reason: "bad status code") }
            code = code * 10 + Int(digit)
        }
        status = code
        reason = String(
            decoding: bytes[min(statusLine.lowerBound + 13, statusLine.upperBound)..<statusLine.upperBound],
            as: UTF8.self)
        var closeRequested = false
        var keepAliveRequested = false
        while let line = nextLine() {
            guard let colon = bytes.index(of: UInt8(ascii: ":"), in: line), colon > line.lowerBound else {
                throw ParseError(reason: "malformed header line")
            }
            let name = ResponseFieldName(bytes[line.lowerBound..<colon])
            var valueStart = colon + 1
            var valueEnd = line.upperBound
            while valueStart < valueEnd, bytes[valueStart] == 0x20 || bytes[valueStart] == 0x09 { valueStart += 1 }
            while valueEnd > valueStart, bytes[valueEnd - 1] == 0x20 || bytes[valueEnd - 1] == 0x09 { valueEnd -= 1 }
            let value = bytes[valueStart..<valueEnd]
            switch name {
            case .invalid:
                throw ParseError(reason: "bad header name")
            case .unread:
                continue
            case .read(let name):
                fields.append(HTTPField(name: name, value: String(decoding: value, as: UTF8.self)))
            case .contentLength:
                var length = 0
                guard !value.isEmpty, value.count <= 18 else { throw ParseError(reason: "bad Content-Length") }
                for byte in value {
                    let digit = byte &- UInt8(ascii: "0")
                    guard digit < 10 else { throw ParseError(reason: "bad Content-Length") }
                    length = length * 10 + Int(digit)
                }
                guard contentLength == nil || contentLength == length else {
                    throw ParseError(reason: "conflicting Content-Length")
                }
                contentLength = length
            case .transferEncoding:
                var last: Slice<UnsafeRawBufferPointer>?
                Self.forEachToken(value) { last = $0 }
                chunked = last.map { Self.equalsIgnoringCase($0, "chunked") } ?? false
                if !chunked { throw ParseError(reason: "unsupported Transfer-Encoding") }
            case .contentEncoding:
                coding = ContentCoding(value)
            case .connection:
                Self.forEachToken(value) { token in
                    if Self.equalsIgnoringCase(token, "close") { closeRequested = true }
                    if Self.equalsIgnoringCase(token, "keep-alive") { keepAliveRequested = true }
                }
            }
        }
        if chunked { contentLength = nil }
        keepAlive = !closeRequested && (minor == UInt8(ascii: "1") || keepAliveRequested)
    }

    private static let http1Prefix = Array("HTTP/1.".utf8)

    /// Calls `body` with each comma-separated token of a list value, without blanks.
    private static func forEachToken(
        _ value: Slice<UnsafeRawBufferPointer>, _ body: (Slice<UnsafeRawBufferPointer>) -> Void
    ) {
        var start = value.startIndex
        while start <= value.endIndex {
            let end = value[start...].firstIndex(of: UInt8(ascii: ",")) ?? value.endIndex
            var token = value[start..<end]
            while let first = token.first, first == 0x20 || first == 0x09 { token = token.dropFirst() }
            while let last = token.last, last == 0x20 || last == 0x09 { token = token.dropLast() }
            if !token.isEmpty { body(token) }
            start = end + 1
        }
    }

    private static func equalsIgnoringCase(_ bytes: Slice<UnsafeRawBufferPointer>, _ lowercase: StaticString) -> Bool {
        guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
        return lowercase.withUTF8Buffer { expected in
            zip(bytes, expected).allSatisfy { ASCIIByte.lowercased($0) == $1 }
        }
    }
}

/// What the parser does with a header field, by its name: the framing fields it reads itself,
/// the fields the client core reads (`IncomingResponse.fieldsReadByMachines`, kept), and the
/// rest, checked to be a valid name and dropped.
private enum ResponseFieldName {
    case contentLength, transferEncoding, connection, contentEncoding
    case read(HTTPField.Name)
    case unread
    case invalid

    private static let framing: [(name: [UInt8], kind: ResponseFieldName)] = [
        (Array("content-length".utf8), .contentLength),
        (Array("transfer-encoding".utf8), .transferEncoding),
        (Array("connection".utf8), .connection),
        (Array("content-encoding".utf8), .contentEncoding),
    ]
    private static let kept: [(name: [UInt8], kind: ResponseFieldName)] =
        IncomingResponse.fieldsReadByMachines.map { (Array($0.canonicalName.utf8), .read($0)) }
    private static let known = framing + kept
    /// The known names one after another, and where each ends: searched without taking each
    /// candidate out of `known` (a retain and a release of its name and of its kind's texts,
    /// for every candidate of every response line).
    private static let knownBytes: [UInt8] = known.flatMap(\.name)
    private static let knownEnds: [Int] = known.reduce(into: []) { $0.append(($0.last ?? 0) + $1.name.count) }

    init(_ bytes: Slice<UnsafeRawBufferPointer>) {
        let count = bytes.count
        let match = Self.knownBytes.withUnsafeBufferPointer { names in
            Self.knownEnds.withUnsafeBufferPointer { ends -> Int? in
                var start = 0
                search: for (index, end) in ends.enumerated() {
                    defer { start = end }
                    guard end - start == count else { continue }
                    var offset = bytes.startIndex
                    for position in start..<end {
                        guard ASCIIByte.lowercased(bytes[offset]) == names[position] else { continue search }
                        offset += 1
                    }
                    return index
                }
                return nil
            }
        }
        if let match {
            self = Self.known[match].kind
        } else {
            self = bytes.allSatisfy(Self.isTokenCharacter) ? .unread : .invalid
        }
    }

    /// RFC 9110 §5.6.2 `tchar`.
    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}

extension UnsafeRawBufferPointer {
    /// The index of the first `byte` in `range` (memchr: the head is scanned for every line
    /// and every field of every response).
    fileprivate func index(of byte: UInt8, in range: Range<Int>) -> Int? {
        guard !range.isEmpty, let base = baseAddress,
            let found = memchr(base + range.lowerBound, Int32(byte), range.count)
        else { return nil }
        return base.distance(to: UnsafeRawPointer(found))
    }
}
