import Foundation
import QueueClientCore
import Testing

@testable import QueueSim

@Suite("thresholds and exit status")
struct ReportThresholdTests {
    static func threshold(
        _ metric: Threshold.Metric, _ comparator: Threshold.Comparator, _ limit: Double,
        _ source: String
    )
        -> Threshold
    {
        Threshold(metric: metric, comparator: comparator, limit: limit, source: source)
    }

    /// The summary's known run: 4 of 5 passed, 1 error; waits 100…400 ms; enqueue 5…40 ms.
    static func knownRunMeasurements() throws -> RunMeasurements {
        let recorder = try Recorder(directory: try makeReportDirectory(), description: describeRun())
        try ReportSummaryTests.knownRun(recorder)
        return recorder.measurements
    }

    @Test("ratios, counts and timings are measured over every visitor")
    func measurements() throws {
        let run = try Self.knownRunMeasurements()
        #expect(
            run.measure(Self.threshold(.outcomeRatio(.passed), .greaterOrEqual, 0.99, "passed >= 99%"))
                == 0.8)
        #expect(run.measure(Self.threshold(.outcomeCount(.error), .equal, 0, "error.count == 0")) == 1)
        #expect(run.measure(Self.threshold(.visitorCount, .greaterOrEqual, 5, "visitors >= 5")) == 5)
        #expect(
            run.measure(
                Self.threshold(.timing(.wait, .percentile(95)), .lessThan, 500, "wait.p95 < 500ms")) == 400)
        #expect(
            run.measure(Self.threshold(.timing(.enqueue, .max), .lessThan, 500, "enqueue.max < 500ms"))
                == 40)
        #expect(
            run.measure(Self.threshold(.timing(.enqueue, .min), .lessThan, 500, "enqueue.min < 500ms"))
                == 5)
        #expect(
            run.measure(Self.threshold(.timing(.enqueue, .mean), .lessThan, 500, "enqueue.mean < 500ms"))
                == 21)
        // total = arrival → end: the error visitor took 5 ms, the others enqueue + wait.
        #expect(
            run.measure(Self.threshold(.timing(.total, .max), .lessThan, 1, "total.max < 1ms")) == 440)
    }

    @Test("verdicts: a failing comparison fails; so does a timing nobody produced")
    func verdicts() throws {
        let run = try Self.knownRunMeasurements()
        let passedHolds = Self.threshold(.outcomeRatio(.passed), .greaterOrEqual, 0.75, "passed >= 75%")
        let errorFails = Self.threshold(.outcomeRatio(.error), .lessThan, 0.005, "error < 0.5%")
        #expect(
            run.judge(passedHolds)
                == ThresholdVerdict(threshold: passedHolds, measured: 0.8, passed: true))
        #expect(
            run.judge(errorFails) == ThresholdVerdict(threshold: errorFails, measured: 0.2, passed: false)
        )

        let empty = try Recorder(directory: try makeReportDirectory(), description: describeRun())
        try empty.record(directVisitor(0, enqueueMs: 10, outcome: .passed))
        let noWait = Self.threshold(
            .timing(.wait, .percentile(95)), .lessThan, 300_000, "wait.p95 < 5m")
        let noErrors = Self.threshold(.outcomeRatio(.error), .lessThan, 0.005, "error < 0.5%")
        #expect(
            empty.measurements.judge(noWait)
                == ThresholdVerdict(threshold: noWait, measured: nil, passed: false))
        #expect(empty.measurements.judge(noErrors).passed)
    }

    @Test("with no visitors at all, ratios and counts are 0")
    func noVisitors() throws {
        let run = try Recorder(directory: try makeReportDirectory(), description: describeRun())
            .measurements
        #expect(
            run.measure(Self.threshold(.outcomeRatio(.passed), .greaterOrEqual, 0.99, "passed >= 99%"))
                == 0)
        #expect(run.measure(Self.threshold(.visitorCount, .greaterThan, 0, "visitors > 0")) == 0)
    }

    @Test("exit status: interrupted wins, then any failed threshold, else success")
    func exitStatus() throws {
        let holds = ThresholdVerdict(
            threshold: Self.threshold(.visitorCount, .greaterThan, 0, "visitors > 0"), measured: 1,
            passed: true)
        var fails = holds
        fails.passed = false
        #expect(RunExitStatus.afterRun(interrupted: false, verdicts: []) == .success)
        #expect(RunExitStatus.afterRun(interrupted: false, verdicts: [holds]) == .success)
        #expect(
            RunExitStatus.afterRun(interrupted: false, verdicts: [holds, fails]) == .thresholdFailed)
        #expect(RunExitStatus.afterRun(interrupted: true, verdicts: [fails]) == .interrupted)
        #expect(RunExitStatus.afterRun(interrupted: true, terminated: true, verdicts: [holds]) == .terminated)
        #expect(
            RunExitStatus.afterRun(interrupted: true, guardrailStopped: true, verdicts: [fails]) == .guardrailStopped,
            "a guardrail's stop came first")
        #expect(
            RunExitStatus.afterRun(interrupted: false, guardrailStopped: true, verdicts: [holds]) == .guardrailStopped)
        #expect(RunExitStatus.allCases.map(\.rawValue) == [0, 1, 2, 3, 4, 5, 130, 143])
    }

    @Test("the end-of-run table shows metric, limit, measured value and verdict with units")
    func table() throws {
        let run = try Self.knownRunMeasurements()
        let verdicts = run.judge([
            Self.threshold(.outcomeRatio(.passed), .greaterOrEqual, 0.99, "passed >= 99%"),
            Self.threshold(.timing(.wait, .percentile(95)), .lessThan, 300_000, "wait.p95 < 5m"),
            Self.threshold(
                .timing(.enqueue, .percentile(99.9)), .lessThan, 1230, "enqueue.p99.9 < 1.23s"),
            Self.threshold(.outcomeCount(.error), .lessOrEqual, 3, "error.count <= 3"),
        ])
        let expected = """
            metric        | limit   | measured | verdict
            --------------+---------+----------+--------
            passed        | >= 99%  | 80%      | FAIL
            wait.p95      | < 5m 0s | 400ms    | pass
            enqueue.p99.9 | < 1.23s | 40ms     | pass
            error.count   | <= 3    | 1        | pass

            """
        #expect(ThresholdTable.render(verdicts) == expected)
        #expect(ThresholdTable.render([]) == "")
    }

    @Test("timings read as humans write them")
    func durations() {
        #expect(ThresholdTable.formatMilliseconds(850) == "850ms")
        #expect(ThresholdTable.formatMilliseconds(1230) == "1.23s")
        #expect(ThresholdTable.formatMilliseconds(5000) == "5s")
        #expect(ThresholdTable.formatMilliseconds(300_000) == "5m 0s")
        #expect(ThresholdTable.formatMilliseconds(61_500) == "1m 2s")
        #expect(ThresholdTable.formatMilliseconds(7_500_000) == "2h 5m")
        #expect(ThresholdTable.format(0.995, as: .outcomeRatio(.passed)) == "99.5%")
        #expect(ThresholdTable.format(0.123456, as: .outcomeRatio(.passed)) == "12.35%")
    }
}
