/// The parts of an absolute URL the client core needs: scheme, host, port, path, query.
///
/// Hand-rolled rather than Foundation's `URL` so that `queueit://restartSession`, relative
/// `Location` headers and odd hosts parse the same way on every platform, and so the
/// navigation rules see exactly what the SDK's WebView sees.
package struct SimpleURL: Sendable, Hashable, CustomStringConvertible {
    /// Lowercased scheme, e.g. `https` or `queueit`.
    package var scheme: String
    /// The host as written (compare it case-insensitively).
    package var host: String
    package var port: Int?
    /// The path, `/` when the URL has none and the scheme is http(s).
    package var path: String
    /// The raw query after `?` (still percent-encoded), nil when there is no `?`.
    package var query: String?

    package init(scheme: String, host: String, port: Int? = nil, path: String, query: String? = nil) {
        self.scheme = scheme.lowercased()
        self.host = host
        self.port = port
        self.path = path
        self.query = query
    }

    /// The same, for a scheme known to be lowercase already (a packed URL's).
    init(unlowered scheme: String, host: String, port: Int?, path: String, query: String?) {
        self.scheme = scheme
        self.host = host
        self.port = port
        self.path = path
        self.query = query
    }

    /// Parses an absolute URL (`scheme://authority/path?query#fragment`). Nil when there is no
    /// `scheme://`.
    package init?(_ string: String) {
        self.init(string, sharingStringsWith: nil)
    }

    /// The same parse; where the host or path has the same bytes as `known`'s, the result
    /// holds `known`'s string instead of a new copy (visitors of one room share them).
    init?(_ string: String, sharingStringsWith known: SimpleURL?) {
        guard let url = Self.parse(string, known: known) else { return nil }
        self = url
    }

    /// Resolves a `Location` value against this URL as a browser does (RFC 3986 §5.2): absolute
    /// URLs, `//host/...`, `/path?query`, `?query` and relative paths against this one, with `.`
    /// and `..` segments removed from the path (§5.2.4) — a WebView never loads `/a/../b`.
    package func resolving(_ reference: String) -> SimpleURL? {
        Self.resolve(reference, against: self)
    }

    /// `base.resolving(reference)`, with `base` made only when `reference` is relative: a queue
    /// page's redirect at the visitor's turn is absolute, and its page's URL is kept packed.
    package static func resolve(_ reference: String, against base: @autoclosure () -> SimpleURL) -> SimpleURL? {
        guard var resolved = resolvingWithoutDotSegments(reference, against: base) else { return nil }
        if resolved.scheme == "http" || resolved.scheme == "https" {
            resolved.path = Self.removingDotSegments(resolved.path)
        }
        return resolved
    }

    private static func resolvingWithoutDotSegments(_ reference: String, against base: () -> SimpleURL) -> SimpleURL? {
        // Trimming builds a character set: only trim what has something to trim.
        func isBlank(_ byte: UInt8?) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        let reference =
            isBlank(reference.utf8.first) || isBlank(reference.utf8.last) ? reference.trimming([" ", "\t"]) : reference
        if let absolute = SimpleURL(reference) { return absolute }
        let base = base()
        if reference.hasPrefix("//") { return SimpleURL("\(base.scheme):\(reference)") }
        var resolved = base
        var target = Substring(reference)
        if let hash = target.firstIndex(of: "#") { target = target[..<hash] }
        var newPath = target
        var newQuery: String?
        if let questionMark = target.firstIndex(of: "?") {
            newPath = target[..<questionMark]
            newQuery = String(target[target.index(after: questionMark)...])
        }
        if newPath.isEmpty {
            // `?query` (or an empty reference) keeps the path.
            resolved.query = newQuery ?? (target.isEmpty ? base.query : nil)
            return resolved
        }
        if newPath.hasPrefix("/") {
            resolved.path = String(newPath)
        } else {
            let directory = base.path.lastIndex(of: "/").map { base.path[...$0] } ?? "/"
            resolved.path = String(directory) + String(newPath)
        }
        resolved.query = newQuery
        return resolved
    }

    /// Whether `string`, an absolute URL, has no path at all (`https://shop.example?x=1`): the
    /// SDKs' URL types read its path as empty, where `SimpleURL` and a WebView's navigation
    /// read `/`.
    package static func hasEmptyPath(_ string: String) -> Bool {
        // Over the contiguous bytes: every visitor's pass asks it of the target URL, and the
        // `utf8` view's generic `firstIndex(where:)` stepped through it a byte at a time.
        var text = string
        return text.withUTF8 { bytes in
            guard let colon = ASCIIByte.firstIndex(of: UInt8(ascii: ":"), in: bytes, 0..<bytes.count),
                colon + 2 < bytes.count, bytes[colon + 1] == UInt8(ascii: "/"), bytes[colon + 2] == UInt8(ascii: "/")
            else { return false }
            // The authority ends at the first `/` (a path), `?` or `#` (no path), or at the end.
            for byte in bytes[(colon + 3)...] {
                if byte == UInt8(ascii: "/") { return false }
                if byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { return true }
            }
            return true
        }
    }

    /// `host` or `host:port` when a port is given.
    package var authority: String {
        guard let port else { return host }
        return "\(host):\(port)"
    }

    /// Path plus `?query`, as an HTTP request target.
    package var pathAndQuery: String {
        guard let query else { return path }
        // Every queue-page load writes one: one exactly sized string, no interpolation.
        var text = ""
        text.reserveCapacity(path.utf8.count + 1 + query.utf8.count)
        text += path
        text += "?"
        text += query
        return text
    }

    /// The first value of `name` in the query, percent-decoded (`+` as space), or nil.
    /// Names compare exactly (case-sensitive), as Android's `getQueryParameter` does.
    /// Names compare by their decoded bytes, as Java's `String.equals` compares code units
    /// (Swift's `==` would find "K" equal to U+212A KELVIN SIGN).
    package func queryValue(_ name: String) -> String? {
        guard let query else { return nil }
        return Self.queryValue(name, in: query)
    }

    /// This URL with `name=value` appended to its query (value percent-encoded).
    package func appendingQuery(_ name: String, _ value: String) -> SimpleURL {
        var copy = self
        let item = "\(PercentEncoding.queryComponent(name))=\(PercentEncoding.queryComponent(value))"
        if let query, !query.isEmpty {
            copy.query = "\(query)&\(item)"
        } else {
            copy.query = item
        }
        return copy
    }

    package var description: String {
        "\(scheme)://\(authority)\(pathAndQuery)"
    }
}

extension SimpleURL {
    /// A parsed URL with its text up to and including the query's `?`. A text with the same
    /// bytes up to there and no `#` after them parses to the same scheme, host, port and path
    /// (the parse splits at the first `://`, then the first `/` or `?`, then the first `?`,
    /// all inside those bytes), with its own query: every visitor of a room is handed a queue
    /// URL that differs from the last one only in its query, and the full parse of each was
    /// 3 % of a virtual run.
    struct KnownPrefix: Sendable {
        let url: SimpleURL
        private let prefix: [UInt8]

        /// Nil when `text` (which parsed to `url`) has no `?`, or a `#` before its first.
        init?(_ url: SimpleURL, text: String) {
            let utf8 = Array(text.utf8)
            guard url.query != nil, let questionMark = utf8.firstIndex(of: UInt8(ascii: "?")),
                !utf8[..<questionMark].contains(UInt8(ascii: "#"))
            else { return nil }
            self.url = url
            prefix = Array(utf8[...questionMark])
        }

        /// What `SimpleURL(text)` gives when `text` starts with the prefix and has no `#` after
        /// it; nil otherwise (parse it).
        func parse(_ text: String) -> SimpleURL? {
            let query = prefix.withUnsafeBufferPointer { prefix in
                ASCIIByte.withBytes(of: text) { bytes -> String? in
                    guard bytes.count >= prefix.count,
                        ASCIIByte.equal(UnsafeBufferPointer(rebasing: bytes[..<prefix.count]), prefix),
                        ASCIIByte.firstIndex(of: UInt8(ascii: "#"), in: bytes, prefix.count..<bytes.count) == nil
                    else { return nil }
                    return String(decoding: UnsafeBufferPointer(rebasing: bytes[prefix.count...]), as: UTF8.self)
                }
            }
            guard let query else { return nil }
            return SimpleURL(unlowered: url.scheme, host: url.host, port: url.port, path: url.path, query: query)
        }

        /// A prefix for redirects: `url` is what `SimpleURL.resolve(reference, against:)` gave
        /// for an absolute `reference` (then any base gives it). Nil for a relative reference,
        /// one with a blank at either end (resolving trims those), or as `init(_:text:)`.
        init?(resolved url: SimpleURL, reference: String) {
            let utf8 = reference.utf8
            guard let first = utf8.first, let last = utf8.last, !Self.isBlank(first), !Self.isBlank(last),
                SimpleURL(reference) != nil
            else { return nil }
            self.init(url, text: reference)
        }

        /// What `SimpleURL.resolve(reference, against:)` gives, when `reference` has the prefix
        /// (so it is absolute, with this scheme, host, port and path once dot segments are
        /// removed), no `#` after it and no blank at its end; nil otherwise (resolve it).
        func resolve(_ reference: String) -> SimpleURL? {
            guard let last = reference.utf8.last, !Self.isBlank(last) else { return nil }
            return parse(reference)
        }

        private static func isBlank(_ byte: UInt8) -> Bool {
            byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
        }
    }

    /// `queryValue` over the query's UTF-8 bytes: `&` and `=` are single bytes that never occur
    /// inside a multi-byte character, so splitting bytes splits where the text splits.
    fileprivate static func queryValue(_ name: String, in query: String) -> String? {
        var query = query
        var name = name
        return name.withUTF8 { name in
            query.withUTF8 { bytes -> String? in
                // A key without `%` or `+` decodes to itself: compare its bytes, make no string.
                func keyMatches(_ key: UnsafeBufferPointer<UInt8>) -> Bool {
                    if ASCIIByte.firstIndex(of: UInt8(ascii: "%"), in: key, 0..<key.count) == nil,
                        ASCIIByte.firstIndex(of: UInt8(ascii: "+"), in: key, 0..<key.count) == nil
                    {
                        return ASCIIByte.equal(name, key)
                    }
                    let decoded = PercentEncoding.decode(String(decoding: key, as: UTF8.self), plusAsSpace: true)
                    return decoded.utf8.elementsEqual(name)
                }
                var start = 0
                while start <= bytes.count {
                    let end = ASCIIByte.firstIndex(of: UInt8(ascii: "&"), in: bytes, start..<bytes.count) ?? bytes.count
                    if end > start {
                        let equals = ASCIIByte.firstIndex(of: UInt8(ascii: "="), in: bytes, start..<end)
                        if keyMatches(UnsafeBufferPointer(rebasing: bytes[start..<(equals ?? end)])) {
                            guard let equals else { return "" }
                            let value = String(
                                decoding: UnsafeBufferPointer(rebasing: bytes[(equals + 1)..<end]), as: UTF8.self)
                            return PercentEncoding.decode(value, plusAsSpace: true)
                        }
                    }
                    start = end + 1
                }
                return nil
            }
        }
    }

    /// RFC 3986 §5.2.4 over `/`-separated segments: `.` goes, `..` takes the segment before it
    /// (never above the root); a path ending in `.` or `..` keeps its trailing `/`.
    static func removingDotSegments(_ path: String) -> String {
        // Nearly every path has no `.` at all: one byte scan, no split (every pass resolves one).
        var bytes = path
        guard bytes.withUTF8({ $0.contains(UInt8(ascii: ".")) }) else { return path }
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        guard segments.contains(where: { $0 == "." || $0 == ".." }) else { return path }
        var output: [Substring] = []
        for (index, segment) in segments.enumerated() {
            let isLast = index == segments.count - 1
            switch segment {
            case ".":
                if isLast { output.append("") }
            case "..":
                // Segment 0 is the empty one before the leading `/`: it stays.
                if output.count > 1 { output.removeLast() }
                if isLast { output.append("") }
            default:
                output.append(segment)
            }
        }
        let joined = output.joined(separator: "/")
        return path.hasPrefix("/") && !joined.hasPrefix("/") ? "/" + joined : joined
    }

    /// The parse, over the text's UTF-8 bytes: the delimiters `:/?#@` are single bytes that never
    /// occur inside a multi-byte character, so every slice between them is whole UTF-8. The
    /// scheme is ASCII letters, digits, `+`, `-`, `.` (RFC 3986 §3.1). Foundation's `URL` is the
    /// fuzz oracle (fuzz/Sources/URLFuzz).
    private static func parse(_ string: String, known: SimpleURL?) -> SimpleURL? {
        var string = string
        return string.withUTF8 { bytes -> SimpleURL? in
            func text(_ range: Range<Int>) -> String {
                String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
            }
            func text(_ range: Range<Int>, orKnown candidate: String?) -> String {
                guard var candidate else { return text(range) }
                let same = candidate.withUTF8 { ASCIIByte.equal($0, UnsafeBufferPointer(rebasing: bytes[range])) }
                return same ? candidate : text(range)
            }
            func isAlpha(_ byte: UInt8) -> Bool {
                (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
            }
            func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
            let count = bytes.count
            var schemeEnd: Int?
            var index = 0
            while index + 2 < count {
                if bytes[index] == UInt8(ascii: ":"), bytes[index + 1] == UInt8(ascii: "/"),
                    bytes[index + 2] == UInt8(ascii: "/")
                {
                    schemeEnd = index
                    break
                }
                index += 1
            }
            guard let schemeEnd, schemeEnd > 0, isAlpha(bytes[0]) else { return nil }
            for byte in bytes[0..<schemeEnd] {
                guard
                    isAlpha(byte) || isDigit(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")
                        || byte == UInt8(ascii: ".")
                else { return nil }
            }
            let restStart = schemeEnd + 3
            var restEnd = count
            if let hash = ASCIIByte.firstIndex(of: UInt8(ascii: "#"), in: bytes, restStart..<count) { restEnd = hash }
            var authorityEnd = restStart
            while authorityEnd < restEnd, bytes[authorityEnd] != UInt8(ascii: "/"),
                bytes[authorityEnd] != UInt8(ascii: "?")
            {
                authorityEnd += 1
            }
            var authorityStart = restStart
            if let at = ASCIIByte.lastIndex(of: UInt8(ascii: "@"), in: bytes, restStart..<authorityEnd) {
                authorityStart = at + 1
            }
            var hostEnd = authorityEnd
            var port: Int?
            let endsWithBracket = authorityEnd > authorityStart && bytes[authorityEnd - 1] == UInt8(ascii: "]")
            if let colon = ASCIIByte.lastIndex(of: UInt8(ascii: ":"), in: bytes, authorityStart..<authorityEnd),
                !endsWithBracket
            {
                let digits = bytes[(colon + 1)..<authorityEnd]
                if digits.isEmpty {
                    hostEnd = colon
                } else if digits.allSatisfy(isDigit) {
                    // Digits only (`Int` would take `+80`); past 65535 no browser loads it.
                    guard digits.count <= 5, let value = Int(text((colon + 1)..<authorityEnd)), value <= 65535 else {
                        return nil
                    }
                    port = value
                    hostEnd = colon
                }
            }
            var pathEnd = restEnd
            var query: String?
            if let questionMark = ASCIIByte.firstIndex(of: UInt8(ascii: "?"), in: bytes, authorityEnd..<restEnd) {
                pathEnd = questionMark
                query = text((questionMark + 1)..<restEnd)
            }
            // The web's two schemes as literals when written in lowercase (as every URL the room
            // and the SDKs write them): no string made and lowercased per URL.
            let schemeBytes = UnsafeBufferPointer(rebasing: bytes[0..<schemeEnd])
            let scheme =
                if ASCIIByte.equal(schemeBytes, "https") {
                    "https"
                } else if ASCIIByte.equal(schemeBytes, "http") {
                    "http"
                } else {
                    text(0..<schemeEnd).lowercased()
                }
            let isWeb = scheme == "http" || scheme == "https"
            let path = pathEnd == authorityEnd && isWeb ? "/" : text(authorityEnd..<pathEnd, orKnown: known?.path)
            let host = text(authorityStart..<hostEnd, orKnown: known?.host)
            return SimpleURL(scheme: scheme, host: host, port: port, path: path, query: query)
        }
    }
}
