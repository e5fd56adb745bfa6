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
        // Every visitor packs its queue id and its queue page's query: the digits are read in
        // runs between the dashes into one 128-bit number, with no per-byte dash check, no
        // optional per digit and no branch on the digit's case (the loop that did was 2 % of
        // a virtual run).
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
            var digits = HexRun()
            if isUUID {
                let start = prefixLength
                let dash = UInt8(ascii: "-")
                guard bytes[start + 8] == dash, bytes[start + 13] == dash, bytes[start + 18] == dash,
                    bytes[start + 23] == dash
                else { return nil }
                digits.read(bytes, start, 8)
                digits.read(bytes, start + 9, 4)
                digits.read(bytes, start + 14, 4)
                digits.read(bytes, start + 19, 4)
                digits.read(bytes, start + 24, 12)
            } else {
                digits.read(bytes, 0, androidIdLength)
            }
            // Bit 0 of `cases`: a lower-case letter; bit 1: an upper-case one; bit 2: not hex.
            guard digits.cases & 0b100 == 0, digits.cases != 0b11 else { return nil }
            var shape = UInt32(prefixLength) | (digits.cases == 0b10 ? 1 << 3 : 0) | (isUUID ? 0 : 1 << 4)
            for index in 0..<prefixLength {
                shape |= UInt32(bytes[index]) << (8 * UInt32(index + 1))
            }
            // A UUID's first 16 digits go to `high`; an Android id's 16 all do.
            let value = digits.value
            if isUUID { return (UInt64(truncatingIfNeeded: value >> 64), UInt64(truncatingIfNeeded: value), shape) }
            return (UInt64(truncatingIfNeeded: value), 0, shape)
        }
    }

    /// Hex digits read four bits at a time into one number, with what was seen of their case.
    private struct HexRun {
        var value: UInt128 = 0
        /// Bit 0: a lower-case letter, bit 1: an upper-case one, bit 2: a byte that is no digit.
        var cases: UInt8 = 0

        @inline(__always)
        mutating func read(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ count: Int) {
            for byte in UnsafeBufferPointer(rebasing: bytes[start..<(start + count)]) {
                let decimal = byte &- UInt8(ascii: "0")
                // `| 0x20` maps `A`…`F` onto `a`…`f`, and no other byte into that range.
                let letter = (byte | 0x20) &- UInt8(ascii: "a")
                let isDecimal = decimal < 10
                let isLetter = letter < 6
                value = value << 4 | UInt128(isDecimal ? decimal : letter &+ 10)
                // A letter's 0x20 bit is its case: set for `a`…`f`, clear for `A`…`F`.
                let letterCase: UInt8 = byte & 0x20 != 0 ? 0b01 : 0b10
                cases |= isLetter ? letterCase : (isDecimal ? 0 : 0b100)
            }
        }
    }

    private static func unpack(high: UInt64, low: UInt64, shape: UInt32) -> String {
        let length = unpackedCount(shape: shape)
        return String(unsafeUninitializedCapacity: length) { buffer in
            write(high: high, low: low, shape: shape, into: buffer)
            return length
        }
    }

    /// The UTF-8 length of the text packed with `shape`.
    private static func unpackedCount(shape: UInt32) -> Int {
        Int(shape & 0x7) + (shape & (1 << 4) == 0 ? uuidLength : androidIdLength)
    }

    /// Writes the text packed with `shape` at the start of `buffer` (`unpackedCount(shape:)`
    /// bytes).
    private static func write(high: UInt64, low: UInt64, shape: UInt32, into buffer: UnsafeMutableBufferPointer<UInt8>)
    {
        let prefixLength = Int(shape & 0x7)
        let isUUID = shape & (1 << 4) == 0
        let length = unpackedCount(shape: shape)
        let digits = shape & (1 << 3) != 0 ? upperDigits : lowerDigits
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
    }

    /// The UTF-8 length of `string`, without making it.
    package var utf8Count: Int {
        switch storage {
        case .text(let text): text.utf8.count
        case .hex(_, _, let shape): Self.unpackedCount(shape: shape)
        }
    }

    /// Calls `body` with `string`'s UTF-8 bytes; a packed id is written on the stack, not into
    /// a new string (a report row per visitor writes its queue id this way).
    package func withUTF8<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        switch storage {
        case .text(var text):
            return try text.withUTF8(body)
        case .hex(let high, let low, let shape):
            let count = Self.unpackedCount(shape: shape)
            return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count) { buffer in
                Self.write(high: high, low: low, shape: shape, into: buffer)
                return try body(UnsafeBufferPointer(buffer))
            }
        }
    }

    /// Writes `string`'s bytes at the start of `buffer`, which holds at least `utf8Count`: a
    /// queue page's request target is its path, `?` and this, written into one string.
    package func write(into buffer: UnsafeMutableBufferPointer<UInt8>) {
        switch storage {
        case .text(let text):
            _ = UnsafeMutableBufferPointer(rebasing: buffer[0..<text.utf8.count]).initialize(fromContentsOf: text.utf8)
        case .hex(let high, let low, let shape):
            Self.write(high: high, low: low, shape: shape, into: buffer)
        }
    }
}
