import QueueClientCore

/// The first moment a visitor entered the queue page and the last moment one left it.
struct QueueSpan: Sendable, Equatable {
    var firstEntry: RunInstant?
    var lastExit: RunInstant?

    mutating func add(_ record: VisitorRecord) {
        guard let entered = record.queueEntered else { return }
        firstEntry = min(firstEntry ?? entered, entered)
        lastExit = max(lastExit ?? record.ended, record.ended)
    }
}

/// A run's queue in two numbers, as `queuesim sweep` reports them.
package struct QueueFigures: Sendable, Equatable {
    /// The most visitors in the queue at the end of a second: the largest `in_queue` of
    /// timeline.csv.
    package var lengthPeak = 0
    /// From the first visitor entering the queue page to the last one leaving it (passing,
    /// giving up, or stopped); nil when nobody entered it.
    package var durationMs: Int64?

    package init(lengthPeak: Int = 0, durationMs: Int64? = nil) {
        self.lengthPeak = lengthPeak
        self.durationMs = durationMs
    }

    init(lengthPeak: Int, span: QueueSpan) {
        self.lengthPeak = lengthPeak
        if let first = span.firstEntry, let last = span.lastExit {
            durationMs = max(0, (last - first).wholeMilliseconds)
        }
    }
}
