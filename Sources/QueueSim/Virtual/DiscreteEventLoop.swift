import QueueClientCore

/// A discrete-event loop in the spirit of SimPy's `Environment`: `now`, `schedule`, `step`,
/// `run(until:)`. Events fire in `(time, sequence)` order, so two events at the same instant
/// fire in the order they were scheduled — the rule that makes virtual runs deterministic.
///
/// Payloads are small values (a visitor index and what happened); no task or closure per event.
///
/// Storage is a calendar in front of a binary heap. A launch keeps one wake-up per waiting
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
public struct DiscreteEventLoop<Payload> {
    public private(set) var now: Instant = .origin
    private var heap: [Entry] = []
    /// `buckets[slot & bucketMask]` holds the events of slot `slot` for slots in
    /// `nextSlot ..< nextSlot + bucketCount`; later slots wait in `farHeap`.
    private var buckets: [[Entry]]
    private var bucketedCount = 0
    /// Events beyond the buckets' window (hours ahead), in a heap of their own.
    private var farHeap: [Entry] = []
    /// The first slot not yet poured into the heap; its start is the horizon.
    private var nextSlot: Int64 = 0
    private var nextSequence: UInt64 = 0

    /// A slot is 2^60 attoseconds (about 1.15 s): the high bits of the time, no division.
    private static var slotShift: Int { 60 }
    private static var bucketCount: Int { 1 << 13 }
    private static var bucketMask: Int64 { Int64(bucketCount - 1) }

    private struct Entry {
        var time: Instant
        var sequence: UInt64
        var payload: Payload

        func precedes(_ other: Entry) -> Bool {
            time < other.time || (time == other.time && sequence < other.sequence)
        }
    }

    public init(reservingCapacity capacity: Int = 0) {
        heap.reserveCapacity(capacity)
        buckets = Array(repeating: [], count: Self.bucketCount)
    }

    public var isEmpty: Bool { heap.isEmpty }
    public var pendingCount: Int { heap.count + bucketedCount + farHeap.count }
    /// When the next event fires, if any. (When the heap is empty, so is everything else.)
    public var nextTime: Instant? { heap.first?.time }

    /// Schedules `payload` at `time` (never before `now`: the past is clamped to the present).
    public mutating func schedule(_ payload: Payload, at time: Instant) {
        let entry = Entry(time: max(time, now), sequence: nextSequence, payload: payload)
        nextSequence &+= 1
        let slot = Self.slot(of: entry.time)
        if heap.isEmpty {
            // Nothing is pending anywhere (the heap only runs dry when all else has too), so
            // the horizon can move up to this event's slot.
            nextSlot = max(nextSlot, slot &+ 1)
        }
        if slot < nextSlot {
            Self.push(entry, onto: &heap)
        } else if slot - nextSlot < Int64(Self.bucketCount) {
            buckets[Int(slot & Self.bucketMask)].append(entry)
            bucketedCount += 1
        } else {
            Self.push(entry, onto: &farHeap)
        }
    }

    /// Takes the next event and advances `now` to its time.
    public mutating func step() -> (time: Instant, payload: Payload)? {
        guard let first = Self.popFirst(of: &heap) else { return nil }
        if heap.isEmpty { pourNextSlot() }
        now = first.time
        return (first.time, first.payload)
    }

    /// Advances the clock without an event (to the end of a run, say); never backwards.
    public mutating func advance(to time: Instant) {
        now = max(now, time)
    }

    private static func slot(of time: Instant) -> Int64 {
        Int64(truncatingIfNeeded: time.sinceOrigin.attoseconds >> slotShift)
    }

    /// With the heap empty: makes the next non-empty slot the heap, if any event is pending.
    private mutating func pourNextSlot() {
        var slot = Int64.max
        if bucketedCount > 0 {
            slot = nextSlot
            while buckets[Int(slot & Self.bucketMask)].isEmpty { slot += 1 }
        }
        if let far = farHeap.first { slot = min(slot, Self.slot(of: far.time)) }
        guard slot != Int64.max else { return }
        nextSlot = slot + 1
        swap(&heap, &buckets[Int(slot & Self.bucketMask)])
        // The bucket gets a fresh array, not the heap's old buffer: buffers left behind in
        // the ring would add up to hundreds of megabytes over a long run.
        buckets[Int(slot & Self.bucketMask)] = []
        bucketedCount -= heap.count
        // Scheduled in sequence order but not in time order: make it a heap in place, O(n).
        for index in stride(from: heap.count / 2 - 1, through: 0, by: -1) { Self.siftDown(index, in: &heap) }
        while let far = farHeap.first, Self.slot(of: far.time) < nextSlot {
            Self.push(Self.popFirst(of: &farHeap)!, onto: &heap)
        }
    }

    private static func push(_ entry: Entry, onto heap: inout [Entry]) {
        heap.append(entry)
        siftUp(heap.count - 1, in: &heap)
    }

    private static func popFirst(of heap: inout [Entry]) -> Entry? {
        guard let first = heap.first else { return nil }
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            siftDown(0, in: &heap)
        }
        return first
    }

    private static func siftUp(_ start: Int, in heap: inout [Entry]) {
        var child = start
        let entry = heap[child]
        while child > 0 {
            let parent = (child - 1) / 2
            guard entry.precedes(heap[parent]) else { break }
            heap[child] = heap[parent]
            child = parent
        }
        heap[child] = entry
    }

    private static func siftDown(_ start: Int, in heap: inout [Entry]) {
        var parent = start
        let entry = heap[parent]
        let count = heap.count
        while true {
            var child = 2 * parent + 1
            guard child < count else { break }
            if child + 1 < count, heap[child + 1].precedes(heap[child]) { child += 1 }
            guard heap[child].precedes(entry) else { break }
            heap[parent] = heap[child]
            parent = child
        }
        heap[parent] = entry
    }
}
