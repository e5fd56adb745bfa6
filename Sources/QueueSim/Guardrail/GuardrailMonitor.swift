import QueueClientCore

/// The guardrail that stopped a run: which threshold, the window that failed it, and the
/// instant of the run's clock at which the run stopped.
package struct GuardrailTrip: Sendable, Equatable {
    /// The threshold's place in the scenario's `thresholds:` list, and its source.
    package var thresholdIndex: Int
    package var threshold: String
    package var window: JudgedWindow
    package var at: RunInstant

    package init(thresholdIndex: Int, threshold: String, window: JudgedWindow, at: RunInstant) {
        self.thresholdIndex = thresholdIndex
        self.threshold = threshold
        self.window = window
        self.at = at
    }
}

/// What the windowed thresholds of a run came to: each one's verdict by its place in the
/// scenario's `thresholds:` list, and the guardrail that stopped the run, if one did.
package struct GuardrailResults: Sendable, Equatable {
    package var verdicts: [Int: WindowedVerdict] = [:]
    package var trip: GuardrailTrip?

    package init(verdicts: [Int: WindowedVerdict] = [:], trip: GuardrailTrip? = nil) {
        self.verdicts = verdicts
        self.trip = trip
    }
}

/// Judges a run's windowed thresholds as it goes (sans-IO): the runner tells it every finished
/// visitor and how far the run's clock has got; at each whole second it judges the windows
/// that second closes, and the first `abortOnFail` threshold that fails trips it. Both clocks
/// drive it the same way; on the virtual clock every second is judged before any event after
/// it, so the same seed stops at the same instant.
package struct GuardrailMonitor: Sendable {
    private var trackers: [(index: Int, tracker: WindowTracker)]
    /// Seconds `1...judgedUpTo` have been judged.
    package private(set) var judgedUpTo = 0
    package private(set) var trip: GuardrailTrip?
    private var finished = false

    /// Nil when no threshold has a window. `waitCap`: the run's cap on waits, so a window's
    /// wait figure at it is judged as the lower bound it is (it never proves `<`).
    package init?(thresholds: [Threshold], groupNames: [String], waitCap: MeasurementCap? = nil) {
        trackers = thresholds.enumerated().compactMap { index, threshold in
            guard let window = threshold.window else { return nil }
            let group = threshold.group.map { groupNames.firstIndex(of: $0) ?? -1 }
            var tracker = WindowTracker(threshold: threshold, window: window, groupIndex: group)
            tracker.waitCap = waitCap
            return (index, tracker)
        }
        if trackers.isEmpty { return nil }
    }

    /// A visitor's row was written (at `sample.ended`).
    package mutating func record(_ sample: WindowSample) {
        guard trip == nil, !finished else { return }
        for position in trackers.indices { trackers[position].tracker.record(sample) }
    }

    /// Judges every whole second of the run up to `instant`, which must not come before a
    /// visitor still to be recorded. Returns the trip when a guardrail failed (the run stops at
    /// the second that closed its window).
    package mutating func advance(to instant: RunInstant) -> GuardrailTrip? {
        guard trip == nil, !finished else { return trip }
        let last = Int(max(0, instant.wholeNanoseconds) / 1_000_000_000)
        while judgedUpTo < last {
            judgedUpTo += 1
            let boundary = judgedUpTo
            judgeAll { $0.judge(boundary: boundary) }
            if let trip { return trip }
        }
        return nil
    }

    /// The run ended at `end` (every row recorded): judges each threshold's last window. A
    /// guardrail that fails there trips at `end`. Not called after a trip or an interruption:
    /// the rows of a stopped run's last instant are the stop's, not the run's.
    package mutating func finish(at end: RunInstant) -> GuardrailTrip? {
        guard trip == nil, !finished else { return trip }
        _ = advance(to: end)
        guard trip == nil else { return trip }
        finished = true
        let lastBoundary = judgedUpTo
        judgeAll(at: end) { $0.finish(end: end, lastBoundary: lastBoundary) }
        return trip
    }

    package var results: GuardrailResults {
        GuardrailResults(
            verdicts: Dictionary(uniqueKeysWithValues: trackers.map { ($0.index, $0.tracker.verdict) }), trip: trip)
    }

    private mutating func judgeAll(at end: RunInstant? = nil, _ judge: (inout WindowTracker) -> JudgedWindow?) {
        for position in trackers.indices {
            guard let failed = judge(&trackers[position].tracker) else { continue }
            let tracker = trackers[position].tracker
            guard tracker.window.abortOnFail, trip == nil else { continue }
            trip = GuardrailTrip(
                thresholdIndex: trackers[position].index, threshold: tracker.threshold.source, window: failed,
                at: end ?? .origin + .seconds(judgedUpTo))
        }
    }
}

/// A virtual run's clock adapter judges the windows as its clock passes each second.
extension GuardrailMonitor: RunWatch {
    mutating func visitorFinished(_ visitor: FinishedVisitor) {
        record(WindowSample(visitor))
    }

    mutating func secondsOver(upTo instant: RunInstant) -> RunInstant? {
        advance(to: instant)?.at
    }

    mutating func runEnded(at end: RunInstant) {
        _ = finish(at: end)
    }
}
