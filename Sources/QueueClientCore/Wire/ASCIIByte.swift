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
        // Comparisons, not a `switch` over ranges: each range pattern was a call to an
        // unspecialized `~=` (every queue id a visitor packs passes here, 32 digits).
        let digit = byte &- UInt8(ascii: "0")
        if digit < 10 { return digit }
        // `| 0x20` maps `A`…`F` onto `a`…`f`, and no other byte into that range.
        let letter = (byte | 0x20) &- UInt8(ascii: "a")
        return letter < 6 ? letter + 10 : nil
    }

    /// True when every byte of `text` is ASCII, scanned over the string's own contiguous
    /// bytes (its `utf8` view goes a byte at a time).
    package static func isASCII(_ text: String) -> Bool {
        var contiguous = text
        return contiguous.withUTF8 { bytes in bytes.allSatisfy { $0 < 0x80 } }
    }

    /// Whether two byte runs hold the same bytes. A loop over the buffers themselves: the
    /// standard library's `elementsEqual` on strings' `utf8` views and on buffer slices went
    /// through iterator and index witnesses byte by byte (1.8 % of a sweep point).
    @inlinable
    public static func equal(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        var index = 0
        while index < a.count {
            if a[index] != b[index] { return false }
            index += 1
        }
        return true
    }

    /// Whether `a` holds the bytes of `literal`.
    @inlinable
    public static func equal(_ a: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
        literal.withUTF8Buffer { equal(a, $0) }
    }

    /// Whether two strings hold the same UTF-8 bytes (not `==`: that also equates canonically
    /// equivalent texts, which are different URLs and ids).
    static func sameBytes(_ a: String, _ b: String) -> Bool {
        withBytes(of: a, b) { equal($0, $1) }
    }

    /// Calls `body` with the UTF-8 bytes of `text`, read in place where it is contiguous.
    package static func withBytes<Result>(of text: String, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        if let inPlace = text.utf8.withContiguousStorageIfAvailable(body) { return inPlace }
        var text = text
        return text.withUTF8(body)
    }

    /// Calls `body` with the UTF-8 bytes of two strings. Read in place where the strings are
    /// contiguous (native or small), rather than through `withUTF8` on mutable copies of
    /// them, which retained and released both (every enqueue compares four pairs).
    static func withBytes<Result>(
        of a: String, _ b: String, _ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> Result
    ) -> Result {
        let inPlace = a.utf8.withContiguousStorageIfAvailable { a in
            b.utf8.withContiguousStorageIfAvailable { b in body(a, b) }
        }
        if let inPlace, let result = inPlace { return result }
        var (a, b) = (a, b)
        return a.withUTF8 { a in b.withUTF8 { b in body(a, b) } }
    }

    /// The first index of `byte` in `bytes[range]`, or nil (`firstIndex(of:)` on a buffer's
    /// slice compared its indices through a witness at every byte).
    @inlinable
    public static func firstIndex(of byte: UInt8, in bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Int? {
        var index = range.lowerBound
        while index < range.upperBound {
            if bytes[index] == byte { return index }
            index += 1
        }
        return nil
    }

    /// The last index of `byte` in `bytes[range]`, or nil.
    static func lastIndex(of byte: UInt8, in bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Int? {
        var index = range.upperBound
        while index > range.lowerBound {
            index -= 1
            if bytes[index] == byte { return index }
        }
        return nil
    }

    /// `A`…`Z` made lowercase; every other byte as it is.
    @inlinable
    public static func lowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
    }
}
