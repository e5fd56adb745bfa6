import DequeModule
import QueueClientCore

/// A wall-clock engine's request deadlines (`requestTimeout`), in a few queues each in the order
/// its deadlines were set.
///
/// A run has a handful of distinct timeouts (the enqueue call's, a page load's), so deadlines
/// set in time order by the same timeout come in time order: each queue takes deadlines no
/// earlier than its last, doing what the calendar's heap would at O(1), and answered requests
/// leave it from the front without waiting for their time. The loop driver's timer is armed
/// for the oldest request still unanswered, not once for every request sent. A deadline
/// earlier than the last of every queue, with all queues in use, is refused (`append` returns
/// false) and goes on the calendar instead.
struct RequestDeadlines {
    struct Deadline {
        var at: RunInstant
        var slot: Int
        var serial: UInt32
    }

    /// More queues than this would make `first` scan more than it saves.
    static let maxQueues = 4
    private var queues: [Deque<Deadline>] = []

    /// Queues `deadline` behind the latest last deadline it is not earlier than (keeping the
    /// other queues for timeouts that end sooner), or returns false when no queue takes it.
    mutating func append(_ deadline: Deadline) -> Bool {
        var fit: (index: Int, last: RunInstant)?
        var empty: Int?
        for index in queues.indices {
            guard let last = queues[index].last?.at else {
                if empty == nil { empty = index }
                continue
            }
            guard last <= deadline.at, fit.map({ $0.last < last }) ?? true else { continue }
            fit = (index, last)
        }
        if let chosen = fit?.index ?? empty {
            queues[chosen].append(deadline)
            return true
        }
        guard queues.count < Self.maxQueues else { return false }
        queues.append([deadline])
        return true
    }

    /// The earliest deadline of a request still awaited, after forgetting those in front of
    /// the queues whose requests were answered (or given up) already.
    mutating func first(awaited: (_ slot: Int, _ serial: UInt32) -> Bool) -> Deadline? {
        var earliest: Deadline?
        for index in queues.indices {
            while let first = queues[index].first {
                if awaited(first.slot, first.serial) {
                    if earliest.map({ first.at < $0.at }) ?? true { earliest = first }
                    break
                }
                queues[index].removeFirst()
            }
        }
        return earliest
    }

    /// Removes the deadline `first(awaited:)` returned.
    mutating func removeFirst() {
        var earliest: Int?
        for index in queues.indices {
            guard let first = queues[index].first else { continue }
            if earliest.map({ first.at < queues[$0].first!.at }) ?? true { earliest = index }
        }
        if let earliest { queues[earliest].removeFirst() }
    }
}
