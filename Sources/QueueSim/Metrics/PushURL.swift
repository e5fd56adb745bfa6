import Foundation

/// A `--metrics-push` URL, checked before the run starts: an invalid one is exit 2 with one
/// sentence, never a crash at the end of the run (port 99999 once trapped inside
/// `SocketAddress`).
///
/// Deliberately narrower than RFC 3986, because the URL is typed by a person and carries
/// credentials: `http`/`https` only, ASCII only, no whitespace or control characters, no
/// fragment, no `.`/`..` segments or backslashes (which servers and proxies resolve
/// differently), and `@` only as the end of the user info. The user info (`user:password@`,
/// how hosted Prometheus and Mimir authenticate) is sent as HTTP Basic authentication, never as
/// part of the URL, and `description` leaves it out.
package struct PushURL: Sendable, Equatable, CustomStringConvertible {
    package var isHTTPS: Bool
    /// `user:password` as typed (percent-encoded), nil without `@`.
    package var userInfo: String?
    /// The host as the URL has it: a name, an IPv4 address, or `[IPv6]` with its brackets.
    package var host: String
    package var port: Int?
    /// From the first `/` or `?` after the authority, query included; "" for none.
    package var pathAndQuery: String

    package enum Problem: Error, Equatable, Sendable, CustomStringConvertible {
        case empty
        case notHTTP
        case notASCII
        case whitespaceOrControl
        case noHost
        case badHost(String)
        case badPort(String)
        case fragment
        case dotSegment
        case backslash
        case strayAt
        case badPercentEncoding
        case unparseable

        package var description: String {
            switch self {
            case .empty: "is empty"
            case .notHTTP: "is not an http:// or https:// URL"
            case .notASCII: "has a character outside ASCII (percent-encode it)"
            case .whitespaceOrControl: "has a space or a control character"
            case .noHost: "names no host"
            case .badHost(let host): "has a host that is not a name or an IP address (\(host))"
            case .badPort(let port): "has a port that is not a number from 1 to 65535 (\(port))"
            case .fragment: "has a fragment (#…), which is never sent to a server"
            case .dotSegment: "has a . or .. path segment, which servers resolve differently"
            case .backslash: "has a backslash, which servers read differently"
            case .strayAt: "has an @ that does not end the user info (percent-encode it as %40)"
            case .badPercentEncoding: "has a % not followed by two hex digits"
            case .unparseable: "is not a URL an HTTP client can send to"
            }
        }
    }

    /// The URL without its user info: what AsyncHTTPClient is asked for.
    package var requestURL: String {
        (isHTTPS ? "https://" : "http://") + host + (port.map { ":\($0)" } ?? "") + pathAndQuery
    }

    /// For messages and files: the user info, when there is one, as `<redacted>`, and token-like
    /// query values redacted (`SecretRedaction`).
    package var description: String {
        let scheme = isHTTPS ? "https://" : "http://"
        let credentials = userInfo == nil ? "" : SecretRedaction.replacement + "@"
        return SecretRedaction.redact(scheme + credentials + host + (port.map { ":\($0)" } ?? "") + pathAndQuery)
    }

    /// The user info as a Basic-authentication pair, percent-decoded; nil without user info.
    package var basicCredentials: (user: String, password: String)? {
        guard let userInfo else { return nil }
        let parts = userInfo.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        let user = Self.percentDecoded(String(parts[0]))
        let password = parts.count > 1 ? Self.percentDecoded(String(parts[1])) : ""
        return (user, password)
    }

    package static func parse(_ text: String) -> Result<PushURL, Problem> {
        if text.isEmpty { return .failure(.empty) }
        let bytes = Array(text.utf8)
        if bytes.contains(where: { $0 >= 0x80 }) { return .failure(.notASCII) }
        if bytes.contains(where: { $0 <= 0x20 || $0 == 0x7F }) { return .failure(.whitespaceOrControl) }
        if bytes.contains(UInt8(ascii: "\\")) { return .failure(.backslash) }
        if bytes.contains(UInt8(ascii: "#")) { return .failure(.fragment) }
        let lowered = text.lowercased()
        let isHTTPS: Bool
        if lowered.hasPrefix("https://") {
            isHTTPS = true
        } else if lowered.hasPrefix("http://") {
            isHTTPS = false
        } else {
            return .failure(.notHTTP)
        }
        let rest = bytes[(isHTTPS ? 8 : 7)...]
        let authorityEnd =
            rest.firstIndex(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") }) ?? rest.endIndex
        let authority = rest[rest.startIndex..<authorityEnd]
        let tail = rest[authorityEnd...]
        if tail.contains(UInt8(ascii: "@")) { return .failure(.strayAt) }
        if !percentEncodingIsValid(rest) { return .failure(.badPercentEncoding) }
        if hasDotSegment(tail) { return .failure(.dotSegment) }
        return parseAuthority(authority).flatMap { userInfo, host, port in
            let url = PushURL(
                isHTTPS: isHTTPS, userInfo: userInfo, host: host, port: port,
                pathAndQuery: String(decoding: tail, as: UTF8.self))
            // What the HTTP client itself parses: a URL it cannot read fails here, not at the end.
            guard let parsed = URL(string: url.requestURL), parsed.host != nil else { return .failure(.unparseable) }
            return .success(url)
        }
    }

    /// `[user[:password]@]host[:port]`.
    private static func parseAuthority(
        _ authority: ArraySlice<UInt8>
    ) -> Result<(String?, String, Int?), Problem> {
        var hostAndPort = authority
        var userInfo: String?
        let ats = authority.indices.filter { authority[$0] == UInt8(ascii: "@") }
        if ats.count > 1 { return .failure(.strayAt) }
        if let at = ats.first {
            userInfo = String(decoding: authority[authority.startIndex..<at], as: UTF8.self)
            hostAndPort = authority[(at + 1)...]
        }
        if hostAndPort.first == UInt8(ascii: "["), !hostAndPort.contains(UInt8(ascii: "]")) {
            return .failure(.badHost(String(decoding: hostAndPort, as: UTF8.self)))
        }
        var hostEnd = hostAndPort.endIndex
        var portText: ArraySlice<UInt8>?
        let afterBracket = hostAndPort.lastIndex(of: UInt8(ascii: "]")) ?? hostAndPort.startIndex
        if let colon = hostAndPort[afterBracket...].lastIndex(of: UInt8(ascii: ":")) {
            hostEnd = colon
            portText = hostAndPort[(colon + 1)...]
        }
        let host = String(decoding: hostAndPort[hostAndPort.startIndex..<hostEnd], as: UTF8.self)
        if host.isEmpty { return .failure(.noHost) }
        if !isValidHost(host) { return .failure(.badHost(host)) }
        var port: Int?
        if let portText {
            let digits = String(decoding: portText, as: UTF8.self)
            guard !digits.isEmpty, digits.count <= 5, digits.utf8.allSatisfy({ (48...57).contains($0) }),
                let number = Int(digits), (1...65535).contains(number)
            else { return .failure(.badPort(digits.isEmpty ? "nothing after the colon" : digits)) }
            port = number
        }
        return .success((userInfo, host, port))
    }

    /// A DNS name or IPv4 address (letters, digits, `-`, `.`, `_`), or `[…]` holding an IPv6
    /// address's hex digits, colons and dots.
    private static func isValidHost(_ host: String) -> Bool {
        let bytes = Array(host.utf8)
        if bytes.first == UInt8(ascii: "[") {
            guard bytes.count > 2, bytes.last == UInt8(ascii: "]") else { return false }
            return bytes.dropFirst().dropLast().allSatisfy {
                isHexDigit($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".")
            } && bytes.contains(UInt8(ascii: ":"))
        }
        return bytes.allSatisfy {
            isAlphanumeric($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_")
        } && !bytes.allSatisfy({ $0 == UInt8(ascii: ".") })
    }

    /// A path segment `.` or `..`, also percent-encoded (`%2e%2E`), before the query.
    private static func hasDotSegment(_ tail: ArraySlice<UInt8>) -> Bool {
        let pathEnd = tail.firstIndex(of: UInt8(ascii: "?")) ?? tail.endIndex
        let path = String(decoding: tail[tail.startIndex..<pathEnd], as: UTF8.self).lowercased()
        return path.split(separator: "/", omittingEmptySubsequences: false).contains { segment in
            let plain = segment.replacingOccurrences(of: "%2e", with: ".")
            return plain == "." || plain == ".."
        }
    }

    private static func percentEncodingIsValid(_ bytes: ArraySlice<UInt8>) -> Bool {
        var index = bytes.startIndex
        while index < bytes.endIndex {
            if bytes[index] == UInt8(ascii: "%") {
                guard index + 2 < bytes.endIndex, isHexDigit(bytes[index + 1]), isHexDigit(bytes[index + 2])
                else { return false }
                index += 3
            } else {
                index += 1
            }
        }
        return true
    }

    private static func percentDecoded(_ text: String) -> String {
        var out: [UInt8] = []
        let bytes = Array(text.utf8)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
                let value = UInt8(String(decoding: bytes[(index + 1)...(index + 2)], as: UTF8.self), radix: 16)
            {
                out.append(value)
                index += 3
            } else {
                out.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (48...57).contains(byte) || (65...70).contains(byte) || (97...102).contains(byte)
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte)
    }
}
