import Foundation
import Testing

/// Issue 29, "no silent wrong answers": what a CI log, run.json and JUnit say about a run.
@Suite("CI signals: --quiet, --no-progress, capped waits, warnings, the nightly example")
struct CISignalsCommandTests {
    /// 40 visitors at once, 6/min out, a minute of maxWait: most give up at the cap.
    static let cappedScenario = """
        version: 1
        target: { customerId: acme, waitingRoomId: launch }
        client: { maxWait: 1m }
        arrivals: { phases: [ { burst: 40 } ] }
        waitingRoom:
          outflow: 6/min
        thresholds:
          - wait.p95 < 10s
        """

    static func lastLine(_ text: String) -> String {
        String(text.split(separator: "\n").last ?? "")
    }

    @Test func quietKeepsTheVerdictOfAFailedRun() throws {
        let scenario = try TemporaryScenario(Self.cappedScenario)
        let out = RunCommandProcess.reportDirectory()
        let result = try QueueSimProcess.run(["run", scenario.path, "--clock", "virtual", "--out", out, "--quiet"])
        #expect(result.status == 1, "\(result.stderr)")
        // The end screen, because the run did not pass; the capped wait says it is a cap.
        #expect(
            result.stdout.contains("wait.p95 | < 10s | ≥ 1m 0s (capped by client.maxWait) | FAIL"), "\(result.stdout)")
        #expect(result.stdout.contains("≥ 1m 0s: capped by client.maxWait"), "\(result.stdout)")
        #expect(
            Self.lastLine(result.stderr)
                == "queuesim run: FAIL (exit 1): wait.p95 < 10s was ≥ 1m 0s (capped by client.maxWait)")
        // The outflow warning came first, at the outflow's position.
        #expect(
            result.stderr.contains(
                "\(scenario.path):6:12: warning: outflow 6/min × maxWait 1m = 6 < 40 planned: waits will hit client.maxWait"
            ),
            "\(result.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out + "/run.json")))
        let thresholds = (json as? [String: Any])?["thresholds"] as? [[String: Any]]
        #expect(thresholds?.first?["capped_by"] as? String == "client.maxWait")
        let page = try String(contentsOfFile: out + "/report.html", encoding: .utf8)
        #expect(page.contains("capped by client.maxWait"))
    }

    @Test func quietPrintsOnlyTheExitLineForAPassingRun() throws {
        let scenario = try TemporaryScenario(
            """
            version: 1
            target: { customerId: acme, waitingRoomId: launch }
            arrivals: { phases: [ { burst: 20 } ] }
            thresholds:
              - visitors >= 20
            """)
        let result = try QueueSimProcess.run(
            ["run", scenario.path, "--clock", "virtual", "--out", RunCommandProcess.reportDirectory(), "--quiet"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.isEmpty, "\(result.stdout)")
        #expect(result.stderr == "queuesim run: PASS (exit 0): the threshold held\n")
    }

    @Test func noProgressKeepsTheEndScreen() throws {
        let scenario = try TemporaryScenario(ReportCommandTests.failingScenario)
        let out = RunCommandProcess.reportDirectory()
        let result = try QueueSimProcess.run([
            "run", scenario.path, "--clock", "virtual", "--out", out, "--no-progress",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("report: \(out)/report.html"))
        #expect(
            Self.lastLine(result.stderr) == "queuesim run: done (exit 0): no thresholds set, so nothing judged the run")
    }

    @Test func validateWarnsOfABareOutflowAndKeepsExitZero() throws {
        let scenario = try TemporaryScenario(
            Self.cappedScenario.replacingOccurrences(of: "outflow: 6/min", with: "outflow: 3000"))
        let result = try QueueSimProcess.run(["validate", "--quiet", scenario.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr
                == "\(scenario.path):6:12: warning: `waitingRoom.outflow: 3000` has no unit, so it is read as 3,000/s (180,000/min); Queue-it's Max Outflow is per minute: write 3000/min if you meant that, or 3000/s to keep this reading\n"
        )
    }

    @Test func anInterruptedRunKeepsItsExitCodeAndJudgesNothing() throws {
        // Wall clock, so the signal lands mid-run: 40 visitors queued for a minute.
        let scenario = try TemporaryScenario(Self.cappedScenario)
        let out = RunCommandProcess.reportDirectory()
        let junit = out + "-junit.xml"
        defer { try? FileManager.default.removeItem(atPath: junit) }
        let result = try RunCommandProcess.run(
            ["run", scenario.path, "--out", out, "--quiet", "--junit", junit], interruptAfter: .seconds(2))
        #expect(result.status == 130, "\(result.stderr)")
        #expect(result.stdout.contains("not judged: interrupted"), "\(result.stdout)")
        #expect(Self.lastLine(result.stderr).hasPrefix("queuesim run: INTERRUPTED (exit 130)"), "\(result.stderr)")
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(xml.contains("failures=\"0\"") && xml.contains("<skipped message=\"not judged: interrupted\"/>"))
    }

    /// The shipped nightly workflow's soak command, run verbatim (its binary swapped for the
    /// test's): a healthy night is 0 failures in its JUnit file.
    @Test func theNightlyExampleShowsNoFailureOnAHealthyNight() throws {
        let workflow = try String(
            contentsOfFile: QueueSimProcess.repositoryRoot + "/examples/github-actions/nightly-soak.yml",
            encoding: .utf8)
        let lines = workflow.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let start = try #require(lines.firstIndex { $0.hasPrefix(".build/release/queuesim run") })
        let command = (lines[start] + " " + lines[start + 1]).split(separator: " ").map(String.init)
        let out = RunCommandProcess.reportDirectory()
        let junit = out + "-junit.xml"
        defer { try? FileManager.default.removeItem(atPath: junit) }
        var arguments = Array(command.dropFirst())
        arguments[arguments.firstIndex(of: "reports/soak")!] = out
        arguments[arguments.firstIndex(of: "reports/soak-junit.xml")!] = junit
        #expect(arguments.contains("--no-progress") && arguments.contains("--clock"))
        let result = try QueueSimProcess.run(arguments, limit: .seconds(600))
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(xml.contains("<testsuites name=\"queuesim\" tests=\"5\" failures=\"0\""), "\(xml)")
        #expect(Self.lastLine(result.stderr) == "queuesim run: PASS (exit 0): all 4 thresholds held")
    }
}
