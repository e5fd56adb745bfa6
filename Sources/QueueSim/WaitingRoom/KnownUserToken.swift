import CSHA256
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
        String(unsafeUninitializedCapacity: unsignedCount) { writeUnsigned(into: $0) }
    }

    /// The token as `signed` writes it, but with 64 zeros for the hash: the same length and
    /// the same characters, so a client reads it exactly as a signed one. No connector accepts
    /// it (`WaitingRoomConfiguration.signsTokens`).
    package var unsignedPlaceholder: String {
        let count = unsignedCount
        return String(unsafeUninitializedCapacity: count + Self.hashSuffixCount) { buffer in
            let end = writeUnsigned(into: buffer)
            Self.writeHashSuffix(into: UnsafeMutableBufferPointer(rebasing: buffer[end...])) {
                $0.initialize(repeating: UInt8(ascii: "0"))
            }
            return count + Self.hashSuffixCount
        }
    }

    /// The signed token: `unsignedText~h_{hmac-sha256 hex}`.
    package func signed(secretKey: String) -> String {
        signed(with: PreparedHMAC(key: secretKey))
    }

    /// The same, with the key already prepared (the room signs a token per visitor). Written
    /// into one buffer, hashed there and finished with the hash's hex: each part appended to a
    /// `String` in turn cost as much as the HMAC itself.
    package func signed(with key: PreparedHMAC) -> String {
        let count = unsignedCount
        return String(unsafeUninitializedCapacity: count + Self.hashSuffixCount) { buffer in
            let end = writeUnsigned(into: buffer)
            let code = key.code(UnsafeRawBufferPointer(UnsafeMutableBufferPointer(rebasing: buffer[..<end])))
            Self.writeHashSuffix(into: UnsafeMutableBufferPointer(rebasing: buffer[end...])) { hex in
                withUnsafeBytes(of: code) { QueueITHash.writeHex($0, into: hex) }
            }
            return count + Self.hashSuffixCount
        }
    }

    /// `~h_` and 64 hex digits.
    private static let hashSuffixCount = 3 + 64

    private static func writeHashSuffix(
        into buffer: UnsafeMutableBufferPointer<UInt8>, _ hash: (UnsafeMutableBufferPointer<UInt8>) -> Void
    ) {
        buffer[0] = UInt8(ascii: "~")
        buffer[1] = UInt8(ascii: "h")
        buffer[2] = UInt8(ascii: "_")
        hash(UnsafeMutableBufferPointer(rebasing: buffer[3..<Self.hashSuffixCount]))
    }

    /// The bytes of `unsignedText`.
    private var unsignedCount: Int {
        var count = 2 + eventId.utf8.count + 4 + Self.decimalCount(expiryUnixSeconds)
        if let queueId { count += 3 + queueId.utf8.count }
        count += extendableCookie ? 8 : 9
        if let cookieValidityMinutes { count += 4 + Self.decimalCount(Int64(cookieValidityMinutes)) }
        return count + 4 + redirectType.utf8.count
    }

    /// Writes `unsignedText` (exactly `unsignedCount` bytes) at the buffer's start; returns its end.
    private func writeUnsigned(into buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
        var at = 0
        func put(_ text: String) {
            let copied = text.utf8.withContiguousStorageIfAvailable { bytes in
                UnsafeMutableBufferPointer(rebasing: buffer[at..<(at + bytes.count)]).update(fromContentsOf: bytes)
            }
            if let copied {
                at += copied
                return
            }
            for byte in text.utf8 {
                buffer[at] = byte
                at += 1
            }
        }
        func put(_ number: Int64) {
            let digits = Self.decimalCount(number)
            var rest = number.magnitude
            for offset in stride(from: digits - 1, through: number < 0 ? 1 : 0, by: -1) {
                buffer[at + offset] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            }
            if number < 0 { buffer[at] = UInt8(ascii: "-") }
            at += digits
        }
        put("e_")
        put(eventId)
        if let queueId {
            put("~q_")
            put(queueId)
        }
        put("~ts_")
        put(expiryUnixSeconds)
        put(extendableCookie ? "~ce_true" : "~ce_false")
        if let cookieValidityMinutes {
            put("~cv_")
            put(Int64(cookieValidityMinutes))
        }
        put("~rt_")
        put(redirectType)
        return at
    }

    /// The characters of `String(number)`.
    private static func decimalCount(_ number: Int64) -> Int {
        var count = number < 0 ? 2 : 1
        var rest = number.magnitude / 10
        while rest > 0 {
            count += 1
            rest /= 10
        }
        return count
    }
}

/// HMAC-SHA256 (RFC 2104) with the key's inner and outer pads hashed once: each message then
/// costs only its own blocks. The room signs a token per visitor (and the token column checks
/// one per row), so the states after the pads are eight words each, copied by value, and the
/// compression is `CSHA256`'s (the CPU's SHA extensions where it has them). swift-crypto's
/// `SHA256` allocated and freed a digest context for every copy and every `finalize`: a token
/// cost four times its three compressions (`perf` of `bench/virtual-million.sh`). Checked
/// against `HMAC<SHA256>` and RFC 4231's vectors (`TokenCheckVerdictTests`).
package struct PreparedHMAC: Sendable {
    private let inner: SIMD8<UInt32>
    private let outer: SIMD8<UInt32>
    private static let blockSize = 64

    package init(key: String) {
        var block = [UInt8](repeating: 0, count: Self.blockSize)
        let keyBytes = Array(key.utf8)
        if keyBytes.count > Self.blockSize {
            // A key longer than a block is replaced by its hash (RFC 2104).
            let digest = keyBytes.withUnsafeBytes { Self.digest(from: Self.initialState, absorbed: 0, $0) }
            withUnsafeBytes(of: digest) { block.replaceSubrange(0..<$0.count, with: $0) }
        } else {
            block.replaceSubrange(0..<keyBytes.count, with: keyBytes)
        }
        inner = Self.state(afterBlock: block.map { $0 ^ 0x36 })
        outer = Self.state(afterBlock: block.map { $0 ^ 0x5C })
    }

    /// Lowercase hex of the message's code.
    package func hex(_ message: String) -> String {
        var message = message
        return message.withUTF8 { hex(UnsafeRawBufferPointer($0), UnsafeRawBufferPointer(start: nil, count: 0)) }
    }

    /// The code of `message`.
    func code(_ message: UnsafeRawBufferPointer) -> SIMD32<UInt8> {
        let innerDigest = Self.digest(from: inner, absorbed: Self.blockSize, message)
        return withUnsafeBytes(of: innerDigest) { Self.digest(from: outer, absorbed: Self.blockSize, $0) }
    }

    /// Lowercase hex of the code of `first` followed by `second`.
    func hex(_ first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer) -> String {
        let length = first.count + second.count
        let digest = withUnsafeTemporaryAllocation(byteCount: max(length, 1), alignment: 8) { message in
            if !first.isEmpty { message.baseAddress!.copyMemory(from: first.baseAddress!, byteCount: first.count) }
            if !second.isEmpty {
                (message.baseAddress! + first.count).copyMemory(from: second.baseAddress!, byteCount: second.count)
            }
            return self.code(UnsafeRawBufferPointer(rebasing: message[..<length]))
        }
        return withUnsafeBytes(of: digest, QueueITHash.hex)
    }

    private static var initialState: SIMD8<UInt32> {
        var state = SIMD8<UInt32>()
        withWords(&state) { qs_sha256_init($0) }
        return state
    }

    private static func state(afterBlock block: [UInt8]) -> SIMD8<UInt32> {
        var state = initialState
        withWords(&state) { words in block.withUnsafeBufferPointer { qs_sha256_blocks(words, $0.baseAddress, 1) } }
        return state
    }

    /// The digest of a hash at `state`, which has taken `absorbed` bytes, after `bytes`.
    private static func digest(from state: SIMD8<UInt32>, absorbed: Int, _ bytes: UnsafeRawBufferPointer)
        -> SIMD32<UInt8>
    {
        var state = state
        var digest = SIMD32<UInt8>()
        withWords(&state) { words in
            withUnsafeMutableBytes(of: &digest) { out in
                qs_sha256_finish(
                    words, UInt64(absorbed), bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count,
                    out.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
        }
        return digest
    }

    private static func withWords<Result>(
        _ state: inout SIMD8<UInt32>, _ body: (UnsafeMutablePointer<UInt32>) -> Result
    ) -> Result {
        withUnsafeMutablePointer(to: &state) { $0.withMemoryRebound(to: UInt32.self, capacity: 8, body) }
    }
}

/// HMAC-SHA256 as every V3 connector computes it: UTF-8 key, UTF-8 message, lowercase hex.
package enum QueueITHash {
    package static func hmacSHA256Hex(key: String, message: String) -> String {
        PreparedHMAC(key: key).hex(message)
    }

    static func hex(_ bytes: UnsafeRawBufferPointer) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { out in
            writeHex(bytes, into: out)
            return bytes.count * 2
        }
    }

    /// Writes the lowercase hex of `bytes` (two characters each) at the start of `out`.
    static func writeHex(_ bytes: UnsafeRawBufferPointer, into out: UnsafeMutableBufferPointer<UInt8>) {
        for (offset, byte) in bytes.enumerated() {
            out[2 * offset] = ASCIIByte.lowercaseHexDigit(byte >> 4)
            out[2 * offset + 1] = ASCIIByte.lowercaseHexDigit(byte & 0x0F)
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
