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
/// many there were, how many had the outcome it counts, and the timing it reads.
struct WindowFigures: Sendable {
    var visitors = 0
    /// Visitors with the threshold's outcome (`passed`, `unavailable.count`).
    var matching = 0
    /// The threshold's timing over those visitors who have it; nil for other metrics.
    var timings: Histogram<UInt64>?

    init(timed: Bool) {
        timings = timed ? TimingHistograms.makeHistogram() : nil
    }

    mutating func add(_ other: WindowFigures) {
        visitors += other.visitors
        matching += other.matching
        if let other = other.timings, other.totalCount > 0 { timings?.add(other) }
    }

    /// How many values the threshold reads: visitors for outcomes, timings for timings.
    var samples: Int {
        guard let timings else { return visitors }
        return Int(timings.totalCount)
    }

    func measure(_ metric: Threshold.Metric) -> Double? {
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
