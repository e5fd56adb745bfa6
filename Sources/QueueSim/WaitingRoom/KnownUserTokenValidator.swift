import Foundation
import QueueClientCore

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
    private let key: PreparedHMAC

    public init(secretKey: String, eventId: String) {
        self.init(secretKey: secretKey, preparedKey: PreparedHMAC(key: secretKey), eventId: eventId)
    }

    /// With the key already prepared (a run judges every visitor's token with the same key).
    public init(secretKey: String, preparedKey: PreparedHMAC, eventId: String) {
        self.secretKey = secretKey
        self.eventId = eventId
        self.key = preparedKey
    }

    /// Validates `token` at `nowUnixSeconds`; `ts == now` still passes (no skew allowance).
    public func validate(_ token: String, nowUnixSeconds: Int64) -> Result<ParsedToken, Failure> {
        if let failure = check(token, nowUnixSeconds: nowUnixSeconds) { return .failure(failure) }
        return .success(Self.parse(token))
    }

    /// What `validate` decides, without building the parsed token: nil when the token is valid.
    /// ASCII tokens (all real ones) are checked over their bytes; anything else as strings.
    public func check(_ token: String, nowUnixSeconds: Int64) -> Failure? {
        var token = token
        // Outer nil: not ASCII; inner nil: valid.
        let asciiVerdict: Failure?? = token.withUTF8 { bytes in
            guard let check = ASCIITokenCheck(bytes: bytes) else { return Failure??.none }
            return .some(check.failure(self, nowUnixSeconds: nowUnixSeconds))
        }
        if let asciiVerdict { return asciiVerdict }
        return checkAsStrings(token, nowUnixSeconds: nowUnixSeconds)
    }

    /// The connector's check over `String`s: the reference the byte path is tested against,
    /// and the path non-ASCII tokens take.
    func checkAsStrings(_ token: String, nowUnixSeconds: Int64) -> Failure? {
        let parsed = Self.parse(token)
        guard let hash = parsed.hash else { return .hash }
        let message = token.replacingFirst("~h_\(hash)", with: "")
        guard QueueITHash.equalIgnoringCase(key.hex(message), hash) else { return .hash }
        // Java and Python compare the event id case-insensitively.
        guard let tokenEvent = parsed.eventId, tokenEvent.lowercased() == eventId.lowercased() else {
            return .eventid
        }
        guard let expiry = parsed.expiryUnixSeconds, expiry >= nowUnixSeconds else { return .timestamp }
        return nil
    }

    /// The same decisions as `checkAsStrings`, over the bytes of an ASCII token: the pairs are
    /// the runs between `~`, a pair counts when it has exactly one `_`, the last pair of a key
    /// wins, and the hash covers the token with its first `~h_{hash}` removed.
    private struct ASCIITokenCheck {
        let bytes: UnsafeBufferPointer<UInt8>
        var eventId: Range<Int>?
        var expiry: Range<Int>?
        var hash: Range<Int>?

        /// nil when the token is not ASCII.
        init?(bytes: UnsafeBufferPointer<UInt8>) {
            self.bytes = bytes
            var pairStart = 0
            var underscore: Int?
            var underscores = 0
            for position in 0...bytes.count {
                let byte = position < bytes.count ? bytes[position] : UInt8(ascii: "~")
                guard byte < 0x80 else { return nil }
                if byte == UInt8(ascii: "_") {
                    underscores += 1
                    underscore = position
                } else if byte == UInt8(ascii: "~") {
                    if underscores == 1, let split = underscore {
                        let value = (split + 1)..<position
                        switch (split - pairStart, bytes[pairStart], split - pairStart > 1 ? bytes[pairStart + 1] : 0) {
                        case (1, UInt8(ascii: "e"), _): eventId = value
                        case (1, UInt8(ascii: "h"), _): hash = value
                        case (2, UInt8(ascii: "t"), UInt8(ascii: "s")): expiry = value
                        default: break
                        }
                    }
                    pairStart = position + 1
                    underscores = 0
                    underscore = nil
                }
            }
        }

        func failure(_ validator: KnownUserTokenValidator, nowUnixSeconds: Int64) -> Failure? {
            guard let hash else { return .hash }
            guard hashMatches(hash, key: validator.key) else { return .hash }
            guard let eventId, Self.sameEventId(bytes[eventId], validator.eventId) else { return .eventid }
            guard let expiry,
                let seconds = Int64(String(decoding: UnsafeBufferPointer(rebasing: bytes[expiry]), as: UTF8.self)),
                seconds >= nowUnixSeconds
            else { return .timestamp }
            return nil
        }

        private func hashMatches(_ hash: Range<Int>, key: PreparedHMAC) -> Bool {
            // The message: the token without the first occurrence of `~h_{hash}`.
            let needleCount = 3 + hash.count
            var cut: Range<Int>?
            if bytes.count >= needleCount {
                for start in 0...(bytes.count - needleCount)
                where bytes[start] == UInt8(ascii: "~") && bytes[start + 1] == UInt8(ascii: "h")
                    && bytes[start + 2] == UInt8(ascii: "_")
                    && bytes[(start + 3)..<(start + needleCount)].elementsEqual(bytes[hash])
                {
                    cut = start..<(start + needleCount)
                    break
                }
            }
            let expected: String
            if let cut {
                expected = key.hex(
                    UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[..<cut.lowerBound])),
                    UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[cut.upperBound...])))
            } else {
                expected = key.hex(UnsafeRawBufferPointer(bytes), UnsafeRawBufferPointer(start: nil, count: 0))
            }
            return QueueITHash.equalIgnoringCase(
                expected, Substring(decoding: UnsafeBufferPointer(rebasing: bytes[hash]), as: UTF8.self))
        }

        /// `lowercased()` equality. Both sides ASCII: byte by byte. Otherwise as `String`s,
        /// because `==` matches canonically equivalent text (`U+037E` is `;`).
        private static func sameEventId(_ token: Slice<UnsafeBufferPointer<UInt8>>, _ expected: String) -> Bool {
            guard ASCIIByte.isASCII(expected) else {
                let tokenEvent = String(decoding: UnsafeBufferPointer(rebasing: token), as: UTF8.self)
                return tokenEvent.lowercased() == expected.lowercased()
            }
            guard token.count == expected.utf8.count else { return false }
            return zip(token, expected.utf8).allSatisfy { ASCIIByte.lowercased($0) == ASCIIByte.lowercased($1) }
        }

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

    /// Whether `parse` would find an event id and a hash: the whole shape check a run can make
    /// of a token from a real endpoint (it has no secret). Scans the bytes of an ASCII token
    /// without building its pairs; the run makes it for every visitor that got a token.
    public static func hasEventIdAndHash(_ token: String) -> Bool {
        var token = token
        let answer: Bool? = token.withUTF8 { bytes in
            // One pass, no arrays: a pair counts when its only `_` is its second byte. The
            // bytes' union says at the end whether the token was ASCII (every row pays this).
            var hasEventId = false
            var hasHash = false
            var pairStart = 0
            var underscores = 0
            var union: UInt8 = 0
            for index in 0...bytes.count {
                if index < bytes.count { union |= bytes[index] }
                guard index < bytes.count, bytes[index] != UInt8(ascii: "~") else {
                    if underscores == 1, index - pairStart >= 2, bytes[pairStart + 1] == UInt8(ascii: "_") {
                        if bytes[pairStart] == UInt8(ascii: "e") { hasEventId = true }
                        if bytes[pairStart] == UInt8(ascii: "h") { hasHash = true }
                    }
                    pairStart = index + 1
                    underscores = 0
                    continue
                }
                if bytes[index] == UInt8(ascii: "_") { underscores += 1 }
            }
            guard union < 0x80 else { return nil }
            return hasEventId && hasHash
        }
        if let answer { return answer }
        let parsed = parse(token)
        return parsed.eventId != nil && parsed.hash != nil
    }

    /// The `key_value` pairs that split into exactly two parts. ASCII tokens (all real ones)
    /// are split over bytes, which splits where the character-level split does.
    private static func pairs(_ token: String) -> [(Substring, String)] {
        if ASCIIByte.isASCII(token) {
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
