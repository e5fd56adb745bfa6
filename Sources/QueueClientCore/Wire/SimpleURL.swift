/// The parts of an absolute URL the client core needs: scheme, host, port, path, query.
///
/// Hand-rolled rather than Foundation's `URL` so that `queueit://restartSession`, relative
/// `Location` headers and odd hosts parse the same way on every platform, and so the
/// navigation rules see exactly what the SDK's WebView sees.
public struct SimpleURL: Sendable, Hashable, CustomStringConvertible {
    /// Lowercased scheme, e.g. `https` or `queueit`.
    public var scheme: String
    /// The host as written (compare it case-insensitively).
    public var host: String
    public var port: Int?
    /// The path, `/` when the URL has none and the scheme is http(s).
    public var path: String
    /// The raw query after `?` (still percent-encoded), nil when there is no `?`.
    public var query: String?

    public init(scheme: String, host: String, port: Int? = nil, path: String, query: String? = nil) {
        self.scheme = scheme.lowercased()
        self.host = host
        self.port = port
        self.path = path
        self.query = query
    }

    /// Parses an absolute URL (`scheme://authority/path?query#fragment`). Nil when there is no
    /// `scheme://`.
    public init?(_ string: String) {
        self.init(string, sharingStringsWith: nil)
    }

    /// The same parse; where the host or path has the same bytes as `known`'s, the result
    /// holds `known`'s string instead of a new copy (visitors of one room share them).
    init?(_ string: String, sharingStringsWith known: SimpleURL?) {
        switch Self.parseASCII(string, known: known) {
        case .parsed(let url):
            self = url
            return
        case .invalid:
            return nil
        case .notASCII:
            break
        }
        guard let schemeEnd = string.range(of: "://") else { return nil }
        let scheme = string[..<schemeEnd.lowerBound]
        guard let first = scheme.first, first.isLetter,
            scheme.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == "." })
        else { return nil }
        var rest = string[schemeEnd.upperBound...]
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        var host = Substring(authority)
        var port: Int?
        if let colon = authority.lastIndex(of: ":"), !authority.hasSuffix("]") {
            let portText = authority[authority.index(after: colon)...]
            if let value = Int(portText) {
                port = value
                host = authority[..<colon]
            } else if portText.isEmpty {
                host = authority[..<colon]
            }
        }
        let pathAndQuery = rest[authorityEnd...]
        let path: Substring
        var query: String?
        if let questionMark = pathAndQuery.firstIndex(of: "?") {
            path = pathAndQuery[..<questionMark]
            query = String(pathAndQuery[pathAndQuery.index(after: questionMark)...])
        } else {
            path = pathAndQuery
        }
        let lowerScheme = scheme.lowercased()
        let isWeb = lowerScheme == "http" || lowerScheme == "https"
        self.init(
            scheme: lowerScheme, host: String(host), port: port,
            path: path.isEmpty && isWeb ? "/" : String(path), query: query)
    }

    /// Resolves a `Location` value against this URL: absolute URLs as they are,
    /// `//host/...`, `/path?query`, `?query` and relative paths against this one.
    public func resolving(_ reference: String) -> SimpleURL? {
        // Trimming builds a character set: only trim what has something to trim.
        func isBlank(_ byte: UInt8?) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        let reference =
            isBlank(reference.utf8.first) || isBlank(reference.utf8.last) ? reference.trimming([" ", "\t"]) : reference
        if let absolute = SimpleURL(reference) { return absolute }
        if reference.hasPrefix("//") { return SimpleURL("\(scheme):\(reference)") }
        var resolved = self
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
            resolved.query = newQuery ?? (target.isEmpty ? query : nil)
            return resolved
        }
        if newPath.hasPrefix("/") {
            resolved.path = String(newPath)
        } else {
            let directory = path.lastIndex(of: "/").map { path[...$0] } ?? "/"
            resolved.path = String(directory) + String(newPath)
        }
        resolved.query = newQuery
        return resolved
    }

    /// `host` or `host:port` when a port is given.
    public var authority: String {
        guard let port else { return host }
        return "\(host):\(port)"
    }

    /// Path plus `?query`, as an HTTP request target.
    public var pathAndQuery: String {
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
    public func queryValue(_ name: String) -> String? {
        guard let query else { return nil }
        if let value = Self.asciiQueryValue(name, in: query) { return value }
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if PercentEncoding.decode(String(parts[0]), plusAsSpace: true) == name {
                return parts.count > 1 ? PercentEncoding.decode(String(parts[1]), plusAsSpace: true) : ""
            }
        }
        return nil
    }

    /// This URL with `name=value` appended to its query (value percent-encoded).
    public func appendingQuery(_ name: String, _ value: String) -> SimpleURL {
        var copy = self
        let item = "\(PercentEncoding.queryComponent(name))=\(PercentEncoding.queryComponent(value))"
        if let query, !query.isEmpty {
            copy.query = "\(query)&\(item)"
        } else {
            copy.query = item
        }
        return copy
    }

    public var description: String {
        "\(scheme)://\(authority)\(pathAndQuery)"
    }
}

extension SimpleURL {
    /// `queryValue` over bytes for an ASCII query, where splitting bytes on `&` and `=` splits
    /// exactly where the character-level split does. `.some(nil)`: the name is not there; nil:
    /// not ASCII, take the general path.
    fileprivate static func asciiQueryValue(_ name: String, in query: String) -> String?? {
        var query = query
        var name = name
        return query.withUTF8 { bytes -> String?? in
            guard bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
            // A key without `%` or `+` decodes to itself: compare its bytes, make no string.
            // Only against an ASCII name: `String ==` finds "K" equal to U+212A (Kelvin sign).
            let nameIsASCII = ASCIIByte.isASCII(name)
            func keyMatches(_ key: UnsafeBufferPointer<UInt8>) -> Bool {
                if nameIsASCII, !key.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) {
                    return name.withUTF8 { $0.elementsEqual(key) }
                }
                return PercentEncoding.decode(String(decoding: key, as: UTF8.self), plusAsSpace: true) == name
            }
            var start = 0
            while start <= bytes.count {
                let end = bytes[start...].firstIndex(of: UInt8(ascii: "&")) ?? bytes.count
                if end > start {
                    let pair = bytes[start..<end]
                    let equals = pair.firstIndex(of: UInt8(ascii: "="))
                    if keyMatches(UnsafeBufferPointer(rebasing: bytes[start..<(equals ?? end)])) {
                        guard let equals else { return .some("") }
                        let value = String(
                            decoding: UnsafeBufferPointer(rebasing: bytes[(equals + 1)..<end]), as: UTF8.self)
                        return .some(PercentEncoding.decode(value, plusAsSpace: true))
                    }
                }
                start = end + 1
            }
            return .some(nil)
        }
    }

    private enum ASCIIParse {
        case parsed(SimpleURL)
        case invalid
        case notASCII
    }

    /// The same parse as `init?(_:)`, over bytes, for ASCII text (every URL the room and most
    /// servers send): there every character is one byte and the delimiters `:/?#@` can only be
    /// found where the character-level search finds them. Non-ASCII text takes the general path.
    private static func parseASCII(_ string: String, known: SimpleURL?) -> ASCIIParse {
        var string = string
        return string.withUTF8 { bytes in
            guard bytes.allSatisfy({ $0 < 0x80 }) else { return .notASCII }
            func text(_ range: Range<Int>) -> String {
                String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
            }
            func text(_ range: Range<Int>, orKnown candidate: String?) -> String {
                guard var candidate else { return text(range) }
                let same = candidate.withUTF8 { $0.elementsEqual(bytes[range]) }
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
            guard let schemeEnd, schemeEnd > 0, isAlpha(bytes[0]) else { return .invalid }
            for byte in bytes[0..<schemeEnd] {
                guard
                    isAlpha(byte) || isDigit(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")
                        || byte == UInt8(ascii: ".")
                else { return .invalid }
            }
            let restStart = schemeEnd + 3
            var restEnd = count
            if let hash = bytes[restStart...].firstIndex(of: UInt8(ascii: "#")) { restEnd = hash }
            let authorityEnd =
                bytes[restStart..<restEnd].firstIndex(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") })
                ?? restEnd
            var authorityStart = restStart
            if let at = bytes[restStart..<authorityEnd].lastIndex(of: UInt8(ascii: "@")) { authorityStart = at + 1 }
            var hostEnd = authorityEnd
            var port: Int?
            let endsWithBracket = authorityEnd > authorityStart && bytes[authorityEnd - 1] == UInt8(ascii: "]")
            if let colon = bytes[authorityStart..<authorityEnd].lastIndex(of: UInt8(ascii: ":")), !endsWithBracket {
                let portText = text((colon + 1)..<authorityEnd)
                if let value = Int(portText) {
                    port = value
                    hostEnd = colon
                } else if portText.isEmpty {
                    hostEnd = colon
                }
            }
            var pathEnd = restEnd
            var query: String?
            if let questionMark = bytes[authorityEnd..<restEnd].firstIndex(of: UInt8(ascii: "?")) {
                pathEnd = questionMark
                query = text((questionMark + 1)..<restEnd)
            }
            let scheme = text(0..<schemeEnd).lowercased()
            let isWeb = scheme == "http" || scheme == "https"
            let path = pathEnd == authorityEnd && isWeb ? "/" : text(authorityEnd..<pathEnd, orKnown: known?.path)
            let host = text(authorityStart..<hostEnd, orKnown: known?.host)
            return .parsed(SimpleURL(scheme: scheme, host: host, port: port, path: path, query: query))
        }
    }
}
