/// The visitors in flight, by slot number, in fixed-size chunks.
///
/// A slot number is what an event carries. Chunks (not one growing array) because a million
/// visitors in flight at several hundred bytes each would, at the array's last doubling, hold
/// the old and the new buffer at once: hundreds of megabytes for a moment. Chunks are only ever
/// appended; freed slots are reused last-in first-out, which is deterministic.
struct SlotStore<Element> {
    private static var chunkShift: Int { 12 }
    private static var chunkSize: Int { 1 << chunkShift }

    private var chunks: [[Element?]] = []
    private var freeSlots: [Int] = []
    private var allocatedCount = 0

    /// Slots ever handed out (the highest slot number + 1).
    var capacity: Int { allocatedCount }

    mutating func insert(_ element: consuming Element) -> Int {
        if let free = freeSlots.popLast() {
            self[free] = element
            return free
        }
        let slot = allocatedCount
        allocatedCount += 1
        if slot >> Self.chunkShift == chunks.count {
            var chunk = [Element?]()
            chunk.reserveCapacity(Self.chunkSize)
            chunks.append(chunk)
        }
        chunks[slot >> Self.chunkShift].append(element)
        return slot
    }

    /// Moves the element out of `slot`, leaving it empty but not free (no copy, no
    /// reference counting).
    mutating func take(_ slot: Int) -> Element? {
        var taken: Element?
        swap(&taken, &chunks[slot >> Self.chunkShift][slot & (Self.chunkSize - 1)])
        return taken
    }

    /// Moves `element` into `slot` (taken before).
    mutating func put(_ element: consuming Element, at slot: Int) {
        chunks[slot >> Self.chunkShift][slot & (Self.chunkSize - 1)] = element
    }

    /// Moves `element` back into `slot` (taken before), or into a new slot when `slot` is nil;
    /// returns the slot it is in.
    mutating func place(_ element: consuming Element, at slot: Int?) -> Int {
        guard let slot else { return insert(element) }
        put(element, at: slot)
        return slot
    }

    /// Lends the element in `slot` in place (no copy, no Optional moved out and back); nil
    /// when the slot is empty.
    mutating func modify<Result>(_ slot: Int, _ body: (inout Element) throws -> Result) rethrows -> Result? {
        try Self.lend(&chunks[slot >> Self.chunkShift][slot & (Self.chunkSize - 1)], body)
    }

    /// The element's look and change both go through `inout`: a read through the array's
    /// getter would copy the element (a retain and release of each of its references).
    private static func lend<Result>(
        _ element: inout Element?, _ body: (inout Element) throws -> Result
    ) rethrows -> Result? {
        guard element != nil else { return nil }
        // Checked just above: the access is in place, through the Optional's payload.
        return try body(&element!)
    }

    /// Moves the element out of `slot`, which must hold one, and frees the slot.
    mutating func remove(_ slot: Int) -> Element {
        guard let element = take(slot) else { preconditionFailure("slot \(slot) is empty") }
        release(slot)
        return element
    }

    /// Frees an empty (taken) slot for reuse.
    mutating func release(_ slot: Int) {
        freeSlots.append(slot)
    }

    subscript(slot: Int) -> Element? {
        get { chunks[slot >> Self.chunkShift][slot & (Self.chunkSize - 1)] }
        set { chunks[slot >> Self.chunkShift][slot & (Self.chunkSize - 1)] = newValue }
    }
}
