import Foundation
import Testing

/// `validate` with visitors who give up: the share passing, the waits of those who pass, the
/// peak queue and the outflow each threshold needs, under the scenario's patience and turn
/// rule, said on the line; a virtual run of the same file lands within `--check-theory`'s
/// tolerances of what validate printed (2 points on shares, 5 % on waits, plus its rounding).
@Suite("queuesim validate: the fluid estimate with patience", .serialized, .timeLimit(.minutes(3)))
struct ValidatePatienceCommandTests {
    /// 1,000/min for 5 min into 300/min, exponential patience of mean 5 min, wasted turns: about
    /// 39 % pass (the model without abandonment would have said everyone does).
    static let yaml = """
        version: 1
        name: patience-validate
        seed: 3
        clock: virtual
        target: { customerId: acme, waitingRoomId: launch }
        client: { pollInterval: 2s, maxWait: 2h }
        arrivals: { phases: [ { duration: 5m, rate: 1000/min } ] }
        visitors: [ { name: app, patience: { mean: 5m } } ]
        waitingRoom: { outflow: 300/min, abandonedTurns: wasted, latency: { enqueue: 0s, queuePage: 0s, jitter: 0s } }
        thresholds: [ "passed >= 60%" ]
        """

    @Test func validateSaysWhoPassesAndTheRunAgrees() throws {
        let file = try TemporaryScenario(Self.yaml)
        let validate = try QueueSimProcess.run(["validate", file.path])
        #expect(validate.status == 0, "\(validate.stderr)")
        let out = validate.stdout
        let prefix = "  estimate    fluid estimate (with patience exponential, mean 5m, turns wasted): about "
        #expect(out.contains(prefix), "\(out)")
        let passedPercent = try #require(ValidateEstimateCommandTests.number(after: prefix, in: out), "\(out)")
        let passedP50 = try #require(
            ValidateEstimateCommandTests.wait(after: "those who pass wait p50 about ", in: out), "\(out)")
        let passedP95 = try #require(ValidateEstimateCommandTests.wait(after: ", p95 about ", in: out), "\(out)")
        #expect(out.contains("wait p95 of all who queued (as wait thresholds judge it) about "), "\(out)")
        let peak = try #require(ValidateEstimateCommandTests.number(after: "peak queue about ", in: out))
        #expect(peak > 500, "\(out)")
        let needed = try #require(
            ValidateEstimateCommandTests.number(after: "outflow needed for passed >= 60%: about ", in: out), "\(out)")
        #expect(needed > 300, "\(out)")
        #expect(!out.contains("leaves out visitors who give up"), "\(out)")

        let directory = RunCommandProcess.reportDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let run = try RunCommandProcess.run(["run", file.path, "--out", directory, "--quiet"], limit: .seconds(90))
        #expect(run.status == 1, "\(run.stderr)")  // 39 % pass: the threshold fails
        let summary = try RunCommandProcess.rows(directory, "summary.csv")
        let column = { (name: String) in summary.header.firstIndex(of: name)! }
        let passed = try #require(summary.rows.first { $0[0] == "all" && $0[1] == "passed" }, "\(summary.rows)")
        let ratio = try #require(Double(passed[column("ratio")]))
        // validate rounds the share to a whole percent.
        #expect(abs(ratio * 100 - passedPercent) <= 2 + 0.5, "run \(ratio), validate \(passedPercent)%")
        for (simulatedMs, printed) in [
            (Double(passed[column("wait_p50_ms")]), passedP50), (Double(passed[column("wait_p95_ms")]), passedP95),
        ] {
            let simulated = try #require(simulatedMs) / 1000
            // 5 %, plus a second of validate's rounding and one poll interval (2 s) a visitor
            // waits for the news of its turn.
            #expect(abs(simulated - printed) <= 0.05 * printed + 3, "run \(simulated) s, validate \(printed) s")
        }
    }
}
