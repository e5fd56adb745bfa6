import Foundation
import QueueClientCore
import Testing

@testable import QueueSim

/// Issue 29: no silent wrong answers. A wait at `client.maxWait` is a cap, not a wait; an
/// interrupted run's thresholds are not judged; JUnit says what was measured.
@Suite("censored waits, interrupted verdicts and JUnit")
struct CensoredWaitTests {
    static let waitP95 = ReportThresholdTests.threshold(
        .timing(.wait, .percentile(95)), .lessThan, 10_000, "wait.p95 < 10s")
    static let errors = ReportThresholdTests.threshold(.outcomeRatio(.error), .lessThan, 0.5, "error < 50%")

    /// Four of five visitors waited the whole minute of maxWait and ended `queued`.
    static func cappedRun(interrupted: Bool = false) throws -> (
        directory: String, report: RunReport, run: RunDescription
    ) {
        var run = describeRun(groups: ["app"], thresholds: [waitP95, errors])
        run.waitCap = .wait(maxWait: .seconds(60), runDuration: nil)
        let directory = try makeReportDirectory()
        let recorder = try Recorder(directory: directory, description: run)
        try recorder.record(queuedVisitor(0, enqueueMs: 10, waitMs: 2_000))
        for index in 1...4 {
            try recorder.record(queuedVisitor(index, enqueueMs: 10, waitMs: 60_000, outcome: .queued))
        }
        return (directory, try recorder.finish(ending(at: 70_000, interrupted: interrupted)), run)
    }

    @Test func theCapIsItsOwnHistogramBucket() {
        let cap = MeasurementCap.wait(maxWait: .seconds(1800), runDuration: nil)
        #expect(cap.source == "client.maxWait" && cap.milliseconds == 1_800_000)
        #expect(cap.caps(1_800_000) && cap.caps(1_800_900) && cap.caps(1_799_900))
        // 3 significant digits: buckets of 1,024 ms at 30 minutes; a second below is a wait.
        #expect(!cap.caps(1_798_000))
        #expect(MeasurementCap.wait(maxWait: .seconds(1800), runDuration: .seconds(600)).source == "run.duration")
        #expect(MeasurementCap.wait(maxWait: .seconds(60), runDuration: .seconds(600)).source == "client.maxWait")
    }

    @Test func aThresholdOnACappedWaitSaysSo() throws {
        let (directory, report, _) = try Self.cappedRun()
        let verdict = try #require(report.verdicts.first)
        #expect(verdict.capped?.source == "client.maxWait" && !verdict.passed)
        #expect(ThresholdTable.verdictLine(verdict) == "wait.p95 < 10s: ≥ 1m 0s (capped by client.maxWait) FAIL")
        #expect(
            report.thresholdTable.contains("| ≥ 1m 0s (capped by client.maxWait) | FAIL"), "\(report.thresholdTable)")
        #expect(report.verdicts[1].capped == nil)

        let json =
            try JSONSerialization.jsonObject(with: Data(readReport(directory, "run.json").utf8)) as? [String: Any]
        let thresholds = try #require(json?["thresholds"] as? [[String: Any]])
        #expect(thresholds[0]["capped_by"] as? String == "client.maxWait")
        #expect(thresholds[0]["measured"] as? Double != nil)
        #expect(thresholds[1]["capped_by"] == nil)
        let overall = try #require(json?["overall"] as? [String: Any])
        let waits = try #require(overall["wait_ms"] as? [String: Any])
        #expect(waits["capped"] as? [String] == ["p50", "p90", "p95", "p99", "max"])
        #expect(waits["cap_ms"] as? Int == 60_000 && waits["capped_by"] as? String == "client.maxWait")
        #expect(waits["p95"] as? Int != nil)
        let enqueue = try #require(overall["enqueue_ms"] as? [String: Any])
        #expect(enqueue["capped"] == nil)

        let page = try readReport(directory, "report.html")
        #expect(page.contains("≥ 1m 0s (capped by client.maxWait)"))
        // The outcomes table's wait cells too, as durations rather than `60000 ms`.
        #expect(page.contains("<td class=\"num\">≥ 1m 0s (capped by client.maxWait)</td>"))
        #expect(page.contains("Waits at the cap are visitors who gave up"))
    }

    @Test func anInterruptedRunsThresholdsAreNotJudged() throws {
        let (directory, report, run) = try Self.cappedRun(interrupted: true)
        #expect(report.exitStatus == .interrupted)
        #expect(report.verdicts.allSatisfy { $0.notJudged == "interrupted" })
        #expect(report.thresholdTable.contains("not judged: interrupted"))
        #expect(!report.thresholdTable.contains("FAIL"))
        let json =
            try JSONSerialization.jsonObject(with: Data(readReport(directory, "run.json").utf8)) as? [String: Any]
        let thresholds = try #require(json?["thresholds"] as? [[String: Any]])
        #expect(thresholds.allSatisfy { $0["not_judged"] as? String == "interrupted" })
        let xml = JUnitReport.render(report: report, run: run)
        #expect(xml.contains("failures=\"0\" errors=\"0\" skipped=\"2\""), "\(xml)")
        #expect(xml.contains("<skipped message=\"not judged: interrupted\"/>"))
        #expect(!xml.contains("<failure"))
    }

    @Test func junitCarriesMeasuredValuesWallTimeAndJudgesGroupsByTheirThresholds() throws {
        let errors = ReportThresholdTests.threshold(.outcomeRatio(.error), .lessThan, 0.6, "error < 60%")
        var run = describeRun(groups: ["app", "partner"], thresholds: [errors])
        run.thresholds.append(
            ReportThresholdTests.threshold(.outcomeCount(.error), .equal, 0, "partner: error.count == 0"))
        run.thresholds[1].group = "partner"
        let recorder = try Recorder(directory: try makeReportDirectory(), description: run)
        try recorder.record(queuedVisitor(0, enqueueMs: 10, waitMs: 100))
        try recorder.record(directVisitor(1, enqueueMs: 5, outcome: .error, status: 503))
        try recorder.record(directVisitor(2, group: "partner", enqueueMs: 5, outcome: .error, status: 503))
        try recorder.record(queuedVisitor(3, group: "partner", enqueueMs: 10, waitMs: 100))
        let report = try recorder.finish(ending(at: 3_600_000))
        let xml = JUnitReport.render(report: report, run: run)
        // `time` is the wall clock's 60.25 s, not the simulated hour.
        #expect(xml.contains("time=\"60.250\""), "\(xml)")
        #expect(xml.contains("<property name=\"simulated_duration_ms\" value=\"3600000\"/>"))
        // The passing threshold carries its measured value.
        #expect(
            xml.contains(
                "name=\"error &lt; 60%\" time=\"0\">\n      <system-out>measured 50%, limit &lt; 60%: pass</system-out>"
            ), "\(xml)")
        // `app` failed visitors but no threshold names it: its case passes, listing them.
        #expect(
            xml.contains(
                "name=\"app: its thresholds held\" time=\"0\">\n      <system-out>no threshold names this group"))
        #expect(xml.contains("failed visitors (not judged): HTTP 503 × 1"))
        // `partner`'s own threshold failed: its case fails with that verdict.
        #expect(xml.contains("<failure message=\"partner: error.count == 0: 1 FAIL\""), "\(xml)")
    }
}
