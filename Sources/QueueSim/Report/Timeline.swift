import Foundation
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
    /// TCP connections the wall clock opened per second; nil when no clock counted them (the
    /// virtual clock opens none, a recovered run lost the count): the column is then empty.
    private var connections: PerSecondCounts?
    /// Answers per second by endpoint, OK and KO (`RequestStatistics.perSecond`'s order); nil
    /// when not counted (a recovered run, a merge of older shards): the columns are then empty.
    private var answers: [PerSecondCounts]?
    /// +1 at the first second a visitor is counted in the queue, −1 after its last one.
    private var inQueueChanges = PerSecondCounts()
    private var endedByOutcome = Array(
        repeating: PerSecondCounts(), count: VisitorOutcome.allCases.count)
    /// `second << 32 | enqueue_ms` per enqueue decision; sorted once at the end, it gives each
    /// second's exact p95 in 8 bytes per decision instead of a histogram per second.
    private var enqueueDecisions: [UInt64] = []

    /// `passedWaits`: `second << 32 | wait_ms` of each visitor that passed after waiting in the
    /// queue page, by the second it passed.
    private var passedWaits: [UInt64] = []
    /// After-pass calls per second (`afterPass`), all zero when no group has one; nil when no
    /// runner counted them (a recovered run, a merge): the column is then empty, not 0.
    private var afterPassRequests: PerSecondCounts?

    static let columns = [
        "second", "arrivals", "started", "enqueued", "in_queue", "passed", "disabled", "queued",
        "unavailable", "error", "requests", "enqueue_p95_ms",
        // Added after the contract's columns (extend, never rename): the other outcomes, so the
        // outcome columns add up to the visitors that ended; the wait of those who passed; the
        // second's start in UTC on the wall clock (empty in virtual time).
        "closed", "restarted", "interrupted", "passed_wait_p50_ms", "passed_wait_p95_ms", "time_utc",
        // Issue 28: new connections per second on the wall clock (empty in virtual time).
        "connections_opened",
        // Issue 29: answers per second by endpoint and status class (OK: 1xx–3xx; KO: 4xx, 5xx
        // or no answer), the page's "answers by endpoint" chart.
        "enqueue_ok", "enqueue_ko", "queue_page_ok", "queue_page_ko", "protected_api_ok", "protected_api_ko",
        // Issue 30: visitors who gave up on the queue page, and the after-pass calls the shop
        // behind the queue received that second (`afterPass`).
        "abandoned", "after_pass_requests",
    ]
    static let answerColumns = Array(
        columns[columns.firstIndex(of: "enqueue_ok")!...columns.firstIndex(of: "protected_api_ko")!])
    static let outcomeColumns: [VisitorOutcome] = [.passed, .disabled, .queued, .unavailable, .error]
    static let laterOutcomeColumns: [VisitorOutcome] = [.closed, .restarted, .interrupted]

    mutating func add(_ record: VisitorRecord) {
        arrivals.add(at: Self.second(of: record.arrival))
        started.add(at: Self.second(of: record.start))
        if let decided = record.enqueueDecided, let enqueueMs = record.enqueueMilliseconds {
            let second = Self.second(of: decided)
            enqueued.add(at: second)
            enqueueDecisions.append(UInt64(second) << 32 | UInt64(min(enqueueMs, Int64(UInt32.max))))
        }
        endedByOutcome[record.outcome.ordinal].add(at: Self.second(of: record.ended))
        if record.outcome == .passed, record.queueEntered != nil {
            passedWaits.append(
                UInt64(Self.second(of: record.ended)) << 32 | UInt64(min(record.waitMilliseconds, Int64(UInt32.max))))
        }
        if let entered = record.queueEntered { countInQueue(from: entered, to: record.ended) }
        for stay in record.earlierStays { countInQueue(from: stay.entered, to: stay.left) }
    }

    private mutating func countInQueue(from entered: RunInstant, to left: RunInstant) {
        // In the queue at the end of second s: entered before (s+1) s and left at or after
        // it. That makes s run from floor(entered) to floor(left) − 1.
        let first = Self.second(of: entered)
        let last = Self.second(of: left) - 1
        if first <= last {
            inQueueChanges.add(at: first)
            inQueueChanges.add(at: last + 1, -1)
        }
    }

    mutating func addRequest(at instant: RunInstant) {
        requests.add(at: Self.second(of: instant))
    }

    mutating func addRequests(_ count: Int, inSecond second: Int) {
        requests.add(at: second, count)
    }

    var requestCount: Int { requests.total }

    mutating func addAfterPassRequests(_ counts: PerSecondCounts) {
        var total = afterPassRequests ?? PerSecondCounts()
        for (second, count) in counts.nonZero { total.add(at: second, count) }
        afterPassRequests = total
    }

    /// Whether a runner counted the after-pass calls (not in a recovered or merged report).
    var countsAfterPass: Bool { afterPassRequests != nil }

    /// After-pass calls in all, the most in one second of the run and that second (the first).
    var afterPassFigures: (total: Int, peakPerSecond: Int, peakSecond: Int?) {
        var peak: (second: Int, count: Int)?
        let counts = afterPassRequests ?? PerSecondCounts()
        for entry in counts.nonZero where entry.count > (peak?.count ?? 0) { peak = entry }
        return (counts.total, peak?.count ?? 0, peak?.second)
    }

    /// Counts the connections a wall-clock run opened, per second (all zero is still a count:
    /// a warm shared pool opens nothing during the run).
    mutating func addConnections(_ counts: PerSecondCounts) {
        var total = connections ?? PerSecondCounts()
        for (second, count) in counts.nonZero { total.add(at: second, count) }
        connections = total
    }

    /// New connections per second as counted so far (nil when no clock counted them).
    var connectionCounts: PerSecondCounts? { connections }

    /// Adds answers per second, in `RequestStatistics.perSecond`'s order (six counters).
    mutating func addAnswers(_ counts: [PerSecondCounts]) {
        var total = answers ?? Array(repeating: PerSecondCounts(), count: Self.answerColumns.count)
        for (index, column) in counts.enumerated() where index < total.count {
            for (second, count) in column.nonZero { total[index].add(at: second, count) }
        }
        answers = total
    }

    /// `[second, requests]` for each second that sent a request (shard reports).
    var requestsPerSecond: [[Int]] { requests.nonZero.map { [$0.second, $0.count] } }
    /// The after-pass calls as `[second, calls]` pairs; nil when the run counted none.
    var afterPassRequestsPerSecond: [[Int]]? { afterPassRequests.map { $0.nonZero.map { [$0.second, $0.count] } } }

    /// Writes the whole file, header included, for a run that ended at `end`, in blocks: a
    /// run that idles for months has millions of rows, and neither they nor a per-second
    /// array of them are ever in memory at once.
    /// `wallStart`: the wall-clock instant of second 0 on a wall run (fills `time_utc`); nil in
    /// virtual time.
    func write(end: RunInstant, wallStart: Date? = nil, to sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        let layout = RowLayout(end: end, lastEventSecond: lastEventSecond)
        var percentiles = EnqueueP95Walker(decisions: enqueueDecisions.sorted(), layout: layout, percents: [95])
        var passedWaitPercentiles = EnqueueP95Walker(
            decisions: passedWaits.sorted(), layout: layout, percents: [50, 95])
        let clock = wallStart.map { UTCSecondClock(start: $0) }
        var row = CSVRowBuilder(reservingCapacity: Self.blockBytes + 256)
        let header = Self.columns.joined(separator: ",") + "\n"
        try Array(header.utf8).withUnsafeBytes(sink)
        var inQueue = 0
        for second in 0..<layout.rowCount {
            inQueue += inQueueChanges[second]
            row.integer(second)
            row.integer(layout.value(arrivals, second))
            row.integer(layout.value(started, second))
            row.integer(layout.value(enqueued, second))
            row.integer(inQueue)
            for index in Self.outcomeIndices {
                row.integer(layout.value(endedByOutcome[index], second))
            }
            row.integer(layout.value(requests, second))
            row.optionalInteger(percentiles.values(ofRow: second)?[0])
            for index in Self.laterOutcomeIndices {
                row.integer(layout.value(endedByOutcome[index], second))
            }
            let waits = passedWaitPercentiles.values(ofRow: second)
            row.optionalInteger(waits?[0])
            row.optionalInteger(waits?[1])
            if let clock { row.text(clock.text(forSecond: second)) } else { row.empty() }
            if let connections { row.integer(layout.value(connections, second)) } else { row.empty() }
            for index in 0..<Self.answerColumns.count {
                if let answers { row.integer(layout.value(answers[index], second)) } else { row.empty() }
            }
            row.integer(layout.value(endedByOutcome[Self.abandonedIndex], second))
            if let afterPassRequests { row.integer(layout.value(afterPassRequests, second)) } else { row.empty() }
            row.endRow()
            if row.bytes.count >= Self.blockBytes {
                try row.bytes.withUnsafeBytes(sink)
                row.clear()
            }
        }
        try row.bytes.withUnsafeBytes(sink)
    }

    /// The largest `in_queue` of the file: the most visitors in the queue at the end of a second.
    func queueLengthPeak(end: RunInstant) -> Int {
        let layout = RowLayout(end: end, lastEventSecond: lastEventSecond)
        var inQueue = 0
        var peak = 0
        for second in 0..<layout.rowCount {
            inQueue += inQueueChanges[second]
            peak = max(peak, inQueue)
        }
        return peak
    }

    /// The whole file as text (tests, and small runs).
    func render(end: RunInstant) -> String {
        var bytes: [UInt8] = []
        try! write(end: end) { bytes.append(contentsOf: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The run in at most `maxPoints` buckets of whole seconds, for the report's charts:
    /// rates are per second (averaged over the bucket), the queue is its largest value in the
    /// bucket, enqueue percentiles are over the decisions made in the bucket.
    func series(end: RunInstant, maxPoints: Int = 600) -> TimelineSeries {
        let layout = RowLayout(end: end, lastEventSecond: lastEventSecond)
        let bucketSeconds = max(1, (layout.rowCount + maxPoints - 1) / maxPoints)
        let buckets = (layout.rowCount + bucketSeconds - 1) / bucketSeconds
        var series = TimelineSeries(bucketSeconds: bucketSeconds, rowCount: layout.rowCount, buckets: buckets)
        let errorColumns = [VisitorOutcome.error, .unavailable].map { VisitorOutcome.allCases.firstIndex(of: $0)! }
        let passedColumn = VisitorOutcome.allCases.firstIndex(of: .passed)!
        var inQueue = 0
        for second in 0..<layout.rowCount {
            let bucket = second / bucketSeconds
            inQueue += inQueueChanges[second]
            series.arrivals[bucket] += Double(layout.value(arrivals, second))
            series.passed[bucket] += Double(layout.value(endedByOutcome[passedColumn], second))
            for column in errorColumns { series.errors[bucket] += Double(layout.value(endedByOutcome[column], second)) }
            series.requests[bucket] += Double(layout.value(requests, second))
            if let afterPassRequests { series.afterPass[bucket] += Double(layout.value(afterPassRequests, second)) }
            series.abandoned[bucket] += Double(layout.value(endedByOutcome[Self.abandonedIndex], second))
            series.inQueue[bucket] = max(series.inQueue[bucket], inQueue)
            if let connections { series.connections[bucket] += Double(layout.value(connections, second)) }
            if let answers {
                for index in answers.indices {
                    series.answers[index][bucket] += Double(layout.value(answers[index], second))
                }
            }
        }
        for bucket in 0..<buckets {
            let width = Double(min(bucketSeconds, layout.rowCount - bucket * bucketSeconds))
            series.arrivals[bucket] /= width
            series.passed[bucket] /= width
            series.errors[bucket] /= width
            series.requests[bucket] /= width
            series.afterPass[bucket] /= width
            series.abandoned[bucket] /= width
            series.connections[bucket] /= width
            for index in series.answers.indices { series.answers[index][bucket] /= width }
        }
        series.countsConnections = connections != nil
        series.countsAnswers = answers != nil
        let folded = enqueueDecisions.map { key -> UInt64 in
            UInt64(layout.row(forSecond: Int(key >> 32))) << 32 | key & 0xFFFF_FFFF
        }
        series.enqueue = BucketPercentiles.of(folded, bucketSeconds: bucketSeconds, percents: [50, 95, 99])
        return series
    }

    private static let blockBytes = 64 * 1024
    private static let outcomeIndices = outcomeColumns.map { VisitorOutcome.allCases.firstIndex(of: $0)! }
    private static let laterOutcomeIndices = laterOutcomeColumns.map { VisitorOutcome.allCases.firstIndex(of: $0)! }
    private static let abandonedIndex = VisitorOutcome.allCases.firstIndex(of: .abandoned)!

    private var lastEventSecond: Int {
        ([arrivals, started, enqueued, requests] + endedByOutcome).map { $0.count - 1 }.max() ?? -1
    }

    /// Nearest-rank percentiles (the value at rank ⌈p·n⌉) of each row's values, walking the
    /// sorted `second << 32 | ms` keys once, row by row.
    private struct EnqueueP95Walker {
        let decisions: [UInt64]
        let layout: RowLayout
        let percents: [Int]
        var next = 0

        init(decisions: [UInt64], layout: RowLayout, percents: [Int]) {
            self.decisions = decisions
            self.layout = layout
            self.percents = percents
        }

        mutating func values(ofRow row: Int) -> [UInt64]? {
            var values: [UInt64] = []
            while next < decisions.count, layout.row(forSecond: Int(decisions[next] >> 32)) == row {
                values.append(decisions[next] & 0xFFFF_FFFF)
                next += 1
            }
            guard !values.isEmpty else { return nil }
            // Folding the end instant into the last row can append values out of order.
            values.sort()
            return percents.map { values[(($0 * values.count + 99) / 100) - 1] }
        }
    }

    /// `2026-11-23T21:40:05Z` for each second of a wall run, from its start.
    private struct UTCSecondClock {
        let start: Date
        let formatter: ISO8601DateFormatter

        init(start: Date) {
            self.start = start
            formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime]
            formatter.timeZone = TimeZone(identifier: "UTC")
        }

        func text(forSecond second: Int) -> String {
            formatter.string(from: start.addingTimeInterval(Double(second)))
        }
    }

    static func second(of instant: RunInstant) -> Int {
        instant.secondOfRun
    }

    /// How many rows the file has and which row an event's second lands in.
    private struct RowLayout {
        let rowCount: Int
        /// The second that holds events at exactly a whole-second end instant; folded into the
        /// row before it.
        let foldedSecond: Int?

        init(end: RunInstant, lastEventSecond: Int) {
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

/// The timeline in buckets, for charts (`Timeline.series`).
struct TimelineSeries {
    var bucketSeconds: Int
    var rowCount: Int
    var arrivals: [Double]
    var passed: [Double]
    var errors: [Double]
    var requests: [Double]
    /// After-pass calls and visitors who gave up, per second (`afterPass`, `patience`).
    var afterPass: [Double]
    var abandoned: [Double]
    var inQueue: [Int]
    var enqueue: [(bucket: Int, values: [UInt64])] = []
    /// New connections per second (wall clock); `countsConnections` false when not counted.
    var connections: [Double]
    var countsConnections = false
    /// Answers per second by endpoint and status class (`Timeline.answerColumns` order).
    var answers: [[Double]]
    var countsAnswers = false

    init(bucketSeconds: Int, rowCount: Int, buckets: Int) {
        self.bucketSeconds = bucketSeconds
        self.rowCount = rowCount
        arrivals = Array(repeating: 0, count: buckets)
        passed = arrivals
        errors = arrivals
        requests = arrivals
        afterPass = arrivals
        abandoned = arrivals
        connections = arrivals
        answers = Array(repeating: arrivals, count: Timeline.answerColumns.count)
        inQueue = Array(repeating: 0, count: buckets)
    }
}
