import QueueClientCore

/// A run's per-minute series under Queue-it's statistics names, so a rehearsal can be laid over
/// the minutes of the real event (`queuesim compare --real`). Minute 0 is the run's seconds
/// 0–59. Everything comes from the visitors' rows (arrival, enqueue, wait, end, outcome), so it
/// is the same on both clocks, for a merged or a recovered folder, and byte for byte the same
/// for the same seed.
///
/// How each series is counted (docs/reports.md, "The run's minutes"):
/// - `queueinflow`: visitors the room took in (a queue id or a pass), at the instant the enqueue
///   was decided.
/// - `safetynetoutflow`: visitors passed without waiting, at that instant.
/// - `queueoutflow`: visitors redirected from the queue page, at the redirect.
/// - `queueidsinqueue`: queue numbers in line at the minute's end. A visitor who left (abandoned,
///   closed, restarted) keeps their number in line until it is reached — the room serves in
///   order and a left visitor's turn is wasted, as Queue-it counts — that is, until the first
///   visitor behind them is redirected.
/// - `oldqueuenumbers`: those left visitors' numbers, in the minute they were reached
///   (Queue-it's "unused queue numbers").
/// - `queueactualwaittime`: the mean wait, in minutes, of the visitors redirected from the
///   queue that minute.
/// - `queueexpectedwaittime`: the mean wait, in minutes, that the visitors who entered the
///   queue that minute and were redirected got (what a perfect prediction would have said).
package struct RunMinutes: Sendable, Equatable {
    package static let seriesNames = [
        "queueinflow", "queueoutflow", "safetynetoutflow", "queueidsinqueue", "oldqueuenumbers",
        "queueexpectedwaittime", "queueactualwaittime",
    ]

    /// The series that are means (minutes of wait) rather than counts: a minute without a
    /// visitor to average has no value.
    package static let waitSeries: Set<String> = ["queueexpectedwaittime", "queueactualwaittime"]

    /// How many minutes the run spans.
    package var count: Int
    /// Each series, `count` values; nil where a wait series had nobody to average.
    package var series: [String: [Double?]]

    /// One visitor, as far as the series need it (milliseconds since the run's second 0).
    struct Visitor {
        var index: Int
        var decided: Int64?
        var entered: Int64?
        var ended: Int64
        var passed: Bool
        /// Left the line before their turn (their number stays in line until reached).
        var left: Bool

        init(_ record: VisitorRecord) {
            index = record.index
            decided = record.enqueueDecided.map(Self.milliseconds)
            entered = record.queueEntered.map(Self.milliseconds)
            ended = Self.milliseconds(record.ended)
            passed = record.outcome == .passed
            left = [.abandoned, .closed, .restarted].contains(record.outcome) && record.queueEntered != nil
        }

        static func milliseconds(_ instant: RunInstant) -> Int64 { instant.wholeNanoseconds / 1_000_000 }
    }

    /// From the visitors' records (a virtual run's in memory, or a folder's decoded rows).
    /// `end` is the run's end (the last minute counted); nil takes the last visitor's end.
    package init(records: [VisitorRecord], end: Duration? = nil) {
        self.init(visitors: records.map(Visitor.init), end: end)
    }

    init(visitors: [Visitor], end: Duration?) {
        let endMilliseconds =
            end.map { Int64($0.components.seconds) * 1000 + $0.components.attoseconds / 1_000_000_000_000_000 }
            ?? visitors.map(\.ended).max() ?? 0
        // A run of exactly ten minutes has ten; an instant at its very end counts in the last.
        count = max(1, Int((endMilliseconds + 59_999) / 60_000))
        var counts = MinuteCounts(count: count)
        let reached = Self.reachInstants(visitors)
        for visitor in visitors { counts.add(visitor, reachedAt: reached[visitor.index]) }
        series = counts.series()
    }

    /// When each left visitor's number was reached: the first redirect, from the queue, of a
    /// visitor who entered the line after them (in order of entry, then of visitor number).
    /// Never reached (nil) when nobody behind them was redirected.
    static func reachInstants(_ visitors: [Visitor]) -> [Int: Int64] {
        let inLine = visitors.filter { $0.entered != nil }.sorted {
            ($0.entered!, $0.index) < ($1.entered!, $1.index)
        }
        var reached: [Int: Int64] = [:]
        var firstRedirectBehind: Int64?
        for visitor in inLine.reversed() {
            if visitor.left, let instant = firstRedirectBehind { reached[visitor.index] = instant }
            if visitor.passed { firstRedirectBehind = min(firstRedirectBehind ?? visitor.ended, visitor.ended) }
        }
        return reached
    }
}

/// The sums the series are made of, a minute at a time.
private struct MinuteCounts {
    var count: Int
    var inflow: [Double]
    var safetyNet: [Double]
    var outflow: [Double]
    var unused: [Double]
    /// +1 where a number enters the line, -1 where it leaves; summed, the numbers in line.
    var lineChanges: [Double]
    var waitByRedirect: [Double]
    var waitByEntry: [Double]
    var redirectsByEntry: [Double]

    init(count: Int) {
        self.count = count
        inflow = Array(repeating: 0, count: count)
        (safetyNet, outflow, unused, lineChanges) = (inflow, inflow, inflow, inflow)
        (waitByRedirect, waitByEntry, redirectsByEntry) = (inflow, inflow, inflow)
    }

    func minute(_ milliseconds: Int64) -> Int? {
        guard milliseconds >= 0 else { return nil }
        return min(Int(milliseconds / 60_000), count - 1)
    }

    /// The first minute whose end (an instant at or after `milliseconds`) shows a change made
    /// at that instant: a number is in line at instant t when it entered at or before t and
    /// left after t.
    func snapshot(_ milliseconds: Int64) -> Int? {
        let minute = max(0, Int((milliseconds + 59_999) / 60_000) - 1)
        return minute < count ? minute : nil
    }

    mutating func add(_ visitor: RunMinutes.Visitor, reachedAt reached: Int64?) {
        if let decided = visitor.decided, visitor.passed || visitor.entered != nil, let minute = minute(decided) {
            inflow[minute] += 1
            if visitor.entered == nil { safetyNet[minute] += 1 }
        }
        guard let entered = visitor.entered else { return }
        if let minute = snapshot(entered) { lineChanges[minute] += 1 }
        let leftLine: Int64? = visitor.passed ? visitor.ended : visitor.left ? reached : nil
        if let leftLine, let minute = snapshot(leftLine) { lineChanges[minute] -= 1 }
        if visitor.left, let reached, let minute = minute(reached) { unused[minute] += 1 }
        guard visitor.passed else { return }
        let wait = Double(visitor.ended - entered) / 60_000
        if let minute = minute(visitor.ended) {
            outflow[minute] += 1
            waitByRedirect[minute] += wait
        }
        if let minute = minute(entered) {
            waitByEntry[minute] += wait
            redirectsByEntry[minute] += 1
        }
    }

    func series() -> [String: [Double?]] {
        var inLine: [Double?] = []
        var running = 0.0
        for change in lineChanges {
            running += change
            inLine.append(running)
        }
        func mean(_ sums: [Double], _ counts: [Double]) -> [Double?] {
            zip(sums, counts).map { $1 > 0 ? $0 / $1 : nil }
        }
        return [
            "queueinflow": inflow, "queueoutflow": outflow, "safetynetoutflow": safetyNet,
            "queueidsinqueue": inLine, "oldqueuenumbers": unused,
            "queueexpectedwaittime": mean(waitByEntry, redirectsByEntry),
            "queueactualwaittime": mean(waitByRedirect, outflow),
        ]
    }
}
