#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The visitors in flight, by slot number, in fixed-size chunks.
///
/// A slot number is what an event carries. Chunks (not one growing array) because a million
/// visitors in flight at several hundred bytes each would, at the array's last doubling, hold
/// the old and the new buffer at once: hundreds of megabytes for a moment. Freed slots are
/// reused last-in first-out, which is deterministic.
///
/// A chunk whose slots are all free gives its memory back: a queue that drains (a launch's
/// second half) frees its visitors' chunks, so the run's peak memory is reached when the most
/// visitors wait, not at its end, when the reports' per-visitor arrays are largest. Each chunk
/// is a mapping of its own (`SlotChunk`): memory from `malloc` stayed resident in its arenas
/// after it was freed (measured: 210 MB of a drained million). Slot numbers never change, so
/// none of this changes anything a run does.
struct SlotStore<Element> {
    private static var chunkShift: Int { 12 }
    private static var chunkSize: Int { 1 << chunkShift }

    /// Nil: a chunk given back (or never needed again).
    private var chunks: [SlotChunk<Element>?] = []
    /// Slots handed out and not freed, per chunk (taken slots count: they are put back).
    private var occupied: [UInt16] = []
    /// 32 bits each: a run has at most 10^8 visitors in flight (half the bytes at the end of a
    /// run, when every slot is free).
    private var freeSlots: [UInt32] = []
    private var allocatedCount = 0

    /// Slots ever handed out (the highest slot number + 1).
    var capacity: Int { allocatedCount }

    mutating func insert(_ element: consuming Element) -> Int {
        let slot: Int
        if let free = freeSlots.popLast() {
            slot = Int(free)
        } else {
            slot = allocatedCount
            allocatedCount += 1
            if slot >> Self.chunkShift == chunks.count {
                chunks.append(nil)
                occupied.append(0)
            }
        }
        let chunk = slot >> Self.chunkShift
        // A new chunk, or one given back when its last slot was freed: all its slots are empty.
        if chunks[chunk] == nil { chunks[chunk] = SlotChunk(count: Self.chunkSize) }
        occupied[chunk] += 1
        uniqueChunk(chunk).store(element, at: slot & (Self.chunkSize - 1))
        return slot
    }

    /// The chunk, copied first if a copy of this store shares it (value semantics, as arrays).
    private mutating func uniqueChunk(_ chunk: Int) -> SlotChunk<Element> {
        if !isKnownUniquelyReferenced(&chunks[chunk]!) { chunks[chunk] = chunks[chunk]!.copy() }
        return chunks[chunk].unsafelyUnwrapped
    }

    /// False for a slot of a chunk given back (an event of a visitor gone may still name it).
    private func holds(_ slot: Int) -> Bool {
        chunks[slot >> Self.chunkShift] != nil
    }

    /// Moves the element out of `slot`, leaving it empty but not free (no copy, no
    /// reference counting).
    mutating func take(_ slot: Int) -> Element? {
        guard holds(slot) else { return nil }
        return uniqueChunk(slot >> Self.chunkShift).take(slot & (Self.chunkSize - 1))
    }

    /// Moves `element` into `slot` (taken before).
    mutating func put(_ element: consuming Element, at slot: Int) {
        uniqueChunk(slot >> Self.chunkShift).store(element, at: slot & (Self.chunkSize - 1))
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
        let chunk = uniqueChunk(slot >> Self.chunkShift)
        let index = slot & (Self.chunkSize - 1)
        guard chunk.holds(index) else { return nil }
        // In place: a plain read would copy the element (a retain and release of each of its
        // references).
        return try body(&chunk.elements[index])
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
        if occupied[chunk] == 0 { chunks[chunk] = nil }
    }

    /// Chunks holding memory now (tests: a drained store gives its memory back).
    var chunksHeld: Int { chunks.count { $0 != nil } }

    subscript(slot: Int) -> Element? {
        get {
            guard let chunk = chunks[slot >> Self.chunkShift], chunk.holds(slot & (Self.chunkSize - 1)) else {
                return nil
            }
            return chunk.elements[slot & (Self.chunkSize - 1)]
        }
        set {
            let chunk = uniqueChunk(slot >> Self.chunkShift)
            let index = slot & (Self.chunkSize - 1)
            if let newValue {
                chunk.store(newValue, at: index)
            } else {
                _ = chunk.take(index)
            }
        }
    }
}

/// A chunk's slots in a mapping of their own: unmapped (its memory given back to the system)
/// when the last reference goes. Only `SlotStore` holds one, and copies it before changing a
/// shared one, so its mutable memory is never reached from two places.
final class SlotChunk<Element>: @unchecked Sendable {
    /// Initialized only where `present` has the slot's bit: no `Optional` around each element,
    /// whose tag (spread over the spare bits of the visitor's nested enums) took a percent of a
    /// run to read at every event.
    let elements: UnsafeMutablePointer<Element>
    private let present: UnsafeMutablePointer<UInt64>
    private let count: Int
    private let byteCount: Int

    init(count: Int) {
        self.count = count
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        let words = (count + 63) / 64
        let elementBytes = (MemoryLayout<Element>.stride * count + 7) / 8 * 8
        byteCount = (elementBytes + words * 8 + pageSize - 1) / pageSize * pageSize
        let mapped = mmap(nil, byteCount, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        // Running out of address space for a megabyte is not a state a run can go on from.
        guard let mapped, mapped != MAP_FAILED else { fatalError("could not map \(byteCount) bytes for visitor slots") }
        elements = mapped.bindMemory(to: Element.self, capacity: count)
        // A fresh mapping reads as zeros: no slot present.
        present = (mapped + elementBytes).bindMemory(to: UInt64.self, capacity: words)
    }

    func holds(_ index: Int) -> Bool {
        present[index >> 6] & (1 << UInt64(index & 63)) != 0
    }

    /// Puts `element` in slot `index`, replacing any element there.
    func store(_ element: consuming Element, at index: Int) {
        if holds(index) {
            elements[index] = element
        } else {
            (elements + index).initialize(to: element)
            present[index >> 6] |= 1 << UInt64(index & 63)
        }
    }

    /// Moves the element out of slot `index`, leaving it empty; nil when it is.
    func take(_ index: Int) -> Element? {
        guard holds(index) else { return nil }
        present[index >> 6] &= ~(1 << UInt64(index & 63))
        return (elements + index).move()
    }

    func copy() -> SlotChunk {
        let copy = SlotChunk(count: count)
        for index in 0..<count where holds(index) { copy.store(elements[index], at: index) }
        return copy
    }

    deinit {
        for index in 0..<count where holds(index) { (elements + index).deinitialize(count: 1) }
        munmap(UnsafeMutableRawPointer(elements), byteCount)
    }
}
