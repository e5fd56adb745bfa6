@_spi(Wire) import QueueClientCore

/// Removes credential values from free text before it reaches a report or a terminal.
///
/// The runner should never put a token into a message, but messages quote what servers send:
/// a redirect `Location`, an error body, an `x-queueit-redirect` header, a JSON answer. Reports
/// are shared and archived, so every such text is scrubbed as a last line of defence, in every
/// form a server may echo a credential:
/// - named, as a parameter (`queueittoken=…`, URL-encoded `queueittoken%3D…`), a header
///   (`QueueitToken: …`, `x-queueittoken: …`) or a JSON member (`"QueueitToken":"…"`, also
///   backslash-escaped), for `queueittoken`, `enqueuetoken` and `enqueuekey` in any case, and the
///   session cookie `QueueITAccepted-SDFrts345E-V3_{event}=…`;
/// - bare: a KnownUser token (`e_…~q_…~rt_…~h_<hex>`, or with `~` encoded as `%7E`) and an
///   enqueue token (`eyJ….….…`, three base64url parts).
///
/// - a URL's user info (`https://user:TOKEN@host/…` → `https://<redacted>@host/…`: how hosted
///   Prometheus and Mimir take credentials in a `--metrics-push` URL), and the value of a query
///   parameter named like a credential (`?token=`, `access_token=`, `api_key=`, `apikey=`,
///   `password=`, `secret=`).
///
/// Only the value goes: `queueittoken=<redacted>` still says what was there.
package enum SecretRedaction {
    /// Names whose values are credentials (compared case-insensitively).
    static let secretNames = ["queueittoken", "enqueuetoken", "enqueuekey"].map { Array($0.utf8) }
    /// The KnownUser session cookie's name up to its event id.
    static let sessionCookiePrefix = Array("queueitaccepted-sdfrts345e-v3_".utf8)

    package static let replacement = "<redacted>"

    package static func redact(_ text: String) -> String {
        let bytes = Array(text.utf8)
        let mayHoldURLSecret = bytes.contains(UInt8(ascii: "@")) || bytes.contains(UInt8(ascii: "="))
        guard mayHoldURLSecret || mayHoldSecret(bytes) else { return text }
        var spans: [Range<Int>] = []
        if mayHoldURLSecret {
            urlUserInfo(in: bytes, into: &spans)
            credentialQueryValues(in: bytes, into: &spans)
        }
        namedValues(in: bytes, into: &spans)
        bareKnownUserTokens(in: bytes, into: &spans)
        bareEnqueueTokens(in: bytes, into: &spans)
        guard !spans.isEmpty else { return text }
        return replacing(spans, in: bytes)
    }

    /// A cheap first look, so the common message (no credential at all) costs one pass.
    private static func mayHoldSecret(_ bytes: [UInt8]) -> Bool {
        for index in bytes.indices {
            switch bytes[index] {
            case UInt8(ascii: "q"), UInt8(ascii: "Q"), UInt8(ascii: "e"), UInt8(ascii: "E"):
                if matches(bytes, at: index, Array("queueit".utf8)) || matches(bytes, at: index, Array("enqueue".utf8))
                    || matches(bytes, at: index, Array("eyJ".utf8), ignoringCase: false)
                {
                    return true
                }
            case UInt8(ascii: "h"), UInt8(ascii: "H"):
                if index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "_") { return true }
            default:
                continue
            }
        }
        return false
    }

    // MARK: Named values

    private static func namedValues(in bytes: [UInt8], into spans: inout [Range<Int>]) {
        var index = 0
        while index < bytes.count {
            defer { index += 1 }
            // A name starts a word, or follows an encoded `&` or `?` (`%26queueittoken%3D…`).
            guard
                index == 0 || !isAlphanumeric(bytes[index - 1]) || (index >= 3 && bytes[index - 3] == UInt8(ascii: "%"))
            else { continue }
            var cursor: Int
            // The cookie's value is URL-encoded as a whole: its `%26` are its own.
            var encodedAmpersandEnds = true
            if let name = secretNames.first(where: { matches(bytes, at: index, $0) }) {
                cursor = index + name.count
                if cursor < bytes.count, isAlphanumeric(bytes[cursor]) { continue }
            } else if matches(bytes, at: index, sessionCookiePrefix) {
                cursor = index + sessionCookiePrefix.count
                encodedAmpersandEnds = false
                while cursor < bytes.count, isAlphanumeric(bytes[cursor]) || bytes[cursor] == UInt8(ascii: "-") {
                    cursor += 1
                }
            } else {
                continue
            }
            cursor = skipQuotes(bytes, from: cursor)
            cursor = skipSpaces(bytes, from: cursor)
            guard let afterSeparator = separatorEnd(bytes, at: cursor) else { continue }
            cursor = skipSpaces(bytes, from: afterSeparator)
            cursor = skipQuotes(bytes, from: cursor)
            var end = cursor
            while end < bytes.count, !endsValue(bytes, at: end, encodedAmpersandEnds: encodedAmpersandEnds) {
                end += 1
            }
            guard end > cursor, !matches(bytes[cursor..<end], Array("null".utf8)) else { continue }
            spans.append(cursor..<end)
            index = end - 1
        }
    }

    /// `=`, `:` or an encoded `=` (`%3D`); nil when none is there.
    private static func separatorEnd(_ bytes: [UInt8], at index: Int) -> Int? {
        guard index < bytes.count else { return nil }
        if bytes[index] == UInt8(ascii: "=") || bytes[index] == UInt8(ascii: ":") { return index + 1 }
        if matches(bytes, at: index, Array("%3d".utf8)) { return index + 3 }
        return nil
    }

    /// A value ends at whitespace, a quote, a separator of parameters, cookies or JSON, or an
    /// encoded `&` or `"` (a URL-encoded URL inside another).
    private static func endsValue(_ bytes: [UInt8], at index: Int, encodedAmpersandEnds: Bool) -> Bool {
        switch bytes[index] {
        case UInt8(ascii: "&"), UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: ","), UInt8(ascii: ";"),
            UInt8(ascii: "}"), UInt8(ascii: ")"), UInt8(ascii: "]"), UInt8(ascii: ">"), UInt8(ascii: "\\"),
            UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
            return true
        case UInt8(ascii: "%"):
            return encodedAmpersandEnds
                && (matches(bytes, at: index, Array("%26".utf8)) || matches(bytes, at: index, Array("%22".utf8)))
        default:
            return false
        }
    }

    // MARK: URLs

    /// Names of query parameters whose values are credentials (compared case-insensitively).
    static let credentialParameterNames = [
        "token", "access_token", "api_key", "apikey", "api-key", "auth_token", "password", "secret",
    ].map { Array($0.utf8) }

    /// `scheme://USERINFO@host`: everything between `://` and the authority's last `@`.
    private static func urlUserInfo(in bytes: [UInt8], into spans: inout [Range<Int>]) {
        var index = 0
        while index + 3 <= bytes.count {
            defer { index += 1 }
            guard matches(bytes, at: index, Array("://".utf8)) else { continue }
            let start = index + 3
            var end = start
            var lastAt: Int?
            while end < bytes.count, !endsAuthority(bytes[end]) {
                if bytes[end] == UInt8(ascii: "@") { lastAt = end }
                end += 1
            }
            if let lastAt, lastAt > start,
                !matches(bytes[start..<lastAt], Array(replacement.utf8), ignoringCase: false)
            {
                spans.append(start..<lastAt)
            }
            index = end - 1
        }
    }

    private static func endsAuthority(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"), UInt8(ascii: "\\"), UInt8(ascii: "\""),
            UInt8(ascii: "'"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "`"), UInt8(ascii: "("),
            UInt8(ascii: ")"), UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "|"):
            return true
        default:
            return byte <= 0x20 || byte == 0x7F
        }
    }

    /// `?token=VALUE`, `&api_key=VALUE`, ` password=VALUE`: a parameter named like a credential,
    /// its name a word of its own (`x_token=` and `queueittoken=` are not this).
    private static func credentialQueryValues(in bytes: [UInt8], into spans: inout [Range<Int>]) {
        var index = 0
        while index < bytes.count {
            defer { index += 1 }
            guard
                index == 0
                    || !(isAlphanumeric(bytes[index - 1]) || bytes[index - 1] == UInt8(ascii: "_")
                        || bytes[index - 1] == UInt8(ascii: "-")),
                let name = credentialParameterNames.first(where: { matches(bytes, at: index, $0) })
            else { continue }
            let valueStart = index + name.count
            guard valueStart < bytes.count, bytes[valueStart] == UInt8(ascii: "=") else { continue }
            var end = valueStart + 1
            while end < bytes.count, bytes[end] != UInt8(ascii: "#"),
                !endsValue(bytes, at: end, encodedAmpersandEnds: true)
            {
                end += 1
            }
            guard end > valueStart + 1,
                !matches(bytes, at: valueStart + 1, Array(replacement.utf8), ignoringCase: false)
            else { continue }
            spans.append((valueStart + 1)..<end)
            index = end - 1
        }
    }

    // MARK: Bare tokens

    /// `…~h_<hex>` (or `…%7Eh_<hex>`) with at least 8 hex digits, back to where the token
    /// starts: the hash is what makes it a token, whatever comes before it.
    private static func bareKnownUserTokens(in bytes: [UInt8], into spans: inout [Range<Int>]) {
        var index = 0
        while index < bytes.count {
            defer { index += 1 }
            let markerEnd: Int
            if matches(bytes, at: index, Array("~h_".utf8)) {
                markerEnd = index + 3
            } else if matches(bytes, at: index, Array("%7eh_".utf8)) {
                markerEnd = index + 5
            } else {
                continue
            }
            var end = markerEnd
            while end < bytes.count, isHexDigit(bytes[end]) { end += 1 }
            guard end - markerEnd >= 8 else { continue }
            var start = index
            while start > 0 {
                // An encoded `~` first: its `7E` would otherwise pass for token characters.
                if start >= 3, matches(bytes, at: start - 3, Array("%7e".utf8)) {
                    start -= 3
                } else if isTokenCharacter(bytes[start - 1]) {
                    start -= 1
                } else {
                    break
                }
            }
            spans.append(start..<end)
            index = end - 1
        }
    }

    /// `eyJ…` (base64url of `{"`), then two more base64url parts after dots: QueueToken V1's
    /// `header.payload.hash` (and any JWT, a credential too).
    private static func bareEnqueueTokens(in bytes: [UInt8], into spans: inout [Range<Int>]) {
        var index = 0
        while index < bytes.count {
            defer { index += 1 }
            guard matches(bytes, at: index, Array("eyJ".utf8), ignoringCase: false),
                index == 0 || !isBase64URL(bytes[index - 1])
            else { continue }
            var end = index
            var lengths: [Int] = []
            for part in 0..<3 {
                let start = end
                while end < bytes.count, isBase64URL(bytes[end]) { end += 1 }
                lengths.append(end - start)
                if part < 2 {
                    guard end < bytes.count, bytes[end] == UInt8(ascii: ".") else { break }
                    end += 1
                }
            }
            guard lengths.count == 3, lengths[0] >= 8, lengths[2] >= 8 else { continue }
            spans.append(index..<end)
            index = end - 1
        }
    }

    // MARK: Bytes

    private static func replacing(_ spans: [Range<Int>], in bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var position = 0
        for span in spans.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if span.lowerBound >= position {
                output += bytes[position..<span.lowerBound]
                output += replacement.utf8
                position = span.upperBound
            } else if span.upperBound > position {
                // Overlaps the span just replaced: extend it.
                position = span.upperBound
            }
        }
        output += bytes[position...]
        return String(decoding: output, as: UTF8.self)
    }

    private static func matches(_ bytes: [UInt8], at index: Int, _ word: [UInt8], ignoringCase: Bool = true) -> Bool {
        guard index >= 0, index + word.count <= bytes.count else { return false }
        return matches(bytes[index..<(index + word.count)], word, ignoringCase: ignoringCase)
    }

    private static func matches(_ slice: ArraySlice<UInt8>, _ word: [UInt8], ignoringCase: Bool = true) -> Bool {
        slice.count == word.count
            && zip(slice, word).allSatisfy {
                ignoringCase ? ASCIIByte.lowercased($0) == ASCIIByte.lowercased($1) : $0 == $1
            }
    }

    private static func skipQuotes(_ bytes: [UInt8], from index: Int) -> Int {
        var cursor = index
        while cursor < bytes.count, cursor < index + 2,
            bytes[cursor] == UInt8(ascii: "\"") || bytes[cursor] == UInt8(ascii: "'")
                || bytes[cursor] == UInt8(ascii: "\\")
        {
            cursor += 1
        }
        return cursor
    }

    private static func skipSpaces(_ bytes: [UInt8], from index: Int) -> Int {
        var cursor = index
        while cursor < bytes.count, bytes[cursor] == UInt8(ascii: " ") || bytes[cursor] == UInt8(ascii: "\t") {
            cursor += 1
        }
        return cursor
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }

    /// What a KnownUser token's keys and values are made of.
    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        isAlphanumeric(byte) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "~") || byte == UInt8(ascii: "-")
            || byte == UInt8(ascii: ".")
    }

    private static func isBase64URL(_ byte: UInt8) -> Bool {
        isAlphanumeric(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
    }
}
