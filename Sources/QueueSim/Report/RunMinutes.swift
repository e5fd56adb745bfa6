import QueueClientCore

/// A run's per-minute series under Queue-it's statistics names, so a rehearsal can be laid over
/// the minutes of the real event (`queuesim compare --real`). Minute 0 is the run's seconds
/// 0–59. Everything comes from the visitors' rows (arrival, enqueue, wait, end, outcome), so it
/// is the same on both clocks, for a merged or a recovered folder, and byte for byte the same
/// for the same seed. A run writes them as `minutes.csv` (`RunMinutesTally`); compare reads that
/// file, or counts them from an older folder's `visitors.csv`.
///
/// How each series is counted (docs/reports.md, "The run's minutes"):
/// - `queueinflow`: visitors the room took in (a queue id or a pass), at the instant the enqueue
///   was decided.
/// - `safetynetoutflow`: visitors passed without waiting, at that instant.
/// - `queueoutflow`: visitors redirected from the queue page, at the redirect (queue numbers
///   reached and used).
/// - `queueidsinqueue`: queue numbers in line at the minute's end. A visitor who left (abandoned,
///   closed, restarted) keeps their number in line until it is reached — the room serves in
///   order and a left visitor's turn is wasted, as Queue-it counts — that is, until the first
///   visitor behind them is redirected.
/// - `oldqueuenumbers`: those left visitors' numbers, in the minute they were reached
///   (Queue-it's "unused queue numbers": reached and unused).
/// - `queueactualwaittime`: the mean wait, in minutes, of the visitors redirected from the
///   queue that minute.
/// - `queueexpectedwaittime`: the mean wait, in minutes, that the visitors who entered the
///   queue that minute and were redirected got (what a perfect prediction would have said).
///
/// A row records a visitor's last stay: a visitor who came back (`comebacks`) is counted once,
/// by the enqueue, entry and end of that stay.
package struct RunMinutes: Sendable, Equatable {
    /// The file a run writes its minutes to, beside visitors.csv (docs/reports.md).
    package static let file = "minutes.csv"

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

    package init(count: Int, series: [String: [Double?]]) {
        self.count = count
        self.series = series
    }

    /// From the visitors' records (a virtual run's in memory, or a folder's decoded rows).
    /// `end` is the run's end (the last minute counted); nil takes the last visitor's end.
    package init(records: [VisitorRecord], end: Duration? = nil) {
        var tally = RunMinutesTally()
        for record in records { tally.add(record) }
        self = tally.minutes(end: end)
    }
}

/// The run's minutes counted as visitors finish, in any order (the recorder's, for
/// `minutes.csv`). Counts and waits are summed as they come; only the visitors who entered the
/// line and were redirected or left are kept (twenty-odd bytes each), because when a left
/// visitor's number is reached depends on who entered behind them.
package struct RunMinutesTally: Sendable {
    /// Sums by the minute of an instant, from the run's second 0 (instants before it are not counted).
    private var inflow: [Int64] = []
    private var safetyNet: [Int64] = []
    private var outflow: [Int64] = []
    private var unused: [Int64] = []
    /// Milliseconds of wait, summed by redirect minute and by entry minute: integers, so the
    /// order visitors come in does not change a mean's last bit.
    private var waitByRedirect: [Int64] = []
    private var waitByEntry: [Int64] = []
    private var redirectsByEntry: [Int64] = []
    /// +1 where a number enters the line, -1 where it leaves, by snapshot minute (the first
    /// minute whose end shows the change); summed, the numbers in line.
    private var lineChanges: [Int64] = []
    private var inLine: [LineEntry] = []
    private var lastEnd: Int64 = 0

    /// A visitor in line who was redirected (`ended` set) or left before their turn.
    private struct LineEntry: Sendable {
        var entered: Int64
        var ended: Int64
        var index: Int32
        var passed: Bool
    }

    package init() {}

    package mutating func add(_ record: VisitorRecord) {
        let ended = Self.milliseconds(record.ended)
        lastEnd = max(lastEnd, ended)
        let passed = record.outcome == .passed
        let entered = record.queueEntered.map(Self.milliseconds)
        if let decided = record.enqueueDecided.map(Self.milliseconds), passed || entered != nil, decided >= 0 {
            Self.bump(&inflow, Self.minute(decided))
            if entered == nil { Self.bump(&safetyNet, Self.minute(decided)) }
        }
        guard let entered else { return }
        Self.bump(&lineChanges, Self.snapshot(entered))
        let left = [.abandoned, .closed, .restarted].contains(record.outcome)
        if passed || left {
            inLine.append(
                LineEntry(entered: entered, ended: ended, index: Int32(clamping: record.index), passed: passed))
        }
        guard passed else { return }
        Self.bump(&lineChanges, Self.snapshot(ended), by: -1)
        let wait = ended - entered
        if ended >= 0 {
            Self.bump(&outflow, Self.minute(ended))
            Self.bump(&waitByRedirect, Self.minute(ended), by: wait)
        }
        if entered >= 0 {
            Self.bump(&waitByEntry, Self.minute(entered), by: wait)
            Self.bump(&redirectsByEntry, Self.minute(entered))
        }
    }

    /// The series over the run's minutes. `end` is the run's end (the last minute counted);
    /// nil takes the last visitor's end. A run of exactly ten minutes has ten; an instant at
    /// its very end, or after it, counts in the last (a snapshot after it is not shown).
    package func minutes(end: Duration?) -> RunMinutes {
        let endMilliseconds =
            end.map { Int64($0.components.seconds) * 1000 + $0.components.attoseconds / 1_000_000_000_000_000 }
            ?? lastEnd
        let count = max(1, Int((endMilliseconds + 59_999) / 60_000))
        var unused = self.unused
        var lineChanges = self.lineChanges
        for reached in reachInstants() {
            Self.bump(&lineChanges, Self.snapshot(reached), by: -1)
            if reached >= 0 { Self.bump(&unused, Self.minute(reached)) }
        }
        func clamped(_ sums: [Int64]) -> [Int64] {
            var values = Array(sums.prefix(count)) + Array(repeating: 0, count: max(0, count - sums.count))
            values[count - 1] += sums.dropFirst(count).reduce(0, +)
            return values
        }
        var running: Int64 = 0
        let inQueue = (0..<count).map { minute -> Double? in
            running += minute < lineChanges.count ? lineChanges[minute] : 0
            return Double(running)
        }
        let outflows = clamped(outflow)
        func mean(_ sums: [Int64], _ counts: [Int64]) -> [Double?] {
            zip(clamped(sums), counts).map { $1 > 0 ? Double($0) / Double($1) / 60_000 : nil }
        }
        func counts(_ sums: [Int64]) -> [Double?] { clamped(sums).map { Double($0) } }
        return RunMinutes(
            count: count,
            series: [
                "queueinflow": counts(inflow), "queueoutflow": counts(outflow),
                "safetynetoutflow": counts(safetyNet), "queueidsinqueue": inQueue, "oldqueuenumbers": counts(unused),
                "queueexpectedwaittime": mean(waitByEntry, clamped(redirectsByEntry)),
                "queueactualwaittime": mean(waitByRedirect, outflows),
            ])
    }

    /// When each left visitor's number was reached: the first redirect, from the queue, of a
    /// visitor who entered the line after them (in order of entry, then of visitor number).
    /// A number nobody behind was redirected after is never reached (left out).
    private func reachInstants() -> [Int64] {
        let ordered = inLine.sorted { ($0.entered, $0.index) < ($1.entered, $1.index) }
        var reached: [Int64] = []
        var firstRedirectBehind: Int64?
        for visitor in ordered.reversed() {
            if !visitor.passed, let instant = firstRedirectBehind { reached.append(instant) }
            if visitor.passed { firstRedirectBehind = min(firstRedirectBehind ?? visitor.ended, visitor.ended) }
        }
        return reached
    }

    static func milliseconds(_ instant: RunInstant) -> Int64 { instant.wholeNanoseconds / 1_000_000 }

    /// The minute an instant (at or after second 0) falls in.
    private static func minute(_ milliseconds: Int64) -> Int { Int(milliseconds / 60_000) }

    /// The first minute whose end (an instant at or after `milliseconds`) shows a change made
    /// at that instant: a number is in line at instant t when it entered at or before t and
    /// left after t.
    private static func snapshot(_ milliseconds: Int64) -> Int { max(0, Int((milliseconds + 59_999) / 60_000) - 1) }

    private static func bump(_ sums: inout [Int64], _ minute: Int, by amount: Int64 = 1) {
        if minute >= sums.count { sums += Array(repeating: 0, count: minute - sums.count + 1) }
        sums[minute] += amount
    }
}
