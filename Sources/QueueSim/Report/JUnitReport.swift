import Foundation
import QueueClientCore

/// `run --junit FILE`: the run's verdicts as JUnit XML, the format every CI system shows
/// natively, all in one test suite named after the scenario.
///
/// - One test case per threshold: failing with the measured value, passing with it in
///   `system-out` (a green case still says what was measured), skipped when the run was
///   interrupted (its thresholds are not judged).
/// - One test case per visitor group, judging only the thresholds that name that group. A
///   group's failed visitors alone do not fail it: a soak scripts 503s on purpose, so "any
///   visitor failed" would be red every healthy night. Its outcomes and top failure causes
///   go to `system-out`, so they are there to read; a run that must not lose visitors says so
///   with a threshold (`error < 0.5%`, `partner: error.count == 0`).
///
/// `time` is wall-clock seconds the run took, not simulated time: a virtual hour is a minute.
package enum JUnitReport {
    struct Case {
        var classname: String
        var name: String
        var failure: (message: String, body: String)?
        var skipped: String?
        var output: String
    }

    package static func render(report: RunReport, run: RunDescription) -> String {
        let suite = "queuesim.\(run.scenarioName)"
        var cases: [Case] = report.verdicts.map { verdict in
            thresholdCase(verdict, classname: "\(suite).thresholds")
        }
        let causesByGroup = Dictionary(uniqueKeysWithValues: report.failureCauses.map { ($0.group, $0.causes) })
        for group in run.groupNames {
            cases.append(
                groupCase(
                    group, verdicts: report.verdicts.filter { $0.threshold.group == group },
                    causes: causesByGroup[group] ?? [], classname: "\(suite).groups"))
        }
        let failures = cases.filter { $0.failure != nil }.count
        let skipped = cases.filter { $0.skipped != nil }.count
        let seconds = String(format: "%.3f", report.wallSeconds)
        var xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <testsuites name="queuesim" tests="\(cases.count)" failures="\(failures)" errors="0" skipped="\(skipped)" time="\(seconds)">
              <testsuite name="\(HTML.escape(suite))" tests="\(cases.count)" failures="\(failures)" errors="0" skipped="\(skipped)" time="\(seconds)" timestamp="\(RunManifest.timestamp(report.startedAt))">
                <properties>
                  <property name="run_id" value="\(HTML.escape(run.runId))"/>
                  <property name="seed" value="\(run.seed)"/>
                  <property name="clock" value="\(run.clock.rawValue)"/>
                  <property name="endpoint" value="\(HTML.escape(run.endpoint))"/>
                  <property name="exit_code" value="\(report.exitStatus.rawValue)"/>
                  <property name="report" value="\(HTML.escape(report.pagePath))"/>
                  <property name="simulated_duration_ms" value="\(report.durationMs)"/>
            \(behaviourProperties(report.behaviour))    </properties>

            """
        for testCase in cases {
            xml +=
                "    <testcase classname=\"\(HTML.escape(testCase.classname))\" name=\"\(HTML.escape(testCase.name))\" time=\"0\">\n"
            if let failure = testCase.failure {
                xml +=
                    "      <failure message=\"\(HTML.escape(failure.message))\" type=\"queuesim\">\(HTML.escape(failure.body))</failure>\n"
            }
            if let skipped = testCase.skipped {
                xml += "      <skipped message=\"\(HTML.escape(skipped))\"/>\n"
            }
            xml += "      <system-out>\(HTML.escape(testCase.output))</system-out>\n"
            xml += "    </testcase>\n"
        }
        xml += "  </testsuite>\n</testsuites>\n"
        return xml
    }

    /// Visitors who gave up, came back or went on shopping (issue 30), as run.json has them;
    /// nothing in runs without them, so their files keep their bytes.
    private static func behaviourProperties(_ figures: BehaviourFigures) -> String {
        guard figures.abandonedShare > 0 || figures.comebacks > 0 || figures.afterPassRequests > 0 else { return "" }
        return [
            ("abandoned_share", "\(figures.abandonedShare)"), ("comebacks", "\(figures.comebacks)"),
            ("after_pass_requests", "\(figures.afterPassRequests)"),
            ("after_pass_peak_requests_per_second", "\(figures.afterPassPeakPerSecond)"),
        ].map { "      <property name=\"\($0.0)\" value=\"\($0.1)\"/>\n" }.joined()
    }

    private static func thresholdCase(_ verdict: ThresholdVerdict, classname: String) -> Case {
        let metric = verdict.threshold.metric
        let limit =
            "\(verdict.threshold.comparator.rawValue) \(ThresholdTable.format(verdict.threshold.limit, as: metric))"
        let measured = ThresholdTable.measuredText(verdict)
        let failed = !verdict.passed && verdict.notJudged == nil
        return Case(
            classname: classname, name: verdict.threshold.source,
            failure: failed
                ? (
                    "measured \(measured), limit \(limit)",
                    "\(ThresholdTable.displayName(verdict.threshold)) measured \(measured); the scenario requires \(limit)"
                        + (verdict.failedOnTheCap
                            ? "; a figure at its cap is a lower bound, which cannot show \(limit)" : "")
                ) : nil,
            skipped: verdict.notJudged.map { "not judged: \($0)" },
            output: "measured \(measured), limit \(limit): \(verdict.word)")
    }

    private static func groupCase(
        _ group: String, verdicts: [ThresholdVerdict], causes: [FailureCause], classname: String
    ) -> Case {
        let failedVerdicts = verdicts.filter { !$0.passed && $0.notJudged == nil }
        var output = verdicts.isEmpty ? ["no threshold names this group"] : verdicts.map(ThresholdTable.verdictLine)
        output += causes.map { "failed visitors (not judged): \($0.cause) × \($0.count): \($0.example)" }
        let skipped = verdicts.first?.notJudged
        return Case(
            classname: classname, name: "\(group): its thresholds held",
            failure: failedVerdicts.isEmpty
                ? nil
                : (
                    failedVerdicts.map(ThresholdTable.verdictLine).joined(separator: "; "),
                    failedVerdicts.map(ThresholdTable.verdictLine).joined(separator: "\n")
                ),
            skipped: skipped.map { "not judged: \($0)" }, output: output.joined(separator: "\n"))
    }

    /// Writes the file whole or not at all.
    package static func write(_ xml: String, to path: String) throws {
        try AtomicFileWriter.write(xml, to: path)
    }
}
