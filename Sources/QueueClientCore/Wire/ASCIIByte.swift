/// ASCII byte helpers for the byte-level writers and readers on both sides of the wire
/// (queue ids, HMAC codes, JSON and percent escapes, case-insensitive ids).
///
/// SPI rather than `package`, for speed alone: Swift 6.3 never inlines a `package` function
/// into another module, `@inlinable` or not (without library evolution there is no package
/// cross-module optimization), and the room calls these once per byte of every queue id, token
/// and HMAC it reads or writes. As `package` they made the million-visitor virtual benchmark
/// 9 % slower (docs/benchmarks.md, issue 16). An app does not see them: they are outside
/// docs/public-api.txt and need `@_spi(Wire) import QueueClientCore`.
@_spi(Wire) public enum ASCIIByte {
    /// The lowercase hex digit for a nibble (0…15).
    @inlinable
    public static func lowercaseHexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }

    /// The value of a hex digit in either case, or nil.
    @inlinable
    public static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// True when every byte of `text` is ASCII, scanned over the string's own contiguous
    /// bytes (its `utf8` view goes a byte at a time).
    package static func isASCII(_ text: String) -> Bool {
        var contiguous = text
        return contiguous.withUTF8 { bytes in bytes.allSatisfy { $0 < 0x80 } }
    }

    /// `A`…`Z` made lowercase; every other byte as it is.
    @inlinable
    public static func lowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
    }
}
