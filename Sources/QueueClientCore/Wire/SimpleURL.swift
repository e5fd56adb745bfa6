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
        let reference = reference.trimming([" ", "\t"])
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
        return "\(path)?\(query)"
    }

    /// The first value of `name` in the query, percent-decoded (`+` as space), or nil.
    /// Names compare exactly (case-sensitive), as Android's `getQueryParameter` does.
    public func queryValue(_ name: String) -> String? {
        guard let query else { return nil }
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
