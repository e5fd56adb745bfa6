@_spi(Wire) import QueueClientCore

/// Queue ids for tickets, derived from `(seed, ticket index)` and parsed back to the index, so
/// the room needs no dictionary from id to visitor.
///
/// Layout (UUID v4 shape, lowercase hex): the first 20 hex digits come from
/// `SeededRandom(seed, .queueId, index)` (with the version and variant nibbles set), the last 12
/// are the ticket index XOR a per-seed mask. Parsing recomputes the id from the decoded index
/// and compares, so a forged or foreign id is refused.
///
/// Both directions work on bytes: every enqueue makes an id and every queue-page request parses
/// one, so a virtual run of a million visitors does this millions of times.
struct QueueIdCodec: Sendable {
    private let seed: UInt64
    private let indexMask: UInt64
    static let length = 36

    init(seed: UInt64) {
        self.seed = seed
        var maskSource = SeededRandom(seed: seed, purpose: .queueId, index: .max)
        indexMask = maskSource.next() & 0xFFFF_FFFF_FFFF
    }

    func queueId(ofTicket ticket: Int) -> String {
        String(unsafeUninitializedCapacity: Self.length) { buffer in
            write(ticket: ticket, into: buffer)
            return Self.length
        }
    }

    /// The ticket index the id was made for, or nil when this room did not make it. Hex digits
    /// compare case-insensitively (the id is matched as `lowercased()` would match it: no
    /// non-ASCII character lowercases to a hex digit or `-`).
    func ticket(forQueueId queueId: String, ticketCount: Int) -> Int? {
        var queueId = queueId
        return queueId.withUTF8 { bytes -> Int? in
            guard bytes.count == Self.length else { return nil }
            var node: UInt64 = 0
            for byte in bytes[(Self.length - 12)...] {
                guard let digit = ASCIIByte.hexValue(byte) else { return nil }
                node = node << 4 | UInt64(digit)
            }
            let index = node ^ indexMask
            guard index < UInt64(ticketCount) else { return nil }
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.length) { expected in
                write(ticket: Int(index), into: expected)
                for offset in 0..<Self.length where ASCIIByte.lowercased(bytes[offset]) != expected[offset] {
                    return nil
                }
                return Int(index)
            }
        }
    }

    /// `ticket(forQueueId:ticketCount:)` for an id given as its 32 hex digits in two words (the
    /// first 16 in `high`, as `PackedText` keeps a UUID): the same answer for the same id in
    /// either case, with no text.
    func ticket(forUUIDHigh high: UInt64, low: UInt64, ticketCount: Int) -> Int? {
        let index = (low & 0xFFFF_FFFF_FFFF) ^ indexMask
        guard index < UInt64(ticketCount) else { return nil }
        let expected = digits(ofTicket: Int(index))
        return expected.high == high && expected.low == low ? Int(index) : nil
    }

    /// The id of `ticket` as two words of 16 hex digits each, dashes left out: what `write`
    /// writes, as numbers.
    private func digits(ofTicket ticket: Int) -> (high: UInt64, low: UInt64) {
        var random = SeededRandom(seed: seed, purpose: .queueId, index: UInt64(ticket))
        let high = random.next()
        let middle = random.next()
        return (
            (high >> 32) << 32 | ((high >> 16) & 0xFFFF) << 16 | (0x4000 | (high & 0x0FFF)),
            (0x8000 | (middle & 0x3FFF)) << 48 | ((UInt64(ticket) ^ indexMask) & 0xFFFF_FFFF_FFFF)
        )
    }

    /// `xxxxxxxx-xxxx-4xxx-yxxx-nnnnnnnnnnnn` into a buffer of `length` bytes.
    private func write(ticket: Int, into buffer: UnsafeMutableBufferPointer<UInt8>) {
        var random = SeededRandom(seed: seed, purpose: .queueId, index: UInt64(ticket))
        let high = random.next()
        let middle = random.next()
        var at = 0
        func put(_ value: UInt64, digits: Int) {
            for shift in stride(from: (digits - 1) * 4, through: 0, by: -4) {
                buffer[at] = ASCIIByte.lowercaseHexDigit(UInt8(truncatingIfNeeded: value >> UInt64(shift)) & 0x0F)
                at += 1
            }
        }
        func dash() {
            buffer[at] = UInt8(ascii: "-")
            at += 1
        }
        put(high >> 32, digits: 8)
        dash()
        put((high >> 16) & 0xFFFF, digits: 4)
        dash()
        put(0x4000 | (high & 0x0FFF), digits: 4)
        dash()
        put(0x8000 | (middle & 0x3FFF), digits: 4)
        dash()
        put((UInt64(ticket) ^ indexMask) & 0xFFFF_FFFF_FFFF, digits: 12)
    }

}
