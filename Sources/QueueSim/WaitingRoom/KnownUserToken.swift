import Crypto

/// The `queueittoken` the room hands back at a visitor's turn (reference §1), written from
/// the server's side: `e_{e}~q_{queueId}~ts_{expiry}~ce_true~rt_{type}~h_{hash}`.
///
/// `rt` stays before `h` because the mobile SDKs read the type with `~rt_(.*?)~`.
public struct KnownUserToken: Sendable, Equatable {
    public var eventId: String
    public var queueId: String?
    /// Expiry of the redirect, Unix seconds (`ts` is an expiry, not an issue time).
    public var expiryUnixSeconds: Int64
    public var extendableCookie: Bool
    /// Fixed cookie validity in minutes (`cv`); nil for a sliding session.
    public var cookieValidityMinutes: Int?
    public var redirectType: String

    public init(
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
    public var unsignedText: String {
        var parts = ["e_\(eventId)"]
        if let queueId { parts.append("q_\(queueId)") }
        parts.append("ts_\(expiryUnixSeconds)")
        parts.append("ce_\(extendableCookie)")
        if let cookieValidityMinutes { parts.append("cv_\(cookieValidityMinutes)") }
        parts.append("rt_\(redirectType)")
        return parts.joined(separator: "~")
    }

    /// The signed token: `unsignedText~h_{hmac-sha256 hex}`.
    public func signed(secretKey: String) -> String {
        let message = unsignedText
        return "\(message)~h_\(QueueITHash.hmacSHA256Hex(key: secretKey, message: message))"
    }
}

/// HMAC-SHA256 as every V3 connector computes it: UTF-8 key, UTF-8 message, lowercase hex.
public enum QueueITHash {
    public static func hmacSHA256Hex(key: String, message: String) -> String {
        let code = HMAC<SHA256>.authenticationCode(
            for: Array(message.utf8), using: SymmetricKey(data: Array(key.utf8)))
        return hex(code)
    }

    static func hex<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(64)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Constant-time comparison of two ASCII strings, ignoring case (Java/Python compare the
    /// hash uppercased on both sides).
    static func equalIgnoringCase(_ lhs: String, _ rhs: String) -> Bool {
        let left = Array(lhs.utf8)
        let right = Array(rhs.utf8)
        guard left.count == right.count else { return false }
        var difference: UInt8 = 0
        for index in left.indices {
            difference |= asciiLower(left[index]) ^ asciiLower(right[index])
        }
        return difference == 0
    }

    private static func asciiLower(_ byte: UInt8) -> UInt8 {
        (byte >= 65 && byte <= 90) ? byte + 32 : byte
    }
}
