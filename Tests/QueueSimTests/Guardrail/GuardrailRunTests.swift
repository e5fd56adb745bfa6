import Foundation
import QueueClientCore
import Testing

@testable import QueueSim

/// Guardrails in whole runs on the virtual clock: a scripted 503 storm on enqueue from 60 s to
/// 120 s, five visitors a second for five minutes.
@Suite("Guardrails: runs", .timeLimit(.minutes(1)))
struct GuardrailRunTests {
    static func storm(thresholds: String, run: String = "{}") -> String {
        """
        version: 1
        name: storm
        seed: 7
        clock: virtual
        target: { customerId: acme, waitingRoomId: launch }
        arrivals: { phases: [ { duration: 5m, rate: 5 } ] }
        waitingRoom:
          mode: queue
          outflow: 600/min
          faults:
            - { from: 60s, to: 120s, endpoint: enqueue, status: 503 }
        run: \(run)
        thresholds:
        \(thresholds)
        """
    }

    static let guardrail = "  - passed >= 1%\n  - { threshold: \"unavailable < 5%\", over: 30s, abortOnFail: true }"

    @Test(
        "abortOnFail stops the run within the storm: exit 4, a row for every visitor, run.json names the guardrail and the instant"
    )
    func stormStopsTheRun() throws {
        let reports = try RunFixture.virtual(Self.storm(thresholds: Self.guardrail))
        let report = reports.report
        #expect(report.exitStatus == .guardrailStopped)
        #expect(report.exitStatus.rawValue == 4)
        let trip = try #require(report.guardrailTrip)
        #expect(trip.threshold == "unavailable < 5% over 30s")
        // The storm starts at 60 s; the SDK's retries (1+2+4+8 s) make the first `unavailable`
        // at 75 s: the window that closes at 76 s holds 5 of 75 visitors (6.67 %).
        #expect(trip.at == .origin + .seconds(76))
        #expect(trip.window == JudgedWindow(from: 46, to: 76, measured: 5.0 / 75))
        #expect(trip.at > .origin + .seconds(60) && trip.at < .origin + .seconds(120), "within the storm")
        // Five a second for the 76 s the run lasted: every one of them has a row.
        reports.expectContract(arrivals: 380)
        #expect(reports.outcomes == ["passed": 300, "unavailable": 5, "interrupted": 75])
        // Those in flight at the stop end there, interrupted.
        for row in reports.visitors.rows where row["outcome"] == "interrupted" {
            #expect(row.int("total_ms")! + row.int("arrival_ms")! == 76_000)
        }
        #expect(reports.manifest["exit_code"] as? Int == 4)
        #expect(reports.manifest["duration_ms"] as? Int == 76_000)
        let stop = try #require(reports.manifest["guardrail_stop"] as? [String: Any])
        #expect(stop["threshold"] as? String == "unavailable < 5% over 30s")
        #expect(stop["at_ms"] as? Int == 76_000)
        let window = try #require(stop["window"] as? [String: Any])
        #expect(window["from_s"] as? Int == 46)
        #expect(window["to_s"] as? Int == 76)
        let thresholds = try #require(reports.manifest["thresholds"] as? [[String: Any]])
        #expect(thresholds.count == 2)
        #expect(thresholds[0]["not_judged"] as? String == "stopped by a guardrail")
        #expect(thresholds[1]["passed"] as? Bool == false)
        let entry = try #require(thresholds[1]["window"] as? [String: Any])
        #expect(entry["span"] as? String == "over 30s")
        #expect(entry["abort_on_fail"] as? Bool == true)
        #expect(entry["failed_windows"] as? Int == 1)
        // The end screen's table and report.html name the window it failed in.
        #expect(report.thresholdTable.contains("unavailable over 30s (abortOnFail)"))
        #expect(report.thresholdTable.contains("6.67% in 46s..76s"))
        let page = try String(contentsOfFile: reports.directory + "/report.html", encoding: .utf8)
        #expect(page.contains("STOPPED BY GUARDRAIL"))
        #expect(page.contains("6.67% in 46s..76s"))
        let scenario = try RunFixture.scenario(Self.storm(thresholds: Self.guardrail), folder: reports.directory)
        let junit = JUnitReport.render(report: report, run: RunDescription(scenario: scenario))
        #expect(junit.contains("unavailable &lt; 5% over 30s"))
        #expect(junit.contains("6.67% in 46s..76s"))
        // `queuesim report` rebuilds the same verdicts from the folder.
        let pagePath = reports.directory + "/report.html"
        try FileManager.default.removeItem(atPath: pagePath)
        let rebuilt = try ReportRebuild.rebuild(reports.directory)
        #expect(rebuilt.exitStatus == .guardrailStopped)
        #expect(rebuilt.verdicts.map(\.threshold.source) == report.verdicts.map(\.threshold.source))
        #expect(rebuilt.verdicts.map(\.windows) == report.verdicts.map(\.windows))
        #expect(try String(contentsOfFile: pagePath, encoding: .utf8) == page)
    }

    @Test("a stopped run's other windowed thresholds keep what was judged; one never judged is not judged")
    func otherWindowsOfAStoppedRun() throws {
        let reports = try RunFixture.virtual(
            Self.storm(
                thresholds: Self.guardrail
                    + "\n  - { threshold: \"total.p95 < 1m\", during: 0s..4m }"
                    + "\n  - { threshold: \"unavailable.count < 1\", over: 10s }"))
        #expect(reports.report.exitStatus == .guardrailStopped)
        let verdicts = reports.report.verdicts
        #expect(verdicts.count == 4)
        // The part 0s..4m never ended: nothing to judge.
        #expect(verdicts[2].notJudged == "stopped by a guardrail")
        #expect(verdicts[2].windows?.judgedWindows == 0)
        // The 10 s windows were judged up to the stop: the one closing at 76 s holds the first
        // five `unavailable` visitors (ended at 75 s).
        #expect(verdicts[3].notJudged == nil)
        #expect(verdicts[3].passed == false)
        #expect(verdicts[3].windows?.firstFailure == JudgedWindow(from: 66, to: 76, measured: 5))
    }

    @Test("without abortOnFail the run goes on and exits 1, naming the first window that failed")
    func stormWithoutAbortFails() throws {
        let reports = try RunFixture.virtual(
            Self.storm(thresholds: "  - { threshold: \"unavailable < 5%\", over: 30s }"))
        #expect(reports.report.exitStatus == .thresholdFailed)
        #expect(reports.report.guardrailTrip == nil)
        reports.expectContract(arrivals: 1500)
        let verdict = try #require(reports.report.verdicts.first)
        #expect(verdict.passed == false)
        #expect(verdict.windows?.firstFailure == JudgedWindow(from: 46, to: 76, measured: 5.0 / 75))
        #expect(verdict.windows?.failedWindows ?? 0 > 30)
        #expect(reports.manifest["guardrail_stop"] is NSNull, "present and null: a guardrail was set, none stopped")
    }

    @Test("a guardrail that never fails changes nothing: the same rows as without it")
    func quietGuardrail() throws {
        let calm = """
            version: 1
            name: calm
            seed: 3
            clock: virtual
            target: { customerId: acme, waitingRoomId: launch }
            arrivals: { phases: [ { duration: 2m, rate: 5 } ] }
            waitingRoom: { mode: queue, outflow: 600/min }
            """
        let plain = try RunFixture.virtual(calm + "\nthresholds: [ \"passed >= 99%\" ]\n")
        let guarded = try RunFixture.virtual(
            calm
                + "\nthresholds:\n  - passed >= 99%\n  - { threshold: \"unavailable < 1%\", over: 10s, abortOnFail: true }\n"
        )
        #expect(guarded.report.exitStatus == .success)
        #expect(plain.report.exitStatus == .success)
        let plainRows = try String(contentsOfFile: plain.directory + "/visitors.csv", encoding: .utf8)
        let guardedRows = try String(contentsOfFile: guarded.directory + "/visitors.csv", encoding: .utf8)
        #expect(plainRows == guardedRows)
        #expect(plain.manifest["guardrail_stop"] == nil, "absent without windowed thresholds")
        let verdict = try #require(guarded.report.verdicts.last)
        #expect(verdict.passed)
        #expect(verdict.windows?.failedWindows == 0)
        #expect((verdict.windows?.judgedWindows ?? 0) > 100)
    }

    @Test("the same seed stops at the same instant with the same bytes")
    func deterministic() throws {
        let first = try RunFixture.virtual(Self.storm(thresholds: Self.guardrail), label: "first")
        let second = try RunFixture.virtual(Self.storm(thresholds: Self.guardrail), label: "second")
        #expect(first.report.guardrailTrip == second.report.guardrailTrip)
        for file in ["visitors.csv", "summary.csv", "timeline.csv"] {
            let a = try Data(contentsOf: URL(fileURLWithPath: first.directory + "/" + file))
            let b = try Data(contentsOf: URL(fileURLWithPath: second.directory + "/" + file))
            #expect(a == b, "\(file)")
        }
    }

    @Test("run.maxRequestRate caps the requests of every second on the virtual clock, and is in run.json")
    func maxRequestRateHolds() throws {
        let burst = """
            version: 1
            name: capped
            seed: 5
            clock: virtual
            target: { customerId: acme, waitingRoomId: launch }
            client: { requestTimeout: 5m }
            arrivals: { phases: [ { burst: 300 } ] }
            waitingRoom: { mode: queue, outflow: 6000/min }
            run: { maxRequestRate: 20/s }

            """
        let capped = try RunFixture.virtual(burst)
        capped.expectContract(arrivals: 300)
        #expect(capped.outcomes == ["passed": 300])
        let perSecond = capped.timeline.column("requests").compactMap(Int.init)
        #expect(perSecond.max() == 20, "never more than the cap in a second, and the cap is reached")
        let total = perSecond.reduce(0, +)
        #expect(total == capped.report.requestCount)
        // Every request waited its turn: 300 enqueues and their polls cannot go in under total/20 s.
        #expect(capped.report.durationMs >= Int64((total - 1) * 50))
        #expect(capped.manifest["max_request_rate_per_second"] as? Double == 20)
        // Without the cap the burst's enqueues all go at second 0.
        let free = try RunFixture.virtual(burst.replacingOccurrences(of: "run: { maxRequestRate: 20/s }", with: ""))
        #expect(free.timeline.column("requests").compactMap(Int.init).first ?? 0 >= 300)
        #expect(free.manifest["max_request_rate_per_second"] == nil)
    }
}
