import Foundation

/// The server-side check of a `queueittoken`, as a KnownUser V3 connector does it
/// (reference §1.5): hash, then event id, then expiry. The runner uses it to mark tokens
/// `invalid` in reports; the embedded protected API uses it to admit visitors.
public struct KnownUserTokenValidator: Sendable {
    /// The error codes of the connector's error redirect path `error/{code}/`.
    public enum Failure: String, Error, Sendable, Equatable {
        case hash
        case eventid
        case timestamp
    }

    /// The fields a connector reads from a token (reference §1.3).
    public struct ParsedToken: Sendable, Equatable {
        public var eventId: String?
        public var queueId: String?
        public var expiryUnixSeconds: Int64?
        public var cookieValidityMinutes: Int?
        public var redirectType: String?
        public var hash: String?
    }

    public let secretKey: String
    public let eventId: String

    public init(secretKey: String, eventId: String) {
        self.secretKey = secretKey
        self.eventId = eventId
    }

    /// Validates `token` at `nowUnixSeconds`; `ts == now` still passes (no skew allowance).
    public func validate(_ token: String, nowUnixSeconds: Int64) -> Result<ParsedToken, Failure> {
        let parsed = Self.parse(token)
        guard let hash = parsed.hash else { return .failure(.hash) }
        let message = token.replacingFirst("~h_\(hash)", with: "")
        let expected = QueueITHash.hmacSHA256Hex(key: secretKey, message: message)
        guard QueueITHash.equalIgnoringCase(expected, hash) else { return .failure(.hash) }
        // Java and Python compare the event id case-insensitively.
        guard let tokenEvent = parsed.eventId, tokenEvent.lowercased() == eventId.lowercased() else {
            return .failure(.eventid)
        }
        guard let expiry = parsed.expiryUnixSeconds, expiry >= nowUnixSeconds else {
            return .failure(.timestamp)
        }
        return .success(parsed)
    }

    /// `key_value` pairs joined by `~`; a pair that does not split on `_` into exactly two parts
    /// is skipped, as every V3 connector does.
    public static func parse(_ token: String) -> ParsedToken {
        var parsed = ParsedToken()
        for (key, value) in pairs(token) {
            switch key {
            case "e": parsed.eventId = value
            case "q": parsed.queueId = value
            case "ts": parsed.expiryUnixSeconds = Int64(value)
            case "cv": parsed.cookieValidityMinutes = Int(value)
            case "rt": parsed.redirectType = value
            case "h": parsed.hash = value
            default: continue
            }
        }
        return parsed
    }

    /// The `key_value` pairs that split into exactly two parts. ASCII tokens (all real ones)
    /// are split over bytes, which splits where the character-level split does.
    private static func pairs(_ token: String) -> [(Substring, String)] {
        if token.utf8.allSatisfy({ $0 < 0x80 }) {
            return token.utf8.split(separator: UInt8(ascii: "~"), omittingEmptySubsequences: false).compactMap { pair in
                let parts = pair.split(separator: UInt8(ascii: "_"), omittingEmptySubsequences: false)
                guard parts.count == 2 else { return nil }
                return (Substring(parts[0]), String(Substring(parts[1])))
            }
        }
        return token.split(separator: "~", omittingEmptySubsequences: false).compactMap { pair in
            let parts = pair.split(separator: "_", omittingEmptySubsequences: false)
            guard parts.count == 2 else { return nil }
            return (parts[0], String(parts[1]))
        }
    }
}

extension String {
    /// The string with the first occurrence of `target` replaced (a literal substring removal,
    /// as the connectors strip `~h_…` before hashing).
    func replacingFirst(_ target: String, with replacement: String) -> String {
        // ASCII text (every real token) compares byte for byte, so a plain byte search finds
        // what Foundation's search finds, without bridging to NSString.
        if let replaced = asciiReplacingFirst(target, with: replacement) { return replaced }
        guard let range = range(of: target) else { return self }
        return replacingCharacters(in: range, with: replacement)
    }

    /// nil when either string is not ASCII (the caller falls back to Foundation).
    private func asciiReplacingFirst(_ target: String, with replacement: String) -> String? {
        let text = Array(utf8)
        let needle = Array(target.utf8)
        guard !needle.isEmpty, text.allSatisfy({ $0 < 0x80 }), needle.allSatisfy({ $0 < 0x80 }) else { return nil }
        guard text.count >= needle.count else { return self }
        for start in 0...(text.count - needle.count) where text[start] == needle[0] {
            if text[start..<(start + needle.count)].elementsEqual(needle) {
                return String(decoding: text[..<start], as: UTF8.self) + replacement
                    + String(decoding: text[(start + needle.count)...], as: UTF8.self)
            }
        }
        return self
    }
}
