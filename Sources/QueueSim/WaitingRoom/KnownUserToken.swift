import Crypto
@_spi(Wire) import QueueClientCore

/// The `queueittoken` the room hands back at a visitor's turn (reference §1), written from
/// the server's side: `e_{e}~q_{queueId}~ts_{expiry}~ce_true~rt_{type}~h_{hash}`.
///
/// `rt` stays before `h` because the mobile SDKs read the type with `~rt_(.*?)~`.
package struct KnownUserToken: Sendable, Equatable {
    package var eventId: String
    package var queueId: String?
    /// Expiry of the redirect, Unix seconds (`ts` is an expiry, not an issue time).
    package var expiryUnixSeconds: Int64
    package var extendableCookie: Bool
    /// Fixed cookie validity in minutes (`cv`); nil for a sliding session.
    package var cookieValidityMinutes: Int?
    package var redirectType: String

    package init(
        eventId: String, queueId: String?, expiryUnixSeconds: Int64, extendableCookie: Bool = true,
        cookieValidityMinutes: Int? = nil, redirectType: String
    ) {
        self.eventId = eventId
        self.queueId = queueId
        self.expiryUnixSeconds = expiryUnixSeconds
        self.extendableCookie = extendableCookie
        self.cookieValidityMinutes = cookieValidityMinutes
        self.redirectType = redirectType
    }

    /// The token without its hash: the exact message the HMAC covers.
    package var unsignedText: String {
        var text = "e_"
        text.reserveCapacity(192)
        text += eventId
        if let queueId {
            text += "~q_"
            text += queueId
        }
        text += "~ts_"
        text += String(expiryUnixSeconds)
        text += extendableCookie ? "~ce_true" : "~ce_false"
        if let cookieValidityMinutes {
            text += "~cv_"
            text += String(cookieValidityMinutes)
        }
        text += "~rt_"
        text += redirectType
        return text
    }

    /// The token as `signed` writes it, but with 64 zeros for the hash: the same length and
    /// the same characters, so a client reads it exactly as a signed one. No connector accepts
    /// it (`WaitingRoomConfiguration.signsTokens`).
    package var unsignedPlaceholder: String {
        var token = unsignedText
        token += "~h_"
        token += Self.zeroHash
        return token
    }

    private static let zeroHash = String(repeating: "0", count: 64)

    /// The signed token: `unsignedText~h_{hmac-sha256 hex}`.
    package func signed(secretKey: String) -> String {
        signed(with: PreparedHMAC(key: secretKey))
    }

    /// The same, with the key already prepared (the room signs a token per visitor).
    package func signed(with key: PreparedHMAC) -> String {
        var token = unsignedText
        let hash = key.hex(token)
        token += "~h_"
        token += hash
        return token
    }
}

/// HMAC-SHA256 (RFC 2104) with the key's inner and outer pads hashed once: each message then
/// costs only its own blocks. Built on `SHA256` directly rather than `HMAC<SHA256>`, whose
/// generic code (not specialized across the module boundary) cost four times the hashing
/// itself when the room signs a token per visitor (`perf` of `bench/virtual-million.sh`).
/// Checked against `HMAC<SHA256>` and RFC 4231's vectors (`TokenCheckVerdictTests`).
///
/// `@unchecked Sendable`: `SHA256` is a value whose digest context is copied before any update
/// that finds it shared. `inner` and `outer` are never updated, so every copy made from them,
/// on any thread, updates a context of its own.
package struct PreparedHMAC: @unchecked Sendable {
    private let inner: SHA256
    private let outer: SHA256

    package init(key: String) {
        let blockSize = SHA256.blockByteCount
        var block = [UInt8](repeating: 0, count: blockSize)
        let keyBytes = Array(key.utf8)
        if keyBytes.count > blockSize {
            // A key longer than a block is replaced by its hash (RFC 2104).
            SHA256.hash(data: keyBytes).withUnsafeBytes { digest in
                for (offset, byte) in digest.enumerated() { block[offset] = byte }
            }
        } else {
            block.replaceSubrange(0..<keyBytes.count, with: keyBytes)
        }
        var inner = SHA256()
        inner.update(data: block.map { $0 ^ 0x36 })
        var outer = SHA256()
        outer.update(data: block.map { $0 ^ 0x5C })
        self.inner = inner
        self.outer = outer
    }

    /// Lowercase hex of the message's code.
    package func hex(_ message: String) -> String {
        var message = message
        return message.withUTF8 { hex(UnsafeRawBufferPointer($0), UnsafeRawBufferPointer(start: nil, count: 0)) }
    }

    /// Lowercase hex of the code of `first` followed by `second`.
    func hex(_ first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer) -> String {
        var innerHash = inner
        if !first.isEmpty { innerHash.update(bufferPointer: first) }
        if !second.isEmpty { innerHash.update(bufferPointer: second) }
        var outerHash = outer
        innerHash.finalize().withUnsafeBytes { outerHash.update(bufferPointer: $0) }
        return outerHash.finalize().withUnsafeBytes(QueueITHash.hex)
    }
}

/// HMAC-SHA256 as every V3 connector computes it: UTF-8 key, UTF-8 message, lowercase hex.
package enum QueueITHash {
    package static func hmacSHA256Hex(key: String, message: String) -> String {
        PreparedHMAC(key: key).hex(message)
    }

    static func hex(_ bytes: UnsafeRawBufferPointer) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { out in
            for (offset, byte) in bytes.enumerated() {
                out[2 * offset] = ASCIIByte.lowercaseHexDigit(byte >> 4)
                out[2 * offset + 1] = ASCIIByte.lowercaseHexDigit(byte & 0x0F)
            }
            return bytes.count * 2
        }
    }

    /// Constant-time comparison of two ASCII strings, ignoring case (Java/Python compare the
    /// hash uppercased on both sides).
    static func equalIgnoringCase<Right: StringProtocol>(_ lhs: String, _ rhs: Right) -> Bool {
        constantTimeEqual(lhs, rhs, folding: ASCIIByte.lowercased)
    }

    /// Constant-time, exact comparison, for signatures whose case matters (the session
    /// cookie's lowercase hex `Hash`, an enqueue token's base64url signature): the time taken
    /// depends on the lengths only, never on how many leading characters a forgery got right.
    static func equal<Right: StringProtocol>(_ lhs: String, _ rhs: Right) -> Bool {
        constantTimeEqual(lhs, rhs, folding: { $0 })
    }

    @inline(__always)
    private static func constantTimeEqual<Right: StringProtocol>(
        _ lhs: String, _ rhs: Right, folding fold: (UInt8) -> UInt8
    ) -> Bool {
        let left = lhs.utf8
        let right = rhs.utf8
        guard left.count == right.count else { return false }
        // Over contiguous bytes when both have them (native strings do): zipping two `utf8`
        // views steps their indices a byte at a time, 1.4 % of a virtual run's profile.
        let contiguous = left.withContiguousStorageIfAvailable { leftBytes in
            right.withContiguousStorageIfAvailable { rightBytes in
                var difference: UInt8 = 0
                for index in 0..<leftBytes.count {
                    difference |= fold(leftBytes[index]) ^ fold(rightBytes[index])
                }
                return difference == 0
            }
        }
        if let equal = contiguous ?? nil { return equal }
        var difference: UInt8 = 0
        for (a, b) in zip(left, right) {
            difference |= fold(a) ^ fold(b)
        }
        return difference == 0
    }

}
