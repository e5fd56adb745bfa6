import DequeModule
import QueueClientCore

/// A wall-clock engine's request deadlines (`requestTimeout`) in the order they were set.
///
/// With one `requestTimeout` per run that order is their time order, so a queue does what the
/// calendar's heap would, at O(1), and answered requests leave it from the front without
/// waiting for their time: the loop driver's timer is armed for the oldest request still unanswered,
/// not once for every request sent. A deadline earlier than the last one queued is refused
/// (`append` returns false) and goes on the calendar instead.
struct RequestDeadlines {
    struct Deadline {
        var at: RunInstant
        var slot: Int
        var serial: UInt32
    }

    private var queue = Deque<Deadline>()

    /// Queues `deadline`, or returns false when it is earlier than the last one queued.
    mutating func append(_ deadline: Deadline) -> Bool {
        if let last = queue.last, last.at > deadline.at { return false }
        queue.append(deadline)
        return true
    }

    /// The earliest deadline of a request still awaited, after forgetting those in front of it
    /// whose requests were answered (or given up) already.
    mutating func first(awaited: (_ slot: Int, _ serial: UInt32) -> Bool) -> Deadline? {
        while let first = queue.first {
            if awaited(first.slot, first.serial) { return first }
            queue.removeFirst()
        }
        return nil
    }

    /// Removes the deadline `first(awaited:)` returned.
    mutating func removeFirst() {
        queue.removeFirst()
    }
}
