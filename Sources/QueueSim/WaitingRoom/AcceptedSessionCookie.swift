import Foundation

/// The connector's session cookie `QueueITAccepted-SDFrts345E-V3_{eventId}` (reference §2).
///
/// Value: `EventId=…&QueueId=…[&FixedValidityMins=…]&RedirectType=…&IssueTime=…&Hash=…`,
/// URL-encoded as a whole when set. Hash: HMAC-SHA256(secret, EventId + QueueId +
/// FixedValidityMins-or-empty + RedirectType + IssueTime), hex.
package struct AcceptedSessionCookie: Sendable, Equatable {
    package var eventId: String
    package var queueId: String
    package var fixedValidityMinutes: Int?
    package var redirectType: String
    package var issueTimeUnixSeconds: Int64

    package init(
        eventId: String, queueId: String, fixedValidityMinutes: Int? = nil, redirectType: String,
        issueTimeUnixSeconds: Int64
    ) {
        self.eventId = eventId
        self.queueId = queueId
        self.fixedValidityMinutes = fixedValidityMinutes
        self.redirectType = redirectType
        self.issueTimeUnixSeconds = issueTimeUnixSeconds
    }

    package static func name(eventId: String) -> String { "QueueITAccepted-SDFrts345E-V3_\(eventId)" }

    package func hash(secretKey: String) -> String {
        let fixed = fixedValidityMinutes.map(String.init) ?? ""
        let message = "\(eventId)\(queueId)\(fixed)\(redirectType)\(issueTimeUnixSeconds)"
        return QueueITHash.hmacSHA256Hex(key: secretKey, message: message)
    }

    /// The decoded value, before URL encoding.
    package func plainValue(secretKey: String) -> String {
        var items = ["EventId=\(eventId)", "QueueId=\(queueId)"]
        if let fixedValidityMinutes { items.append("FixedValidityMins=\(fixedValidityMinutes)") }
        items.append("RedirectType=\(redirectType)")
        items.append("IssueTime=\(issueTimeUnixSeconds)")
        items.append("Hash=\(hash(secretKey: secretKey))")
        return items.joined(separator: "&")
    }

    /// The value as it goes into `Set-Cookie` (URL-encoded once, like Java's URLEncoder).
    package func encodedValue(secretKey: String) -> String {
        ConnectorEncoding.encodeComponent(plainValue(secretKey: secretKey))
    }

    package enum Validation: Sendable, Equatable {
        case valid(AcceptedSessionCookie)
        case invalid
    }

    /// Decodes and checks a received cookie value: all keys present, hash, event id
    /// (case-insensitive), and `IssueTime + validity·60 ≥ now` where validity is
    /// FixedValidityMins if present, else `defaultValidityMinutes`.
    package static func validate(
        encodedValue: String, eventId: String, secretKey: String, defaultValidityMinutes: Int,
        nowUnixSeconds: Int64
    ) -> Validation {
        let plain = ConnectorEncoding.decode(encodedValue) ?? encodedValue
        var fields: [Substring: Substring] = [:]
        for item in plain.split(separator: "&") {
            guard let equals = item.firstIndex(of: "=") else { continue }
            fields[item[..<equals]] = item[item.index(after: equals)...]
        }
        guard let storedEvent = fields["EventId"], let queueId = fields["QueueId"],
            let redirectType = fields["RedirectType"], let issueText = fields["IssueTime"],
            let issueTime = Int64(issueText), let storedHash = fields["Hash"]
        else { return .invalid }
        var fixed: Int?
        if let fixedText = fields["FixedValidityMins"], !fixedText.isEmpty {
            guard let minutes = Int(fixedText) else { return .invalid }
            fixed = minutes
        }
        let cookie = AcceptedSessionCookie(
            eventId: String(storedEvent), queueId: String(queueId), fixedValidityMinutes: fixed,
            redirectType: String(redirectType), issueTimeUnixSeconds: issueTime)
        guard QueueITHash.equal(cookie.hash(secretKey: secretKey), storedHash) else { return .invalid }
        guard cookie.eventId.lowercased() == eventId.lowercased() else { return .invalid }
        let validityMinutes = Int64(fixed ?? defaultValidityMinutes)
        guard issueTime + validityMinutes * 60 >= nowUnixSeconds else { return .invalid }
        return .valid(cookie)
    }
}

/// The connectors' percent-encodings (not the client's `PercentEncoding`): every byte except
/// `A-Z a-z 0-9 - _ .` is encoded, uppercase hex — the Java connector's (URLEncoder plus `%20`
/// for space and the extra `~` `*` encodings), used for the session cookie; with `keepingTilde`,
/// the Python connector's `quote(v, safe='~')`, used for the redirect URLs.
enum ConnectorEncoding {
    static func encodeComponent(_ text: String, keepingTilde: Bool = false) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count * 3 / 2)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: "~") where keepingTilde:
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out +=
                    "%" + String(byte >> 4, radix: 16, uppercase: true)
                    + String(byte & 0x0F, radix: 16, uppercase: true)
            }
        }
        return out
    }

    /// Decodes `%XX` escapes and `+` as space (form encoding, as the connectors' decoders do).
    static func decode(_ text: String) -> String? {
        // Nothing to decode is the common case (queue ids, tokens): skip Foundation, which
        // would return the same text.
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "%") }) else { return text }
        return text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
