import QueueClientCore

/// A discrete-event loop in the spirit of SimPy's `Environment`: `now`, `schedule`, `step`,
/// `run(until:)`. Events fire in `(time, sequence)` order, so two events at the same instant
/// fire in the order they were scheduled — the rule that makes virtual runs deterministic.
///
/// Payloads are small values (a visitor index and what happened); no task or closure per event.
public struct DiscreteEventLoop<Payload> {
    public private(set) var now: Instant = .origin
    private var heap: [Entry] = []
    private var nextSequence: UInt64 = 0

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
    }

    public var isEmpty: Bool { heap.isEmpty }
    public var pendingCount: Int { heap.count }
    /// When the next event fires, if any.
    public var nextTime: Instant? { heap.first?.time }

    /// Schedules `payload` at `time` (never before `now`: the past is clamped to the present).
    public mutating func schedule(_ payload: Payload, at time: Instant) {
        let entry = Entry(time: max(time, now), sequence: nextSequence, payload: payload)
        nextSequence &+= 1
        heap.append(entry)
        siftUp(heap.count - 1)
    }

    /// Takes the next event and advances `now` to its time.
    public mutating func step() -> (time: Instant, payload: Payload)? {
        guard let first = heap.first else { return nil }
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            siftDown(0)
        }
        now = first.time
        return (first.time, first.payload)
    }

    /// Advances the clock without an event (to the end of a run, say); never backwards.
    public mutating func advance(to time: Instant) {
        now = max(now, time)
    }

    private mutating func siftUp(_ start: Int) {
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

    private mutating func siftDown(_ start: Int) {
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
