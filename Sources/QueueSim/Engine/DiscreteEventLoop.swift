import QueueClientCore

/// A discrete-event loop in the spirit of SimPy's `Environment`: `now`, `schedule`, `step`,
/// `run(until:)`. Events fire in `(time, sequence)` order, so two events at the same instant
/// fire in the order they were scheduled — the rule that makes virtual runs deterministic.
///
/// Payloads are small values (a visitor index and what happened); no task or closure per event.
///
/// Storage is a calendar in front of a four-ary min-heap (`QuaternaryHeap`). A launch keeps one wake-up per waiting
/// visitor pending (800,000 in the million-visitor benchmark), and one heap over all of them
/// pays a cache miss per level on every push and pop. Here the heap holds only the events
/// before the horizon (the start of slot `nextSlot`); later ones are appended, unordered, to
/// the bucket of their time slot (about a second wide) and become a heap only when the clock
/// reaches that slot. Every event
/// still leaves through the heap, so the order is exactly the one-heap order:
/// - the heap holds every pending event before the horizon, and nothing else does;
/// - buckets and `farHeap` hold only events at or after the horizon;
/// - when the heap runs dry, the next non-empty slot is poured into it (and `farHeap`'s events
///   before the new horizon with it), which moves the horizon past that slot.
package struct DiscreteEventLoop<Payload> {
    package private(set) var now: RunInstant = .origin
    private var heap = QuaternaryHeap<Entry>()
    /// `buckets[slot & bucketMask]` holds the events of slot `slot` for slots in
    /// `nextSlot ..< nextSlot + bucketCount`; later slots wait in `farHeap`.
    private var buckets: [[Entry]]
    private var bucketedCount = 0
    /// Events beyond the buckets' window (hours ahead), in a heap of their own.
    private var farHeap = QuaternaryHeap<Entry>()
    /// The first slot not yet poured into the heap; its start is the horizon.
    private var nextSlot: Int64 = 0
    private var nextSequence: UInt64 = 0

    /// A slot is 2^30 nanoseconds (about 1.07 s): the high bits of the time, no division.
    private static var slotShift: Int { 30 }
    private static var bucketCount: Int { 1 << 13 }
    private static var bucketMask: Int64 { Int64(bucketCount - 1) }

    /// Payloads wait in `payloads`, by index, so that an entry is plain bytes: the heap moves
    /// entries up and down log n levels per event, and an entry holding a payload with a
    /// reference (a response, a failure) paid a retain and a release per move (a seventh of a
    /// virtual run's time went to that). A payload now moves twice: in and out.
    private var payloads: [Payload?] = []
    private var freePayloadIndices: [UInt32] = []

    /// 16 bytes: the sequence (high 36 bits) and the payload's index (low 28) share a word.
    /// Sequences are unique, so comparing the word compares sequences. A run has at most 10^8
    /// visitors with an event or two pending each (2^28 is 268 million) and makes some 40
    /// events per visitor (2^36 is 68 billion); `schedule` stops the run beyond either.
    private struct Entry: Comparable {
        var time: RunInstant
        var order: UInt64

        static var indexBits: UInt64 { 28 }
        static var mostPayloads: Int { 1 << indexBits }
        static var mostSequences: UInt64 { 1 << (64 - indexBits) }

        init(time: RunInstant, sequence: UInt64, payloadIndex: UInt32) {
            self.time = time
            order = sequence << Self.indexBits | UInt64(payloadIndex)
        }

        var payloadIndex: UInt32 { UInt32(truncatingIfNeeded: order & (1 << Self.indexBits - 1)) }

        static func < (lhs: Entry, rhs: Entry) -> Bool {
            lhs.time < rhs.time || (lhs.time == rhs.time && lhs.order < rhs.order)
        }
        static func == (lhs: Entry, rhs: Entry) -> Bool { lhs.time == rhs.time && lhs.order == rhs.order }
    }

    package init(reservingCapacity capacity: Int = 0) {
        heap.reserveCapacity(capacity)
        payloads.reserveCapacity(capacity)
        buckets = Array(repeating: [], count: Self.bucketCount)
    }

    package var isEmpty: Bool { heap.isEmpty }
    package var pendingCount: Int { heap.count + bucketedCount + farHeap.count }
    /// When the next event fires, if any. (When the heap is empty, so is everything else.)
    package var nextTime: RunInstant? { heap.min?.time }

    /// Schedules `payload` at `time` (never before `now`: the past is clamped to the present).
    package mutating func schedule(_ payload: Payload, at time: RunInstant) {
        let payloadIndex: UInt32
        if let free = freePayloadIndices.popLast() {
            payloadIndex = free
            payloads[Int(free)] = payload
        } else {
            precondition(payloads.count < Entry.mostPayloads, "more than 2^28 events pending at once")
            payloadIndex = UInt32(payloads.count)
            payloads.append(payload)
        }
        precondition(nextSequence < Entry.mostSequences, "more than 2^36 events in one run")
        let entry = Entry(time: max(time, now), sequence: nextSequence, payloadIndex: payloadIndex)
        nextSequence &+= 1
        let slot = Self.slot(of: entry.time)
        if heap.isEmpty {
            // Nothing is pending anywhere (the heap only runs dry when all else has too), so
            // the horizon can move up to this event's slot.
            nextSlot = max(nextSlot, slot &+ 1)
        }
        if slot < nextSlot {
            heap.insert(entry)
        } else if slot - nextSlot < Int64(Self.bucketCount) {
            buckets[Int(slot & Self.bucketMask)].append(entry)
            bucketedCount += 1
        } else {
            farHeap.insert(entry)
        }
    }

    /// Takes the next event and advances `now` to its time.
    package mutating func step() -> (time: RunInstant, payload: Payload)? {
        guard let first = heap.popMin() else { return nil }
        if heap.isEmpty { pourNextSlot() }
        now = first.time
        var payload: Payload? = nil
        swap(&payload, &payloads[Int(first.payloadIndex)])
        freePayloadIndices.append(first.payloadIndex)
        return (first.time, payload!)
    }

    /// Advances the clock without an event (to the end of a run, say); never backwards.
    package mutating func advance(to time: RunInstant) {
        now = max(now, time)
    }

    private static func slot(of time: RunInstant) -> Int64 {
        time.wholeNanoseconds >> slotShift
    }

    /// With the heap empty: makes the next non-empty slot the heap, if any event is pending.
    private mutating func pourNextSlot() {
        var slot = Int64.max
        if bucketedCount > 0 {
            slot = nextSlot
            while buckets[Int(slot & Self.bucketMask)].isEmpty { slot += 1 }
        }
        if let far = farHeap.min { slot = min(slot, Self.slot(of: far.time)) }
        guard slot != Int64.max else { return }
        nextSlot = slot + 1
        let poured = buckets[Int(slot & Self.bucketMask)]
        // The bucket gets a fresh array: buffers left behind in the ring would add up.
        buckets[Int(slot & Self.bucketMask)] = []
        bucketedCount -= poured.count
        heap = QuaternaryHeap(poured)
        while let far = farHeap.min, Self.slot(of: far.time) < nextSlot {
            heap.insert(farHeap.popMin()!)
        }
    }
}

/// A min-heap with four children per node. The calendar's heap moves 16-byte entries, so a
/// node's four children share a 64-byte cache line, and the tree is half as deep as a binary
/// one: a pop reads about half as many lines. swift-collections' `Heap` (a min-max heap, which
/// pays for a maximum the loop never asks for) took 2.9 % of a sweep point. Which of two equal
/// elements comes first is not defined, but the loop's entries are never equal (their
/// sequences differ), so the order is total and the same as any other heap's.
struct QuaternaryHeap<Element: Comparable> {
    private var elements: [Element] = []

    init() {}

    /// Heapifies `elements` in place (Floyd's method, bottom up).
    init(_ elements: [Element]) {
        self.elements = elements
        guard elements.count > 1 else { return }
        var parent = (elements.count - 2) / 4
        while parent >= 0 {
            siftDown(from: parent)
            parent -= 1
        }
    }

    var isEmpty: Bool { elements.isEmpty }
    var count: Int { elements.count }
    var min: Element? { elements.first }

    mutating func reserveCapacity(_ capacity: Int) {
        elements.reserveCapacity(capacity)
    }

    mutating func insert(_ element: Element) {
        elements.append(element)
        var child = elements.count - 1
        elements.withUnsafeMutableBufferPointer { heap in
            while child > 0 {
                let parent = (child - 1) / 4
                guard element < heap[parent] else { break }
                heap[child] = heap[parent]
                child = parent
            }
            heap[child] = element
        }
    }

    mutating func popMin() -> Element? {
        guard let last = elements.popLast() else { return nil }
        guard !elements.isEmpty else { return last }
        let first = elements[0]
        elements[0] = last
        siftDown(from: 0)
        return first
    }

    /// Moves the element at `start` down to where it is no greater than its children.
    private mutating func siftDown(from start: Int) {
        elements.withUnsafeMutableBufferPointer { heap in
            let count = heap.count
            let element = heap[start]
            var hole = start
            while true {
                let firstChild = 4 * hole + 1
                guard firstChild < count else { break }
                var smallest = firstChild
                let lastChild = Swift.min(firstChild + 4, count)
                var child = firstChild + 1
                while child < lastChild {
                    if heap[child] < heap[smallest] { smallest = child }
                    child += 1
                }
                guard heap[smallest] < element else { break }
                heap[hole] = heap[smallest]
                hole = smallest
            }
            heap[hole] = element
        }
    }
}
