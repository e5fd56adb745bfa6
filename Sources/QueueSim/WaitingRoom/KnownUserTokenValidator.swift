@_spi(Wire) import QueueClientCore

/// The server-side check of a `queueittoken`, as a KnownUser V3 connector does it
/// (reference §1.5): hash, then event id, then expiry. The runner uses it to mark tokens
/// `invalid` in reports; the embedded protected API uses it to admit visitors.
package struct KnownUserTokenValidator: Sendable {
    /// The error codes of the connector's error redirect path `error/{code}/`.
    package enum Failure: String, Error, Sendable, Equatable {
        case hash
        case eventid
        case timestamp
    }

    /// The fields a connector reads from a token (reference §1.3).
    package struct ParsedToken: Sendable, Equatable {
        package var eventId: String?
        package var queueId: String?
        package var expiryUnixSeconds: Int64?
        package var cookieValidityMinutes: Int?
        package var redirectType: String?
        package var hash: String?
    }

    package let secretKey: String
    package let eventId: String
    private let key: PreparedHMAC

    package init(secretKey: String, eventId: String) {
        self.init(secretKey: secretKey, preparedKey: PreparedHMAC(key: secretKey), eventId: eventId)
    }

    /// With the key already prepared (a run judges every visitor's token with the same key).
    package init(secretKey: String, preparedKey: PreparedHMAC, eventId: String) {
        self.secretKey = secretKey
        self.eventId = eventId
        self.key = preparedKey
    }

    /// Validates `token` at `nowUnixSeconds`; `ts == now` still passes (no skew allowance).
    package func validate(_ token: String, nowUnixSeconds: Int64) -> Result<ParsedToken, Failure> {
        if let failure = check(token, nowUnixSeconds: nowUnixSeconds) { return .failure(failure) }
        return .success(Self.parse(token))
    }

    /// What `validate` decides, without building the parsed token: nil when the token is valid.
    /// One pass over the token's UTF-8 bytes. `~` and `_` are ASCII, so a byte split finds the
    /// pairs a connector finds splitting code points (Python) or UTF-16 units (Java); the
    /// String-level check this replaced lives on as the oracle of `fuzz/Sources/TokenCheckFuzz`.
    package func check(_ token: String, nowUnixSeconds: Int64) -> Failure? {
        var token = token
        return token.withUTF8 { TokenFields(bytes: $0).failure(self, nowUnixSeconds: nowUnixSeconds) }
    }

    /// The pairs the check reads, as ranges of the token's bytes: the runs between `~`, a pair
    /// counts when it has exactly one `_`, the last pair of a key wins, and the hash covers the
    /// token with its first `~h_{hash}` removed.
    private struct TokenFields {
        let bytes: UnsafeBufferPointer<UInt8>
        var eventId: Range<Int>?
        var expiry: Range<Int>?
        var hash: Range<Int>?

        init(bytes: UnsafeBufferPointer<UInt8>) {
            self.bytes = bytes
            var pairStart = 0
            var underscore: Int?
            var underscores = 0
            for position in 0...bytes.count {
                let byte = position < bytes.count ? bytes[position] : UInt8(ascii: "~")
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
            // The message: the token without the first occurrence of `~h_{hash}`. UTF-8 is
            // self-synchronizing, so a byte match is a match of whole code points.
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

        /// Case-insensitive over ASCII letters, exact elsewhere. Event ids are ASCII (the
        /// scenario refuses any other `waitingRoomId`), so a non-ASCII byte never matches; the
        /// connectors' Unicode folding (Java per UTF-16 unit, Python's `upper()`) differs only
        /// for letters such as the Kelvin sign that fold onto ASCII, which no real token holds.
        private static func sameEventId(_ token: Slice<UnsafeBufferPointer<UInt8>>, _ expected: String) -> Bool {
            guard token.count == expected.utf8.count else { return false }
            return zip(token, expected.utf8).allSatisfy { ASCIIByte.lowercased($0) == ASCIIByte.lowercased($1) }
        }
    }

    /// `key_value` pairs joined by `~`; a pair that does not split on `_` into exactly two parts
    /// is skipped, as every V3 connector does.
    package static func parse(_ token: String) -> ParsedToken {
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
    /// of a token from a real endpoint (it has no secret). Scans the token's bytes
    /// without building its pairs; the run makes it for every visitor that got a token.
    package static func hasEventIdAndHash(_ token: String) -> Bool {
        var token = token
        return token.withUTF8 { bytes in
            // One pass, no arrays: a pair counts when its only `_` is its second byte.
            var hasEventId = false
            var hasHash = false
            var pairStart = 0
            var underscores = 0
            for index in 0...bytes.count {
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
            return hasEventId && hasHash
        }
    }

    /// The `key_value` pairs that split into exactly two parts, split over UTF-8 bytes (`~`
    /// and `_` are ASCII, so every piece is whole code points).
    private static func pairs(_ token: String) -> [(Substring, String)] {
        token.utf8.split(separator: UInt8(ascii: "~"), omittingEmptySubsequences: false).compactMap { pair in
            let parts = pair.split(separator: UInt8(ascii: "_"), omittingEmptySubsequences: false)
            guard parts.count == 2 else { return nil }
            return (Substring(parts[0]), String(Substring(parts[1])))
        }
    }
}
