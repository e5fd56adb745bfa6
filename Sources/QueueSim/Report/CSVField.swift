import QueueClientCore

/// Byte-level CSV writing (RFC 4180): a field is quoted when it holds a comma, a quote, CR or
/// LF, and quotes inside are doubled. Rows end with `\n`.
///
/// Rows are built straight into a byte buffer because a million-visitor run writes a million
/// rows; going through `String` interpolation per cell would dominate the run's end.
struct CSVRowBuilder {
    private(set) var bytes: [UInt8] = []
    private var fieldsInRow = 0

    init(reservingCapacity capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    mutating func clear() {
        bytes.removeAll(keepingCapacity: true)
        fieldsInRow = 0
    }

    mutating func text(_ value: String) {
        separate()
        var value = value
        // Native strings are contiguous UTF-8; scanning and copying the buffer is far cheaper
        // than going through the generic `UTF8View` paths, which matters in debug builds too.
        value.withUTF8 { appendField($0) }
    }

    /// A packed id (a queue id) written from its words, quoted as `text` would quote it.
    mutating func optionalPackedText(_ value: PackedText?) {
        guard let value else { return empty() }
        separate()
        value.withUTF8 { appendField($0) }
    }

    private mutating func appendField(_ utf8: UnsafeBufferPointer<UInt8>) {
        guard utf8.contains(where: Self.needsQuoting) else {
            bytes.append(contentsOf: utf8)
            return
        }
        bytes.append(.quote)
        for byte in utf8 {
            if byte == .quote { bytes.append(.quote) }
            bytes.append(byte)
        }
        bytes.append(.quote)
    }

    private static func needsQuoting(_ byte: UInt8) -> Bool {
        byte == .comma || byte == .quote || byte == .newline || byte == .carriageReturn
    }

    mutating func optionalText(_ value: String?) {
        if let value { text(value) } else { empty() }
    }

    mutating func integer<I: BinaryInteger>(_ value: I) {
        separate()
        appendDecimal(Int64(value))
    }

    mutating func optionalInteger<I: BinaryInteger>(_ value: I?) {
        if let value { integer(value) } else { empty() }
    }

    /// A value already formatted by the caller that never needs quoting (fixed-point numbers).
    mutating func raw(_ value: String) {
        separate()
        bytes.append(contentsOf: value.utf8)
    }

    mutating func empty() {
        separate()
    }

    mutating func endRow() {
        bytes.append(.newline)
        fieldsInRow = 0
    }

    private mutating func separate() {
        if fieldsInRow > 0 { bytes.append(.comma) }
        fieldsInRow += 1
    }

    private mutating func appendDecimal(_ value: Int64) {
        if value < 0 {
            bytes.append(UInt8(ascii: "-"))
            appendDigits(value.magnitude)
        } else {
            appendDigits(UInt64(value))
        }
    }

    private mutating func appendDigits(_ value: UInt64) {
        // Backwards into 20 bytes (UInt64.max has 20 digits), then one append: divisions by
        // the constant 10 only, one uniqueness check per number instead of one per digit.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = 20
            var rest = value
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
            } while rest > 0
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }
}

extension UInt8 {
    fileprivate static let comma = UInt8(ascii: ",")
    fileprivate static let quote = UInt8(ascii: "\"")
    fileprivate static let newline = UInt8(ascii: "\n")
    fileprivate static let carriageReturn = UInt8(ascii: "\r")
}

/// Formats `numerator / denominator` with exactly `decimals` digits after the point, rounded
/// half up, in integer arithmetic so the bytes never depend on locale or floating point.
/// A zero denominator prints as zero.
func fixedPointRatio(_ numerator: Int, _ denominator: Int, decimals: Int = 4) -> String {
    guard denominator > 0 else { return "0." + String(repeating: "0", count: decimals) }
    var scale = 1
    for _ in 0..<decimals { scale *= 10 }
    let scaled = (numerator * scale * 2 + denominator) / (denominator * 2)
    let fraction = String(scaled % scale)
    return "\(scaled / scale)." + String(repeating: "0", count: decimals - fraction.count) + fraction
}
