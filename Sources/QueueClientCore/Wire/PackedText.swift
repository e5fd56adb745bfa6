/// Text a virtual run keeps for every waiting visitor (its queue id, the query of its queue
/// page URL), stored without a heap allocation when it has the usual shapes.
///
/// Measured (docs/benchmarks.md, issue 32): each such string (and the user id, now made from
/// the visitor's number) cost a visitor an 80-byte heap block. A UUID in one case
/// (`8-4-4-4-12` hex digits, as iOS's `identifierForVendor` and Queue-it's queue ids are
/// written) packs into two words, optionally after a prefix of up to three bytes (`q=`); 16
/// hex digits (an Android id) into one. Anything else is kept as the `String` it was (Swift
/// keeps up to 15 UTF-8 bytes inline). `string` gives back exactly the text packed.
package struct PackedText: Sendable, Hashable, CustomStringConvertible {
    private enum Storage: Sendable, Hashable {
        case text(String)
        /// `shape`: bits 0–2 the prefix length, bit 3 upper-case digits, bit 4 sixteen hex digits
        /// (in `high`) instead of a UUID; bits 8–31 the prefix bytes, the first in bits 8–15.
        /// 32 bits, not 64: 21 bytes instead of 25 (a waiting visitor keeps two).
        case hex(high: UInt64, low: UInt64, shape: UInt32)
    }

    private var storage: Storage

    package init(_ text: String) {
        storage = Self.pack(text).map { .hex(high: $0.high, low: $0.low, shape: $0.shape) } ?? .text(text)
    }

    package var string: String {
        switch storage {
        case .text(let text): text
        case .hex(let high, let low, let shape): Self.unpack(high: high, low: low, shape: shape)
        }
    }

    package var description: String { string }

    /// The text after `prefix`, when the text is `prefix` followed by a packed id: what cutting
    /// `prefix` off `string` gives, without making `string` first. Nil for any other text.
    package func packedId(after prefix: String) -> String? {
        guard case .hex(let high, let low, let shape) = storage else { return nil }
        var prefix = prefix
        let matches = prefix.withUTF8 { bytes in
            bytes.count == Int(shape & 0x7)
                && bytes.indices.allSatisfy { UInt8(truncatingIfNeeded: shape >> (8 + 8 * UInt32($0))) == bytes[$0] }
        }
        // Bits 3 and 4 (the digits' case, UUID or not) stay; the prefix goes.
        return matches ? Self.unpack(high: high, low: low, shape: shape & 0x18) : nil
    }

    /// The 32 hex digits of a UUID packed after `prefix`, as two words (the first 16 digits in
    /// `high`), whatever the digits' case: what `packedId(after:)` gives, as numbers. Nil for
    /// any other text. The poll shortcut reads a waiting visitor's queue id this way, without
    /// writing it out for the room to parse back.
    package func uuidDigits(after prefix: String) -> (high: UInt64, low: UInt64)? {
        guard case .hex(let high, let low, let shape) = storage, shape & (1 << 4) == 0 else { return nil }
        var prefix = prefix
        let matches = prefix.withUTF8 { bytes in
            bytes.count == Int(shape & 0x7)
                && bytes.indices.allSatisfy { UInt8(truncatingIfNeeded: shape >> (8 + 8 * UInt32($0))) == bytes[$0] }
        }
        return matches ? (high, low) : nil
    }

    private static let uuidLength = 36
    private static let androidIdLength = 16
    private static let maximumPrefix = 3
    private static let lowerDigits: StaticString = "0123456789abcdef"
    private static let upperDigits: StaticString = "0123456789ABCDEF"

    private static func isDash(at offset: Int) -> Bool {
        offset == 8 || offset == 13 || offset == 18 || offset == 23
    }

    /// Nil unless the text is a prefix and a UUID or 16 hex digits, all letters of one case.
    private static func pack(_ text: String) -> (high: UInt64, low: UInt64, shape: UInt32)? {
        var text = text
        return text.withUTF8 { bytes -> (high: UInt64, low: UInt64, shape: UInt32)? in
            let isUUID: Bool
            if bytes.count >= uuidLength && bytes.count <= uuidLength + maximumPrefix {
                isUUID = true
            } else if bytes.count == androidIdLength {
                isUUID = false
            } else {
                return nil
            }
            let prefixLength = bytes.count - (isUUID ? uuidLength : androidIdLength)
            var sawLower = false
            var sawUpper = false
            var words: (UInt64, UInt64) = (0, 0)
            var nibbles = 0
            for offset in 0..<(bytes.count - prefixLength) {
                let byte = bytes[prefixLength + offset]
                if isUUID && isDash(at: offset) {
                    guard byte == UInt8(ascii: "-") else { return nil }
                    continue
                }
                guard let digit = ASCIIByte.hexValue(byte) else { return nil }
                if byte >= UInt8(ascii: "a") { sawLower = true } else if byte >= UInt8(ascii: "A") { sawUpper = true }
                if nibbles < 16 {
                    words.0 = words.0 << 4 | UInt64(digit)
                } else {
                    words.1 = words.1 << 4 | UInt64(digit)
                }
                nibbles += 1
            }
            guard !(sawLower && sawUpper) else { return nil }
            var shape = UInt32(prefixLength) | (sawUpper ? 1 << 3 : 0) | (isUUID ? 0 : 1 << 4)
            for index in 0..<prefixLength {
                shape |= UInt32(bytes[index]) << (8 * UInt32(index + 1))
            }
            return (words.0, words.1, shape)
        }
    }

    private static func unpack(high: UInt64, low: UInt64, shape: UInt32) -> String {
        let prefixLength = Int(shape & 0x7)
        let isUUID = shape & (1 << 4) == 0
        let length = prefixLength + (isUUID ? uuidLength : androidIdLength)
        let digits = shape & (1 << 3) != 0 ? upperDigits : lowerDigits
        return String(unsafeUninitializedCapacity: length) { buffer in
            for index in 0..<prefixLength {
                buffer[index] = UInt8(truncatingIfNeeded: shape >> (8 * UInt32(index + 1)))
            }
            var position = prefixLength
            var nibble = 0
            digits.withUTF8Buffer { digits in
                while position < length {
                    if isUUID && isDash(at: position - prefixLength) {
                        buffer[position] = UInt8(ascii: "-")
                    } else {
                        let word = nibble < 16 ? high : low
                        let shift = UInt64(15 - nibble % 16) * 4
                        buffer[position] = digits[Int((word >> shift) & 0xF)]
                        nibble += 1
                    }
                    position += 1
                }
            }
            return length
        }
    }
}
