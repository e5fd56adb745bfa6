import HTTPTypes

/// The parts of an HTTP request the room routes on: host (without port), path segments with
/// the room's prefix still on, query items, and cookies.
///
/// Every request of a virtual run passes through here, so the common case (an ASCII target,
/// one query value looked up) avoids `Character` splitting and parses the query only on demand.
struct RoomRequest {
    let method: HTTPRequest.Method
    /// Only entrances with a proxy domain and the protected API look at it: read on demand.
    var host: String? {
        let authority = head.authority ?? head.headerFields[.hostHeader]
        return authority.map { Self.lowercasedASCII(Self.hostWithoutPort($0)) }
    }
    let pathSegments: [Substring]
    /// The text after `?`, still encoded; empty without a query.
    private let rawQuery: Substring
    /// An ASCII target splits over bytes where it would split over `Character`s; otherwise a
    /// `/`, `?`, `&` or `=` followed by a combining mark is one `Character`, not a separator,
    /// so such targets split as `Character`s.
    private let targetIsASCII: Bool
    let head: HTTPRequest

    init(_ request: HTTPRequest) {
        head = request
        method = request.method
        let target = request.path ?? "/"
        targetIsASCII = Self.isASCII(target)
        let pathPart: Substring
        if let mark = targetIsASCII ? target.utf8.firstIndex(of: UInt8(ascii: "?")) : target.firstIndex(of: "?") {
            pathPart = target[..<mark]
            rawQuery = target[target.index(after: mark)...]
        } else {
            pathPart = Substring(target)
            rawQuery = ""
        }
        pathSegments =
            targetIsASCII
            ? pathPart.utf8.split(separator: UInt8(ascii: "/")).map { Substring($0) } : pathPart.split(separator: "/")
    }

    /// Query items, decoded, in order.
    var query: [(name: String, value: String)] {
        rawQuery.isEmpty ? [] : Self.parseQuery(rawQuery, isASCII: targetIsASCII)
    }

    /// The first item named `name` (names compare decoded), decoded; as `query.first`.
    func queryValue(_ name: String) -> String? {
        guard !rawQuery.isEmpty else { return nil }
        guard targetIsASCII else { return query.first(where: { $0.name == name })?.value }
        for item in rawQuery.utf8.split(separator: UInt8(ascii: "&")) {
            let equals = item.firstIndex(of: UInt8(ascii: "="))
            let rawName = Substring(item[..<(equals ?? item.endIndex)])
            let plainName = !rawName.utf8.contains { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }
            let itemName = plainName ? String(rawName) : Self.decoded(String(rawName))
            guard itemName == name else { continue }
            guard let equals else { return "" }
            return Self.decoded(String(Substring(item[item.index(after: equals)...])))
        }
        return nil
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
        // An ASCII authority (every real one) is searched over bytes, which finds the same
        // `[`, `]` and `:` the `Character` search finds.
        let utf8 = authority.utf8
        guard isASCII(authority) else {
            if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
                return String(authority[...close])
            }
            if let colon = authority.lastIndex(of: ":") { return String(authority[..<colon]) }
            return authority
        }
        if utf8.first == UInt8(ascii: "["), let close = utf8.firstIndex(of: UInt8(ascii: "]")) {
            return String(authority[...close])
        }
        if let colon = utf8.lastIndex(of: UInt8(ascii: ":")) { return String(authority[..<colon]) }
        return authority
    }

    /// Over the contiguous bytes (a native string's own storage, no copy).
    private static func isASCII(_ text: String) -> Bool {
        var copy = text
        return copy.withUTF8 { bytes in bytes.allSatisfy { $0 < 0x80 } }
    }

    private static func decoded(_ text: String) -> String {
        PercentEncoding.decode(text) ?? text
    }

    /// `&`-separated items split at their first `=`.
    private static func parseQuery(_ text: Substring, isASCII: Bool) -> [(name: String, value: String)] {
        guard isASCII else {
            return text.split(separator: "&").map { item in
                guard let equals = item.firstIndex(of: "=") else { return (decoded(String(item)), "") }
                return (decoded(String(item[..<equals])), decoded(String(item[item.index(after: equals)...])))
            }
        }
        return text.utf8.split(separator: UInt8(ascii: "&")).map { item in
            guard let equals = item.firstIndex(of: UInt8(ascii: "=")) else {
                return (decoded(String(Substring(item))), "")
            }
            let name = String(Substring(item[..<equals]))
            let value = String(Substring(item[item.index(after: equals)...]))
            return (decoded(name), decoded(value))
        }
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

extension HTTPField.Name {
    static let queueItRedirect = HTTPField.Name("x-queueit-redirect")!
    static let queueItAjaxPageURL = HTTPField.Name("x-queueit-ajaxpageurl")!
    static let queueItToken = HTTPField.Name("x-queueittoken")!
    /// Only for requests converted without an authority (HTTP/1 keeps `Host` in `authority`).
    static let hostHeader = HTTPField.Name("Host")!
    static let pragma = HTTPField.Name("Pragma")!
}
