import HTTPTypes
@_spi(Wire) import QueueClientCore

/// The parts of an HTTP request the room routes on: host (without port), path segments with
/// the room's prefix still on (`path.withSegments`), query items, and cookies.
///
/// Every request of a virtual run passes through here: the target is split over its UTF-8 bytes
/// (`/`, `?`, `&`, `=` are single bytes never found inside a multi-byte character, so this is
/// the split for any text) and the query is parsed only on demand.
struct RoomRequest {
    let method: HTTPRequest.Method
    /// Only entrances with a proxy domain and the protected API look at it: read on demand.
    var host: String? {
        let authority = head.authority ?? head.headerFields[.hostHeader]
        return authority.map { Self.lowercasedASCII(Self.hostWithoutPort($0)) }
    }
    /// The request target's path, its segments found when routing (`withSegments`).
    let path: TargetPath
    /// The text after `?`, still encoded; empty without a query.
    private let rawQuery: Substring
    let head: HTTPRequest

    init(_ request: HTTPRequest) {
        head = request
        method = request.method
        let target = request.path ?? "/"
        path = TargetPath(target)
        let utf8 = target.utf8
        rawQuery = path.end < utf8.count ? target[utf8.index(utf8.startIndex, offsetBy: path.end + 1)...] : ""
    }

    /// Query items, decoded, in order.
    var query: [(name: String, value: String)] {
        var items: [(name: String, value: String)] = []
        forEachRawQueryItem { name, value in
            items.append((Self.decoded(String(name)), value.map { Self.decoded(String($0)) } ?? ""))
            return true
        }
        return items
    }

    /// The first item named `name` (names compare as decoded bytes, as the connectors' string
    /// equality does), decoded; as `query.first`, but decoding only the value asked for (every
    /// queue-page request looks up `q`).
    func queryValue(_ name: String) -> String? {
        guard !rawQuery.isEmpty else { return nil }
        // Over the query's contiguous bytes; an item with nothing to decode (no `%`, no `+`:
        // every queue-page request's `q=`) is compared and copied as it is, which is what
        // decoding it would give.
        var (query, wanted) = (rawQuery, name)
        return wanted.withUTF8 { wanted in
            query.withUTF8 { bytes -> String? in
                var itemStart = 0
                while itemStart < bytes.count {
                    var itemEnd = itemStart
                    var equals: Int?
                    var encoded = false
                    while itemEnd < bytes.count, bytes[itemEnd] != UInt8(ascii: "&") {
                        let byte = bytes[itemEnd]
                        if byte == UInt8(ascii: "="), equals == nil { equals = itemEnd }
                        if byte == UInt8(ascii: "%") || byte == UInt8(ascii: "+") { encoded = true }
                        itemEnd += 1
                    }
                    defer { itemStart = itemEnd + 1 }
                    guard itemStart != itemEnd else { continue }
                    let nameBytes = UnsafeBufferPointer(rebasing: bytes[itemStart..<(equals ?? itemEnd)])
                    let valueBytes = equals.map { UnsafeBufferPointer(rebasing: bytes[($0 + 1)..<itemEnd]) }
                    if encoded {
                        let name = Self.decoded(String(decoding: nameBytes, as: UTF8.self))
                        guard name.utf8.elementsEqual(wanted) else { continue }
                        return valueBytes.map { Self.decoded(String(decoding: $0, as: UTF8.self)) } ?? ""
                    }
                    guard ASCIIByte.equal(nameBytes, wanted) else { continue }
                    return valueBytes.map { String(decoding: $0, as: UTF8.self) } ?? ""
                }
                return nil
            }
        }
    }

    /// Calls `body` with each non-empty `&`-separated item, split at its first `=` (nil value:
    /// no `=`), still encoded, until it returns false. No array of items is built.
    private func forEachRawQueryItem(_ body: (_ name: Substring, _ value: Substring?) -> Bool) {
        guard !rawQuery.isEmpty else { return }
        let utf8 = rawQuery.utf8
        var itemStart = utf8.startIndex
        while itemStart != utf8.endIndex {
            let itemEnd = utf8[itemStart...].firstIndex(of: UInt8(ascii: "&")) ?? utf8.endIndex
            if itemStart != itemEnd {
                let item = rawQuery[itemStart..<itemEnd]
                let equals = utf8[itemStart..<itemEnd].firstIndex(of: UInt8(ascii: "="))
                guard equals.map({ body(item[..<$0], item[utf8.index(after: $0)...]) }) ?? body(item, nil) else {
                    return
                }
            }
            itemStart = itemEnd == utf8.endIndex ? itemEnd : utf8.index(after: itemEnd)
        }
    }

    func header(_ name: String) -> String? {
        HTTPField.Name(name).flatMap { head.headerFields[$0] }
    }

    /// The value of cookie `name` from every `Cookie` header.
    func cookie(_ name: String) -> String? {
        for field in head.headerFields[values: .cookie] {
            for pair in field.split(separator: ";") {
                let trimmed = pair.drop(while: { $0 == " " })
                guard let equals = trimmed.firstIndex(of: "=") else { continue }
                if trimmed[..<equals] == name { return String(trimmed[trimmed.index(after: equals)...]) }
            }
        }
        return nil
    }

    private static func hostWithoutPort(_ authority: String) -> String {
        // Over bytes: `[`, `]` and `:` are single bytes in any UTF-8 text.
        let utf8 = authority.utf8
        if utf8.first == UInt8(ascii: "["), let close = utf8.firstIndex(of: UInt8(ascii: "]")) {
            return String(authority[...close])
        }
        if let colon = utf8.lastIndex(of: UInt8(ascii: ":")) { return String(authority[..<colon]) }
        return authority
    }

    private static func decoded(_ text: String) -> String {
        ConnectorEncoding.decode(text) ?? text
    }

    /// `lowercased()`, without a copy when the text is ASCII with no capital letter.
    private static func lowercasedASCII(_ text: String) -> String {
        var copy = text
        let plain = copy.withUTF8 { bytes in
            bytes.allSatisfy { $0 < 0x80 && !(UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }
        }
        return plain ? text : text.lowercased()
    }
}

/// A request target's path: where it ends and how many segments it has, found in one pass
/// over its bytes. The segments themselves are byte ranges made when routing
/// (`withSegments`), not substrings: making one retained the target and aligned its indices
/// (1.5 % of a virtual run), and releasing them with the request was 1 % more.
struct TargetPath {
    /// The request target (`/` without one).
    let target: String
    /// The path's end in `target`'s UTF-8 (the `?`, or the end), and its segment count.
    let end: Int
    private let segmentCount: Int

    init(_ target: String) {
        self.target = target
        var contiguous = target
        (end, segmentCount) = contiguous.withUTF8 { bytes in
            let slash = UInt8(ascii: "/")
            let end = ASCIIByte.firstIndex(of: UInt8(ascii: "?"), in: bytes, 0..<bytes.count) ?? bytes.count
            var count = 0
            var previous = slash
            for offset in 0..<end {
                if bytes[offset] != slash && previous == slash { count += 1 }
                previous = bytes[offset]
            }
            return (end, count)
        }
    }

    /// Calls `body` with the path's non-empty `/`-separated segments (the room's prefix still
    /// on), as byte ranges of the target held in a stack buffer.
    func withSegments<Result>(_ body: (PathSegments) -> Result) -> Result {
        let (end, segmentCount) = (end, segmentCount)
        return target.utf8.withContiguousStorageIfAvailable { bytes in
            withUnsafeTemporaryAllocation(of: Range<Int>.self, capacity: max(segmentCount, 1)) { ranges in
                var filled = 0
                var start = -1
                for offset in 0...end {
                    if offset == end || bytes[offset] == UInt8(ascii: "/") {
                        if start >= 0 {
                            ranges.initializeElement(at: filled, to: start..<offset)
                            filled += 1
                        }
                        start = -1
                    } else if start < 0 {
                        start = offset
                    }
                }
                // `Range<Int>` is trivial: nothing to deinitialize.
                return body(PathSegments(bytes: bytes, ranges: UnsafeBufferPointer(rebasing: ranges[0..<filled])))
            }
        } ?? TargetPath(String(decoding: Array(target.utf8), as: UTF8.self)).withSegments(body)
    }
}

/// A request path's segments as byte ranges of its UTF-8 (`/` is one byte in any text), valid
/// inside `TargetPath.withSegments`. Segments compare by their bytes, as a server routes.
struct PathSegments {
    let bytes: UnsafeBufferPointer<UInt8>
    let ranges: UnsafeBufferPointer<Range<Int>>

    var count: Int { ranges.count }

    subscript(index: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: bytes[ranges[index]])
    }

    /// Whether segment `index` is `literal`.
    func `is`(_ index: Int, _ literal: StaticString) -> Bool {
        ASCIIByte.equal(self[index], literal)
    }

    /// Whether the segments from `start` begin with `prefix`'s segments.
    func hasPrefix(_ prefix: [[UInt8]], from start: Int = 0) -> Bool {
        guard count - start >= prefix.count else { return false }
        for (offset, segment) in prefix.enumerated() {
            let same = segment.withUnsafeBufferPointer { ASCIIByte.equal(self[start + offset], $0) }
            if !same { return false }
        }
        return true
    }

    /// Segment `index` as text (still percent-encoded), for an error message.
    func text(_ index: Int) -> String {
        String(decoding: self[index], as: UTF8.self)
    }
}

extension HTTPField.Name {
    static let queueItRedirect = HTTPField.Name("x-queueit-redirect")!
    static let queueItAjaxPageURL = HTTPField.Name("x-queueit-ajaxpageurl")!
    /// Only for requests converted without an authority (HTTP/1 keeps `Host` in `authority`).
    static let hostHeader = HTTPField.Name("Host")!
    static let pragma = HTTPField.Name("Pragma")!
}
