import HTTPTypes

/// The parts of an HTTP request the room routes on: host (without port), path segments with
/// the room's prefix still on, query items, and cookies.
struct RoomRequest {
    let method: HTTPRequest.Method
    let host: String?
    let pathSegments: [Substring]
    let query: [(name: String, value: String)]
    let head: HTTPRequest

    init(_ request: HTTPRequest) {
        head = request
        method = request.method
        let authority = request.authority ?? request.headerFields[.hostHeader]
        host = authority.map { Self.hostWithoutPort($0).lowercased() }
        let target = request.path ?? "/"
        let pathPart: Substring
        if let mark = target.firstIndex(of: "?") {
            pathPart = target[..<mark]
            query = Self.parseQuery(target[target.index(after: mark)...])
        } else {
            pathPart = Substring(target)
            query = []
        }
        pathSegments = pathPart.split(separator: "/")
    }

    func queryValue(_ name: String) -> String? {
        query.first(where: { $0.name == name })?.value
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
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            return String(authority[...close])
        }
        if let colon = authority.lastIndex(of: ":") { return String(authority[..<colon]) }
        return authority
    }

    private static func parseQuery(_ text: Substring) -> [(name: String, value: String)] {
        text.split(separator: "&").map { item in
            guard let equals = item.firstIndex(of: "=") else {
                return (PercentEncoding.decode(String(item)) ?? String(item), "")
            }
            let name = String(item[..<equals])
            let value = String(item[item.index(after: equals)...])
            return (PercentEncoding.decode(name) ?? name, PercentEncoding.decode(value) ?? value)
        }
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
