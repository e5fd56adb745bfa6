/// Queue ids for tickets, derived from `(seed, ticket index)` and parsed back to the index, so
/// the room needs no dictionary from id to visitor.
///
/// Layout (UUID v4 shape, lowercase hex): the first 20 hex digits come from
/// `SeededRandom(seed, .queueId, index)` (with the version and variant nibbles set), the last 12
/// are the ticket index XOR a per-seed mask. Parsing recomputes the id from the decoded index
/// and compares, so a forged or foreign id is refused.
struct QueueIdCodec: Sendable {
    private let seed: UInt64
    private let indexMask: UInt64

    init(seed: UInt64) {
        self.seed = seed
        var maskSource = SeededRandom(seed: seed, purpose: .queueId, index: .max)
        indexMask = maskSource.next() & 0xFFFF_FFFF_FFFF
    }

    func queueId(ofTicket ticket: Int) -> String {
        var random = SeededRandom(seed: seed, purpose: .queueId, index: UInt64(ticket))
        let high = random.next()
        let middle = random.next()
        let timeLow = hex(high >> 32, digits: 8)
        let timeMid = hex((high >> 16) & 0xFFFF, digits: 4)
        let version = hex(0x4000 | (high & 0x0FFF), digits: 4)
        let variant = hex(0x8000 | (middle & 0x3FFF), digits: 4)
        let node = hex((UInt64(ticket) ^ indexMask) & 0xFFFF_FFFF_FFFF, digits: 12)
        return "\(timeLow)-\(timeMid)-\(version)-\(variant)-\(node)"
    }

    /// The ticket index the id was made for, or nil when this room did not make it.
    func ticket(forQueueId queueId: String, ticketCount: Int) -> Int? {
        let utf8 = queueId.utf8
        guard utf8.count == 36, let node = UInt64(queueId.suffix(12), radix: 16) else { return nil }
        let index = node ^ indexMask
        guard index < UInt64(ticketCount) else { return nil }
        return queueId.lowercased() == self.queueId(ofTicket: Int(index)) ? Int(index) : nil
    }

    private func hex(_ value: UInt64, digits: Int) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
