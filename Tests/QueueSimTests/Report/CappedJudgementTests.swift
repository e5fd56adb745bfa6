import Foundation
import Testing

@testable import QueueSim

/// Issue 52, item 1: one judgement of a capped figure. A wait at `client.maxWait` is a lower
/// bound: it never proves `<`, `<=` or `==`, and proves `>`, `>=`, `!=` only from the cap up.
@Suite("a capped figure's judgement")
struct CappedJudgementTests {
    static func threshold(_ comparator: Threshold.Comparator, _ limitMs: Double) -> Threshold {
        Threshold(
            metric: .timing(.wait, .percentile(95)), comparator: comparator, limit: limitMs,
            source: "wait.p95 \(comparator.rawValue) \(Int(limitMs / 1000))s")
    }

    @Test func aLowerBoundProvesOnlyWhatEveryLargerValueSatisfies() {
        let cap = MeasurementCap(milliseconds: 60_000, source: "client.maxWait")
        let cases: [(Threshold.Comparator, Double, Bool)] = [
            (.lessThan, 120_000, false), (.lessOrEqual, 120_000, false), (.equal, 60_000, false),
            (.greaterOrEqual, 60_000, true), (.greaterOrEqual, 90_000, false), (.greaterThan, 30_000, true),
            (.greaterThan, 60_000, false), (.notEqual, 30_000, true), (.notEqual, 90_000, false),
        ]
        for (comparator, limit, expected) in cases {
            let passes = ThresholdVerdict.passes(Self.threshold(comparator, limit), measured: 60_000, cap: cap)
            #expect(passes == expected, "wait.p95 \(comparator.rawValue) \(limit) on ≥ 60000")
        }
        // Without a cap, the number is the figure.
        #expect(ThresholdVerdict.passes(Self.threshold(.lessThan, 120_000), measured: 60_000, cap: nil))
    }

    @Test func aRunsUpperLimitOnACappedWaitFailsCappedAndSaysWhy() throws {
        var run = describeRun(
            groups: ["app"],
            thresholds: [Self.threshold(.lessThan, 120_000), Self.threshold(.greaterOrEqual, 30_000)])
        run.waitCap = .wait(maxWait: .seconds(60), runDuration: nil)
        let recorder = try Recorder(directory: try makeReportDirectory(), description: run)
        try recorder.record(queuedVisitor(0, enqueueMs: 10, waitMs: 2_000))
        for index in 1...4 {
            try recorder.record(queuedVisitor(index, enqueueMs: 10, waitMs: 60_000, outcome: .queued))
        }
        let report = try recorder.finish(ending(at: 70_000))
        #expect(report.exitStatus == .thresholdFailed)
        let upper = report.verdicts[0]
        #expect(!upper.passed && upper.failedOnTheCap && upper.word == "FAIL (capped)")
        #expect(
            ThresholdTable.verdictLine(upper) == "wait.p95 < 120s: ≥ 1m 0s (capped by client.maxWait) FAIL (capped)")
        #expect(report.verdicts[1].passed, "a lower bound of 1m proves >= 30s")
        let xml = JUnitReport.render(report: report, run: run)
        #expect(xml.contains("a figure at its cap is a lower bound, which cannot show &lt; 2m 0s"), "\(xml)")
    }
}
