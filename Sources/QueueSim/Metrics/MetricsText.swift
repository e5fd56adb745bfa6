/// metrics.prom's text as bytes, handed on in pieces of about `MetricsExposition.piece`.
///
/// Lines are copied through a pointer into a buffer of its own. A 2,000-group run writes
/// 180,000 lines of five pieces each; appending each piece to an array (a uniqueness and a
/// capacity check, a call per piece) was a third of metrics.prom's thread, the longest of the
/// run's end (issue 51). A class, so the buffer is freed with it; used by one thread.
final class MetricsText {
    private var buffer: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private var count = 0
    /// ` timestamp\n` of the last line: a wait sample's 17 lines share it, and writing its ten
    /// digits again for each was a third of this type's time.
    private let suffix = UnsafeMutablePointer<UInt8>.allocate(capacity: MetricsText.suffixCapacity)
    private var suffixCount = 0
    private var suffixTimestamp: Int64?

    /// A space, an Int64's sign and 19 digits, a newline.
    private static let suffixCapacity = 22
    /// The most a number takes: a sign and 19 digits.
    private static let numberCapacity = 20

    init() {
        capacity = MetricsExposition.piece + 4096
        buffer = .allocate(capacity: capacity)
    }

    deinit {
        buffer.deallocate()
        suffix.deallocate()
    }

    func append(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            reserve(utf8.count)
            put(utf8)
        }
    }

    /// `start value timestamp\n`.
    func line(_ start: [UInt8], _ value: Int, timestamp: Int64) {
        start.withUnsafeBufferPointer { start in
            reserve(start.count + Self.numberCapacity + Self.suffixCapacity)
            put(start)
        }
        putDecimal(Int64(value))
        putSuffix(timestamp)
    }

    /// `head labels tail value timestamp\n`: a line whose start is made of three pieces.
    func line(_ head: [UInt8], _ labels: [UInt8], _ tail: [UInt8], _ value: Int, timestamp: Int64) {
        putStart(head, labels, tail, more: Self.numberCapacity)
        putDecimal(Int64(value))
        putSuffix(timestamp)
    }

    func line(_ head: [UInt8], _ labels: [UInt8], _ tail: [UInt8], _ value: [UInt8], timestamp: Int64) {
        putStart(head, labels, tail, more: value.count)
        value.withUnsafeBufferPointer { put($0) }
        putSuffix(timestamp)
    }

    func line(_ start: [UInt8], _ value: [UInt8], timestamp: Int64) {
        reserve(start.count + value.count + Self.suffixCapacity)
        start.withUnsafeBufferPointer { put($0) }
        value.withUnsafeBufferPointer { put($0) }
        putSuffix(timestamp)
    }

    /// Hands the text to `emit` once it holds a piece's worth.
    func flushIfFull(_ emit: (UnsafeBufferPointer<UInt8>) throws -> Void) rethrows {
        guard count >= MetricsExposition.piece else { return }
        try flush(emit)
    }

    func flush(_ emit: (UnsafeBufferPointer<UInt8>) throws -> Void) rethrows {
        guard count > 0 else { return }
        try emit(UnsafeBufferPointer(start: buffer, count: count))
        count = 0
    }

    /// Room for `more` bytes after the text (and a suffix), growing the buffer when a line is
    /// longer than what is left (a long group name).
    private func reserve(_ more: Int) {
        guard count + more > capacity else { return }
        let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: max(capacity * 2, count + more))
        grown.initialize(from: buffer, count: count)
        buffer.deallocate()
        buffer = grown
        capacity = max(capacity * 2, count + more)
    }

    private func putStart(_ head: [UInt8], _ labels: [UInt8], _ tail: [UInt8], more: Int) {
        reserve(head.count + labels.count + tail.count + more + Self.suffixCapacity)
        head.withUnsafeBufferPointer { put($0) }
        labels.withUnsafeBufferPointer { put($0) }
        tail.withUnsafeBufferPointer { put($0) }
    }

    /// Copies `bytes`; room was reserved.
    private func put(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress else { return }
        (buffer + count).initialize(from: base, count: bytes.count)
        count += bytes.count
    }

    /// As `String(value)` writes it; room was reserved.
    private func putDecimal(_ value: Int64) {
        count += Self.writeDecimal(value, to: buffer + count)
    }

    private func putSuffix(_ timestamp: Int64) {
        if suffixTimestamp != timestamp {
            suffix[0] = UInt8(ascii: " ")
            let digits = Self.writeDecimal(timestamp, to: suffix + 1)
            suffix[1 + digits] = UInt8(ascii: "\n")
            suffixCount = digits + 2
            suffixTimestamp = timestamp
        }
        (buffer + count).initialize(from: suffix, count: suffixCount)
        count += suffixCount
    }

    /// Writes `value` in decimal at `target` (at most 20 bytes); the bytes written.
    private static func writeDecimal(_ value: Int64, to target: UnsafeMutablePointer<UInt8>) -> Int {
        var written = 0
        if value < 0 {
            target[0] = UInt8(ascii: "-")
            written = 1
        }
        var magnitude = value.magnitude
        if magnitude < 10 {
            target[written] = UInt8(ascii: "0") + UInt8(magnitude)
            return written + 1
        }
        var digits = 1
        var probe = magnitude
        while probe >= 10 {
            probe /= 10
            digits += 1
        }
        var at = written + digits
        while magnitude > 0 {
            at -= 1
            target[at] = UInt8(ascii: "0") + UInt8(magnitude % 10)
            magnitude /= 10
        }
        return written + digits
    }
}
