import HTTPTypes

/// A visitor's cookies: the waiting room's queue cookies and the protected API's
/// `QueueITAccepted-SDFrts345E-V3_{e}` session cookie.
///
/// Deliberately small: name, value and the host or `Domain` it belongs to. Paths and
/// `Expires` dates are not tracked (no clock in a pure machine); `Max-Age=0` or a negative
/// `Max-Age` deletes, as the KnownUser connector's cancellation does.
package struct CookieJar: Sendable, Hashable {
    private struct Cookie: Sendable, Hashable {
        var domain: String
        /// False for host-only cookies (no `Domain` attribute).
        var includesSubdomains: Bool
        var name: String
        var value: String
    }

    private var cookies: [Cookie] = []

    package init() {}

    package var isEmpty: Bool { cookies.isEmpty }

    /// Stores every `Set-Cookie` of a response received from `host`.
    package mutating func store(_ fields: HTTPFields, from host: String) {
        for line in fields[values: .setCookie] {
            store(setCookie: line, from: host)
        }
    }

    package mutating func store(setCookie line: String, from host: String) {
        let parts = line.split(separator: ";", omittingEmptySubsequences: false)
        guard let pair = parts.first, let equals = pair.firstIndex(of: "=") else { return }
        let name = pair[..<equals].trimming([" ", "\t"])
        let value = pair[pair.index(after: equals)...].trimming([" ", "\t"])
        guard !name.isEmpty else { return }
        var domain = host.lowercased()
        var includesSubdomains = false
        var expired = false
        for attribute in parts.dropFirst() {
            let pieces = attribute.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = pieces[0].trimming([" ", "\t"]).lowercased()
            let argument = pieces.count > 1 ? pieces[1].trimming([" ", "\t"]) : ""
            switch key {
            case "domain" where !argument.isEmpty:
                domain = argument.lowercased().trimming(["."])
                includesSubdomains = true
            case "max-age":
                if let seconds = Int(argument), seconds <= 0 { expired = true }
            default:
                break
            }
        }
        cookies.removeAll { $0.name == name && $0.domain == domain }
        if !expired {
            cookies.append(Cookie(domain: domain, includesSubdomains: includesSubdomains, name: name, value: value))
        }
    }

    /// The `Cookie` header value for a request to `host`, or nil when no cookie applies.
    package func header(for host: String) -> String? {
        // Most visitors never get a cookie: skip lowercasing the host for them.
        guard !cookies.isEmpty else { return nil }
        let host = host.lowercased()
        let matching = cookies.filter { cookie in
            cookie.domain == host || (cookie.includesSubdomains && host.hasSuffix("." + cookie.domain))
        }
        guard !matching.isEmpty else { return nil }
        return matching.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }

    /// The value of the cookie `name` that applies to `host`.
    package func value(named name: String, for host: String) -> String? {
        let host = host.lowercased()
        return cookies.first { cookie in
            cookie.name == name
                && (cookie.domain == host || (cookie.includesSubdomains && host.hasSuffix("." + cookie.domain)))
        }?.value
    }

    /// Forgets the cookies that apply to `host` (the hybrid flow clears them on a redirect).
    package mutating func removeAll(for host: String) {
        let host = host.lowercased()
        cookies.removeAll { cookie in
            cookie.domain == host || (cookie.includesSubdomains && host.hasSuffix("." + cookie.domain))
        }
    }
}

extension Substring {
    func trimming(_ set: Set<Character>) -> String { String(self).trimming(set) }
}
