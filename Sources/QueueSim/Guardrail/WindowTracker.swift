import QueueClientCore

/// A window of a run that a windowed threshold judged: whole seconds `from..<to` of the run's
/// clock, and what the threshold measured on the visitors who finished in it.
package struct JudgedWindow: Sendable, Equatable {
    package var from: Int
    package var to: Int
    package var measured: Double

    package init(from: Int, to: Int, measured: Double) {
        self.from = from
        self.to = to
        self.measured = measured
    }

    /// `60s..90s`, as `during:` is written.
    package var text: String { "\(from)s..\(to)s" }
}

/// How a windowed threshold fared over a run.
package struct WindowedVerdict: Sendable, Equatable {
    /// Windows with enough visitors to be judged (`minVisitors`), and how many of them failed.
    package var judgedWindows = 0
    package var failedWindows = 0
    /// The first window that failed.
    package var firstFailure: JudgedWindow?
    /// The window closest to failing, or past it the furthest: the highest measured value for
    /// `<`/`<=`, the lowest for `>`/`>=` (the first failure for `==`/`!=`).
    package var worst: JudgedWindow?

    package init() {}

    package var passed: Bool { failedWindows == 0 }
}

/// One windowed threshold's figures, second by second, and its judgements (sans-IO: it is
/// told the visitors and the seconds that are over, and never reads a clock).
///
/// - `over: D`: at every whole second S ≥ D of the run, the window `S-D..<S`; at the end, the
///   last window too (shorter than D when the run was).
/// - `during: A..B`: the part as a whole, when it is over (at B, or at the run's end); with
///   `abortOnFail` also every second on the part so far, so a guardrail needs not wait for B.
/// - `after: A`: the same, from A to the run's end.
///
/// A ratio or timing needs `minVisitors` values in the window to be judged. A count on part
/// of a `during`/`after` so far is judged only when it cannot get better (`error.count < 10`:
/// counts only grow), every full window's and every whole part's always.
struct WindowTracker: Sendable {
    let threshold: Threshold
    let window: ThresholdWindow
    /// The group the threshold measures; nil for everyone, -1 for a group the run lacks.
    let groupIndex: Int?
    private var seconds: [Int: WindowFigures] = [:]
    /// `during`/`after`: the seconds of the part folded so far.
    private var part = PartFigures()
    private var partClosed = false
    private(set) var verdict = WindowedVerdict()
    /// The run's cap on waits: a window's wait figure at it is a lower bound.
    var waitCap: MeasurementCap?

    init(threshold: Threshold, window: ThresholdWindow, groupIndex: Int?) {
        self.threshold = threshold
        self.window = window
        self.groupIndex = groupIndex
    }

    mutating func record(_ sample: WindowSample) {
        if let groupIndex, sample.groupIndex != groupIndex { return }
        if partClosed { return }
        let second = sample.second
        var figures = seconds[second] ?? WindowFigures()
        figures.visitors += 1
        switch threshold.metric {
        case .outcomeRatio(let outcome), .outcomeCount(let outcome):
            if sample.outcome == outcome { figures.matching += 1 }
        case .timing(let timing, _):
            if let value = sample.timing(timing) { figures.values.append(UInt64(max(0, value))) }
        case .visitorCount:
            break
        }
        seconds[second] = figures
    }

    /// Judges what second `boundary` closes (every visitor who finished before it is recorded).
    /// Returns the window when it failed.
    mutating func judge(boundary: Int) -> JudgedWindow? {
        switch window.span {
        case .sliding(let length):
            let width = Int(length.wholeMilliseconds / 1000)
            guard boundary >= width else { return nil }
            let from = boundary - width
            let figures = sum(from: from, to: boundary)
            seconds = seconds.filter { $0.key > from }
            return judgeWindow(figures, from: from, to: boundary)
        case .during(let start, let end):
            let (from, to) = (Self.second(start), Self.second(end))
            guard !partClosed, boundary > from else {
                // Before the part, only its own seconds are kept; after it, none.
                seconds = partClosed ? [:] : seconds.filter { $0.key >= from }
                return nil
            }
            fold(from: from, to: min(boundary, to))
            if boundary >= to {
                partClosed = true
                return judgePart(from: from, to: to, whole: true)
            }
            return window.abortOnFail ? judgePart(from: from, to: boundary, whole: false) : nil
        case .after(let start):
            let from = Self.second(start)
            guard boundary > from else {
                seconds = seconds.filter { $0.key >= from }
                return nil
            }
            fold(from: from, to: boundary)
            return window.abortOnFail ? judgePart(from: from, to: boundary, whole: false) : nil
        }
    }

    /// The run ended at `end`: judges the last window, which may be shorter than the others.
    /// `lastBoundary`: the last second `judge(boundary:)` was called for.
    mutating func finish(end: RunInstant, lastBoundary: Int) -> JudgedWindow? {
        let endNanoseconds = max(0, end.wholeNanoseconds)
        var last = Int((endNanoseconds + 999_999_999) / 1_000_000_000)
        if let latest = seconds.keys.max() { last = max(last, latest + 1) }
        switch window.span {
        case .sliding(let length):
            guard last > lastBoundary else { return nil }
            let from = max(0, last - Int(length.wholeMilliseconds / 1000))
            return judgeWindow(sum(from: from, to: last), from: from, to: last)
        case .during(let start, let end):
            let (from, to) = (Self.second(start), min(Self.second(end), last))
            guard !partClosed, to > from else { return nil }
            partClosed = true
            fold(from: from, to: to)
            return judgePart(from: from, to: to, whole: true)
        case .after(let start):
            let from = Self.second(start)
            guard last > from else { return nil }
            fold(from: from, to: last)
            return judgePart(from: from, to: last, whole: true)
        }
    }

    private static func second(_ duration: Duration) -> Int {
        Int(duration.wholeMilliseconds / 1000)
    }

    private func sum(from: Int, to: Int) -> WindowFigures {
        var figures = WindowFigures()
        for (second, bucket) in seconds where second >= from && second < to { figures.add(bucket) }
        return figures
    }

    /// Moves the seconds `from..<to` into the part (a late row of an earlier second too).
    private mutating func fold(from: Int, to: Int) {
        for (second, bucket) in seconds where second < to {
            if second >= from { part.add(bucket) }
            seconds[second] = nil
        }
    }

    private mutating func judgeWindow(_ figures: WindowFigures, from: Int, to: Int) -> JudgedWindow? {
        // Counted first: a histogram is made only for a window with enough values.
        let samples = figures.samples(of: threshold.metric)
        guard samples >= window.minVisitors || !Self.needsMinimum(threshold.metric) else { return nil }
        return judge(samples, figures.measure(threshold.metric), from: from, to: to, whole: true)
    }

    private mutating func judgePart(from: Int, to: Int, whole: Bool) -> JudgedWindow? {
        let samples = part.samples(of: threshold.metric)
        guard samples >= window.minVisitors || !Self.needsMinimum(threshold.metric) else { return nil }
        return judge(samples, part.measure(threshold.metric), from: from, to: to, whole: whole)
    }

    /// Shares and timings need `minVisitors` values; counts are judged whatever the number.
    private static func needsMinimum(_ metric: Threshold.Metric) -> Bool {
        switch metric {
        case .outcomeRatio, .timing: true
        case .outcomeCount, .visitorCount: false
        }
    }

    /// `whole`: a full window or a whole part; otherwise part of a part so far.
    private mutating func judge(_ samples: Int, _ measured: Double?, from: Int, to: Int, whole: Bool) -> JudgedWindow? {
        switch threshold.metric {
        case .outcomeRatio, .timing:
            guard samples >= window.minVisitors else { return nil }
        case .outcomeCount, .visitorCount:
            // A count so far can still grow: only an upper limit is already decided.
            guard whole || threshold.comparator == .lessThan || threshold.comparator == .lessOrEqual else {
                return nil
            }
        }
        guard let measured else { return nil }
        let judged = JudgedWindow(from: from, to: to, measured: measured)
        verdict.judgedWindows += 1
        // One judgement with the whole run's: a wait at its cap never proves `<`.
        var cap: MeasurementCap? = nil
        if case .timing(.wait, _) = threshold.metric, let waitCap, waitCap.caps(measured) { cap = waitCap }
        let holds = ThresholdVerdict.passes(threshold, measured: measured, cap: cap)
        if isWorse(judged, than: verdict.worst, holds: holds) { verdict.worst = judged }
        guard !holds else { return nil }
        verdict.failedWindows += 1
        if verdict.firstFailure == nil { verdict.firstFailure = judged }
        return judged
    }

    private func isWorse(_ window: JudgedWindow, than worst: JudgedWindow?, holds: Bool) -> Bool {
        guard let worst else { return true }
        switch threshold.comparator {
        case .lessThan, .lessOrEqual: return window.measured > worst.measured
        case .greaterThan, .greaterOrEqual: return window.measured < worst.measured
        case .equal, .notEqual: return !holds && verdict.failedWindows == 0
        }
    }
}
