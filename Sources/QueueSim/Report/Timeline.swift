import QueueClientCore

/// Per-second counters for `timeline.csv`, filled as visitors finish and requests go out.
///
/// Plain arrays indexed by second (no dictionaries, so no hash order can leak into the file).
/// Second `s` covers `[s, s+1)` seconds since the run's origin; an event at exactly the run's
/// end instant counts in the last second, so a run of 10 s has rows 0…9 even though the
/// visitors still queued at the hard stop end at 10.000 s.
struct Timeline {
    private var arrivals = PerSecondCounts()
    private var started = PerSecondCounts()
    private var enqueued = PerSecondCounts()
    private var requests = PerSecondCounts()
    /// +1 at the first second a visitor is counted in the queue, −1 after its last one.
    private var inQueueChanges = PerSecondCounts()
    private var endedByOutcome = Array(
        repeating: PerSecondCounts(), count: VisitorOutcome.allCases.count)
    /// `second << 32 | enqueue_ms` per enqueue decision; sorted once at the end, it gives each
    /// second's exact p95 in 8 bytes per decision instead of a histogram per second.
    private var enqueueDecisions: [UInt64] = []

    static let columns = [
        "second", "arrivals", "started", "enqueued", "in_queue", "passed", "disabled", "queued",
        "unavailable", "error", "requests", "enqueue_p95_ms",
    ]
    static let outcomeColumns: [VisitorOutcome] = [.passed, .disabled, .queued, .unavailable, .error]

    mutating func add(_ record: VisitorRecord) {
        arrivals.add(at: Self.second(of: record.arrival))
        started.add(at: Self.second(of: record.start))
        if let decided = record.enqueueDecided, let enqueueMs = record.enqueueMilliseconds {
            let second = Self.second(of: decided)
            enqueued.add(at: second)
            enqueueDecisions.append(UInt64(second) << 32 | UInt64(min(enqueueMs, Int64(UInt32.max))))
        }
        let outcome = VisitorOutcome.allCases.firstIndex(of: record.outcome)!
        endedByOutcome[outcome].add(at: Self.second(of: record.ended))
        if let entered = record.queueEntered {
            // In the queue at the end of second s: entered before (s+1) s and left at or after
            // it. That makes s run from floor(entered) to floor(left) − 1.
            let first = Self.second(of: entered)
            let last = Self.second(of: record.ended) - 1
            if first <= last {
                inQueueChanges.add(at: first)
                inQueueChanges.add(at: last + 1, -1)
            }
        }
    }

    mutating func addRequest(at instant: Instant) {
        requests.add(at: Self.second(of: instant))
    }

    mutating func addRequests(_ count: Int, inSecond second: Int) {
        requests.add(at: second, count)
    }

    var requestCount: Int { requests.total }

    /// The whole file, header included, for a run that ended at `end`.
    func render(end: Instant) -> String {
        let layout = RowLayout(end: end, lastEventSecond: lastEventSecond)
        let percentiles = enqueueP95BySecond(layout)
        var row = CSVRowBuilder(reservingCapacity: 128 * (layout.rowCount + 1))
        var inQueue = 0
        for second in 0..<layout.rowCount {
            inQueue += inQueueChanges[second]
            row.integer(second)
            row.integer(layout.value(arrivals, second))
            row.integer(layout.value(started, second))
            row.integer(layout.value(enqueued, second))
            row.integer(inQueue)
            for outcome in Self.outcomeColumns {
                let index = VisitorOutcome.allCases.firstIndex(of: outcome)!
                row.integer(layout.value(endedByOutcome[index], second))
            }
            row.integer(layout.value(requests, second))
            row.optionalInteger(percentiles[second])
            row.endRow()
        }
        return Self.columns.joined(separator: ",") + "\n" + String(decoding: row.bytes, as: UTF8.self)
    }

    private var lastEventSecond: Int {
        ([arrivals, started, enqueued, requests] + endedByOutcome).map { $0.count - 1 }.max() ?? -1
    }

    /// Nearest-rank p95 (the value at rank ⌈0.95·n⌉) of each second's enqueue decisions.
    private func enqueueP95BySecond(_ layout: RowLayout) -> [UInt64?] {
        var result = [UInt64?](repeating: nil, count: layout.rowCount)
        var bySecond = [[UInt64]](repeating: [], count: layout.rowCount)
        for key in enqueueDecisions.sorted() {
            bySecond[layout.row(forSecond: Int(key >> 32))].append(key & 0xFFFF_FFFF)
        }
        for (second, values) in bySecond.enumerated() where !values.isEmpty {
            // Folding the end instant into the last row can append values out of order.
            let sorted = values.sorted()
            let rank = (95 * sorted.count + 99) / 100
            result[second] = sorted[rank - 1]
        }
        return result
    }

    static func second(of instant: Instant) -> Int {
        instant.sinceOrigin <= .zero ? 0 : Int(instant.sinceOrigin.components.seconds)
    }

    /// How many rows the file has and which row an event's second lands in.
    private struct RowLayout {
        let rowCount: Int
        /// The second that holds events at exactly a whole-second end instant; folded into the
        /// row before it.
        let foldedSecond: Int?

        init(end: Instant, lastEventSecond: Int) {
            let (seconds, attoseconds) = end.sinceOrigin.components
            let endsOnWholeSecond = attoseconds == 0 && seconds > 0
            let runRows = max(1, Int(seconds) + (attoseconds > 0 ? 1 : 0))
            foldedSecond = endsOnWholeSecond ? Int(seconds) : nil
            // Events after the end should not happen; if they do they get rows, not oblivion.
            let eventRows = lastEventSecond + 1 - (lastEventSecond == foldedSecond ? 1 : 0)
            rowCount = max(runRows, eventRows)
        }

        func row(forSecond second: Int) -> Int {
            second == foldedSecond && second == rowCount ? second - 1 : second
        }

        func value(_ counts: PerSecondCounts, _ second: Int) -> Int {
            var value = counts[second]
            if second == rowCount - 1, let folded = foldedSecond, folded == rowCount {
                value += counts[folded]
            }
            return value
        }
    }
}

/// A count per second that grows as later seconds appear; reads past the end are zero.
struct PerSecondCounts {
    private var counts: [Int] = []
    private(set) var total = 0

    var count: Int { counts.count }

    mutating func add(at second: Int, _ amount: Int = 1) {
        if second >= counts.count {
            counts.append(contentsOf: repeatElement(0, count: second + 1 - counts.count))
        }
        counts[second] += amount
        total += amount
    }

    subscript(second: Int) -> Int {
        second < counts.count ? counts[second] : 0
    }
}
