import Histogram
import QueueClientCore

/// One finished visitor, as a windowed threshold sees it: its outcome and timings, at the
/// instant its outcome was decided. The timings are the report's (`VisitorRecord`).
package struct WindowSample: Sendable, Equatable {
    package var outcome: VisitorOutcome
    package var groupIndex: Int
    package var ended: RunInstant
    package var enqueueMs: Int64?
    /// Nil when the visitor never reached the queue page (as `summary.csv`'s wait columns).
    package var waitMs: Int64?
    package var totalMs: Int64
    package var connectMs: Int64?
    package var tlsMs: Int64?

    package init(
        outcome: VisitorOutcome, groupIndex: Int, ended: RunInstant, enqueueMs: Int64? = nil, waitMs: Int64? = nil,
        totalMs: Int64 = 0, connectMs: Int64? = nil, tlsMs: Int64? = nil
    ) {
        self.outcome = outcome
        self.groupIndex = groupIndex
        self.ended = ended
        self.enqueueMs = enqueueMs
        self.waitMs = waitMs
        self.totalMs = totalMs
        self.connectMs = connectMs
        self.tlsMs = tlsMs
    }

    init(_ visitor: FinishedVisitor) {
        let marks = visitor.result.marks
        self.init(
            outcome: visitor.result.outcome, groupIndex: visitor.groupIndex, ended: marks.ended,
            enqueueMs: marks.enqueueDecided.map { max(0, ($0 - marks.started).wholeMilliseconds) },
            waitMs: marks.queueEntered.map { max(0, (marks.ended - $0).wholeMilliseconds) },
            totalMs: max(0, (marks.ended - visitor.arrival).wholeMilliseconds),
            connectMs: visitor.handshake.map { max(0, $0.connect.wholeMilliseconds) },
            tlsMs: visitor.handshake?.tls.map { max(0, $0.wholeMilliseconds) })
    }

    /// The second of the run it belongs to (a row ending at 12.7 s is in second 12).
    var second: Int {
        let nanoseconds = max(0, ended.wholeNanoseconds)
        return Int(nanoseconds / 1_000_000_000)
    }

    func timing(_ timing: Threshold.Timing) -> Int64? {
        switch timing {
        case .enqueue: enqueueMs
        case .wait: waitMs
        case .total: totalMs
        case .connect: connectMs
        case .tls: tlsMs
        }
    }
}

/// What one threshold measures of the visitors of a second, or of a window of seconds: how
/// many there were, how many had the outcome it counts, and the values of the timing it reads.
///
/// A window keeps raw values and makes a histogram only when it is judged: adding up thirty
/// seconds' histograms every second would cost far more than recording their few values.
struct WindowFigures: Sendable {
    var visitors = 0
    /// Visitors with the threshold's outcome (`passed`, `unavailable.count`).
    var matching = 0
    /// The threshold's timing (milliseconds) of those visitors who have it; empty for other metrics.
    var values: [UInt64] = []

    mutating func add(_ other: WindowFigures) {
        visitors += other.visitors
        matching += other.matching
        values += other.values
    }

    /// How many values the threshold reads: visitors for outcomes, timings for timings.
    func samples(of metric: Threshold.Metric) -> Int {
        if case .timing = metric { return values.count }
        return visitors
    }

    func measure(_ metric: Threshold.Metric) -> Double? {
        guard case .timing = metric else { return PartFigures.measure(metric, visitors, matching, nil) }
        var histogram = TimingHistograms.makeHistogram()
        for value in values { histogram.record(value) }
        return PartFigures.measure(metric, visitors, matching, histogram)
    }
}

/// The figures of a `during`/`after` part so far: its seconds folded in as they are judged,
/// timings into one histogram (a part can last hours).
struct PartFigures: Sendable {
    var visitors = 0
    var matching = 0
    var timings = TimingHistograms.makeHistogram()

    mutating func add(_ second: WindowFigures) {
        visitors += second.visitors
        matching += second.matching
        for value in second.values { timings.record(value) }
    }

    func samples(of metric: Threshold.Metric) -> Int {
        if case .timing = metric { return Int(timings.totalCount) }
        return visitors
    }

    func measure(_ metric: Threshold.Metric) -> Double? {
        Self.measure(metric, visitors, matching, timings)
    }

    /// A metric over `visitors` of whom `matching` had the outcome, with their timings (read
    /// from a histogram, as `summary.csv`'s percentiles are).
    static func measure(
        _ metric: Threshold.Metric, _ visitors: Int, _ matching: Int, _ timings: Histogram<UInt64>?
    ) -> Double? {
        switch metric {
        case .visitorCount: return Double(visitors)
        case .outcomeCount: return Double(matching)
        case .outcomeRatio: return visitors > 0 ? Double(matching) / Double(visitors) : nil
        case .timing(_, let statistic):
            guard let timings, timings.totalCount > 0 else { return nil }
            switch statistic {
            case .percentile(let percentile): return Double(timings.valueAtPercentile(percentile))
            case .max: return Double(timings.maxRecorded)
            case .min: return Double(timings.min)
            case .mean: return timings.mean
            }
        }
    }
}
