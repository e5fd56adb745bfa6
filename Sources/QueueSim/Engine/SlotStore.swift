/// The visitors in flight, by slot number, in fixed-size chunks.
///
/// A slot number is what an event carries. Chunks (not one growing array) because a million
/// visitors in flight at several hundred bytes each would, at the array's last doubling, hold
/// the old and the new buffer at once: hundreds of megabytes for a moment. Chunks are only ever
/// appended; freed slots are reused last-in first-out, which is deterministic.
///
/// A chunk whose slots are all free gives its memory back: a queue that drains (a launch's
/// second half) frees its visitors' chunks in order, so the run's peak memory is reached when
/// the most visitors wait, not at its end, when the reports' per-visitor arrays are largest.
/// Slot numbers never change, so this changes nothing a run does.
struct SlotStore<Element> {
    private static var chunkShift: Int { 12 }
    private static var chunkSize: Int { 1 << chunkShift }

    private var chunks: [[Element?]] = []
    /// Slots handed out and not freed, per chunk (taken slots count: they are put back).
    private var occupied: [UInt16] = []
    /// 32 bits each: a run has at most 10^8 visitors in flight (half the bytes at the end of a
    /// run, when every slot is free).
    private var freeSlots: [UInt32] = []
    private var allocatedCount = 0

    /// Slots ever handed out (the highest slot number + 1).
    var capacity: Int { allocatedCount }

    mutating func insert(_ element: consuming Element) -> Int {
        if let freeNumber = freeSlots.popLast() {
            let free = Int(freeNumber)
            let chunk = free >> Self.chunkShift
            if occupied[chunk] == 0 {
                // Given back when its last slot was freed: its slots are all empty again.
                chunks[chunk] = Array(repeating: nil, count: Self.slotsMade(inChunk: chunk, allocated: allocatedCount))
            }
            occupied[chunk] += 1
            self[free] = element
            return free
        }
        let slot = allocatedCount
        allocatedCount += 1
        let chunk = slot >> Self.chunkShift
        if chunk == chunks.count {
            var storage = [Element?]()
            storage.reserveCapacity(Self.chunkSize)
            chunks.append(storage)
            occupied.append(0)
        } else if occupied[chunk] == 0 && chunks[chunk].isEmpty {
            // The last chunk, given back while it was still being filled.
            chunks[chunk] = Array(repeating: nil, count: slot & (Self.chunkSize - 1))
            chunks[chunk].reserveCapacity(Self.chunkSize)
        }
        occupied[chunk] += 1
        chunks[chunk].append(element)
        return slot
    }

    /// How many of a chunk's slots had been handed out when `allocated` slots were.
    private static func slotsMade(inChunk chunk: Int, allocated: Int) -> Int {
        min(chunkSize, allocated - chunk << chunkShift)
    }

    /// Moves the element out of `slot`, leaving it empty but not free (no copy, no
    /// reference counting).
    mutating func take(_ slot: Int) -> Element? {
        guard holds(slot) else { return nil }
        var taken: Element?
        swap(&taken, &chunks[slot >> Self.chunkShift][slot & (Self.chunkSize - 1)])
        return taken
    }

    /// False for a slot of a chunk given back (an event of a visitor gone may still name it).
    private func holds(_ slot: Int) -> Bool {
        (slot & (Self.chunkSize - 1)) < chunks[slot >> Self.chunkShift].count
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
        guard holds(slot) else { return nil }
        return try Self.lend(&chunks[slot >> Self.chunkShift][slot & (Self.chunkSize - 1)], body)
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

    /// Frees an empty (taken) slot for reuse; the chunk's memory goes when it was its last.
    mutating func release(_ slot: Int) {
        freeSlots.append(UInt32(slot))
        let chunk = slot >> Self.chunkShift
        occupied[chunk] -= 1
        if occupied[chunk] == 0 { chunks[chunk] = [] }
    }

    /// Chunks holding memory now (tests: a drained store gives its memory back).
    var chunksHeld: Int { chunks.count { !$0.isEmpty } }

    subscript(slot: Int) -> Element? {
        get { holds(slot) ? chunks[slot >> Self.chunkShift][slot & (Self.chunkSize - 1)] : nil }
        set { chunks[slot >> Self.chunkShift][slot & (Self.chunkSize - 1)] = newValue }
    }
}
