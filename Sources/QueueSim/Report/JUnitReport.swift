import Foundation
import QueueClientCore

/// `run --junit FILE`: the run's verdicts as JUnit XML, the format every CI system shows
/// natively. One test case per threshold (failing with the measured value), and one per
/// visitor group (failing when any of its visitors ended `error`, `unavailable`, `restarted`
/// or `closed`, with the top causes), all in one test suite named after the scenario.
package enum JUnitReport {
    package static func render(report: RunReport, run: RunDescription) -> String {
        struct Case {
            var classname: String
            var name: String
            var failure: (message: String, body: String)?
        }
        let suite = "queuesim.\(run.scenarioName)"
        var cases: [Case] = report.verdicts.map { verdict in
            let metric = verdict.threshold.metric
            let limit =
                "\(verdict.threshold.comparator.rawValue) \(ThresholdTable.format(verdict.threshold.limit, as: metric))"
            let measured = verdict.measured.map { ThresholdTable.format($0, as: metric) } ?? "no data"
            return Case(
                classname: "\(suite).thresholds", name: verdict.threshold.source,
                failure: verdict.passed
                    ? nil
                    : (
                        "measured \(measured), limit \(limit)",
                        "\(ThresholdTable.displayName(verdict.threshold)) measured \(measured); the scenario requires \(limit)"
                    ))
        }
        let causesByGroup = Dictionary(uniqueKeysWithValues: report.failureCauses.map { ($0.group, $0.causes) })
        for group in run.groupNames {
            let name = "\(group): every visitor passed, was queued or was disabled"
            guard let causes = causesByGroup[group] else {
                cases.append(Case(classname: "\(suite).groups", name: name))
                continue
            }
            let failed = causes.reduce(0) { $0 + $1.count }
            let summary = causes.map { "\($0.cause) × \($0.count)" }.joined(separator: ", ")
            let body = causes.map { "\($0.cause) × \($0.count): \($0.example)" }.joined(separator: "\n")
            cases.append(
                Case(
                    classname: "\(suite).groups", name: name,
                    failure: ("at least \(failed) visitor(s) failed: \(summary)", body)))
        }
        let failures = cases.filter { $0.failure != nil }.count
        let seconds = String(format: "%.3f", Double(report.durationMs) / 1000)
        var xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <testsuites name="queuesim" tests="\(cases.count)" failures="\(failures)" errors="0" time="\(seconds)">
              <testsuite name="\(HTML.escape(suite))" tests="\(cases.count)" failures="\(failures)" errors="0" skipped="0" time="\(seconds)" timestamp="\(RunManifest.timestamp(report.startedAt))">
                <properties>
                  <property name="run_id" value="\(HTML.escape(run.runId))"/>
                  <property name="seed" value="\(run.seed)"/>
                  <property name="clock" value="\(run.clock.rawValue)"/>
                  <property name="endpoint" value="\(HTML.escape(run.endpoint))"/>
                  <property name="exit_code" value="\(report.exitStatus.rawValue)"/>
                  <property name="report" value="\(HTML.escape(report.pagePath))"/>
                </properties>

            """
        for testCase in cases {
            let opening =
                "    <testcase classname=\"\(HTML.escape(testCase.classname))\" name=\"\(HTML.escape(testCase.name))\" time=\"0\""
            if let failure = testCase.failure {
                xml += opening + ">\n"
                xml +=
                    "      <failure message=\"\(HTML.escape(failure.message))\" type=\"queuesim\">\(HTML.escape(failure.body))</failure>\n"
                xml += "    </testcase>\n"
            } else {
                xml += opening + "/>\n"
            }
        }
        xml += "  </testsuite>\n</testsuites>\n"
        return xml
    }

    /// Writes the file whole or not at all.
    package static func write(_ xml: String, to path: String) throws {
        try AtomicFileWriter.write(xml, to: path)
    }
}
