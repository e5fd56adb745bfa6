import Foundation
import Testing

/// `sweep --check-theory --theory-turns`: a sweep whose visitors give up, held to the other turn
/// rule's oracle, fails (exit 1) naming the point and the figure; held to its own rule, it
/// passes. sweep.json carries each point's oracle values and differences.
@Suite("queuesim sweep --theory-turns", .serialized, .timeLimit(.minutes(5)))
struct SweepTheoryRuleCommandTests {
    static func json(_ directory: String) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: directory + "/sweep.json"))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// 1,000/min for 5 min into 300/min, θ = 5 min, skipped turns: about 53 % pass. Held to
    /// the wasted rule (every left visitor's turn lost: about 39 %) the point fails.
    static let patientScenario = SweepTheoryCommandTests.scenario(rate: "1000/min")
        .replacingOccurrences(of: "patience: { mean: 10m }", with: "patience: { mean: 5m }")
    @Test("a skipped-turns sweep checked against wasted turns is exit 1; against its own rule, exit 0")
    func theWrongRuleFailsAndTheRightOnePasses() async throws {
        let scenario = try TemporaryScenario(Self.patientScenario)
        let out = RunCommandProcess.reportDirectory()
        defer { try? FileManager.default.removeItem(atPath: out) }
        let arguments = [
            "sweep", scenario.path, "--out", out, "--no-progress", "--vary", "waitingRoom.outflow=300/min",
            "--check-theory",
        ]
        let wrong = try await QueueSimProcess.runOffPool(
            arguments + ["--theory-turns", "wasted"], limit: .seconds(120))
        #expect(wrong.status == 1, "\(wrong.stderr)")
        #expect(
            wrong.stderr.contains(
                "queuesim sweep: theory check against wasted turns: point 1 (waitingRoom.outflow=300/min) fails: passed_share 52.6% against the theory's 38.7%"
            ), "\(wrong.stderr)")
        let wrongJSON = try Self.json(out)
        let check = try #require(wrongJSON["theory_check"] as? [String: Any])
        #expect(check["turns"] as? String == "wasted" && check["passed"] as? Bool == false)
        #expect(check["failing_points"] as? [Int] == [1])
        #expect(wrongJSON["exit_code"] as? Int == 1)

        let right = try await QueueSimProcess.runOffPool(
            arguments + ["--theory-turns", "skipped"], limit: .seconds(120))
        #expect(right.status == 0, "\(right.stderr)")
        #expect(
            right.stderr.contains(
                "theory check against skipped turns: 1 point within 2 points (shares) and 5 % (waits) of the theory"),
            "\(right.stderr)")
        let document = try Self.json(out)
        #expect((document["theory_check"] as? [String: Any])?["passed"] as? Bool == true)
        let point = try #require((document["points"] as? [[String: Any]])?.first)
        let theory = try #require(point["theory"] as? [String: Any])
        #expect(theory["turns"] as? String == "skipped" && theory["verdict"] as? String == "pass")
        let figures = try #require(theory["figures"] as? [String: [String: Any]])
        #expect(Set(figures.keys).isSuperset(of: ["passed_share", "abandoned_share", "wait_p95_ms"]))
        // The oracle is sweep.csv's; the difference is the point's mean less it.
        let passed = try #require(figures["passed_share"])
        let oracle = try #require(passed["oracle"] as? Double)
        let difference = try #require(passed["difference"] as? Double)
        let mean = try #require(
            ((point["figures"] as? [String: Any])?["passed_share"] as? [String: Any])?["mean"] as? Double)
        #expect(abs(mean - oracle - difference) < 1e-5 && abs(difference) <= 0.02 && passed["pass"] as? Bool == true)
        let rows = try SweepTheoryCommandTests.csv(out)
        let column = try #require(rows[0].firstIndex(of: "oracle_passed_share"))
        let csvOracle = try #require(rows.first { $0.first == "point" }.flatMap { Double($0[column]) })
        #expect(abs(csvOracle - oracle) < 1e-5)
        #expect(oracle > 0.48 && oracle < 0.58, "\(oracle)")
    }

    @Test("--theory-turns is refused without --check-theory or with another word (exit 2)")
    func refusals() async throws {
        let scenario = try TemporaryScenario(SweepTheoryCommandTests.scenario(rate: "1000/min"))
        let alone = try await QueueSimProcess.runOffPool(
            ["sweep", scenario.path, "--vary", "waitingRoom.outflow=600/min", "--theory-turns", "wasted"],
            limit: .seconds(30))
        #expect(
            alone.status == 2 && alone.stderr.contains("--theory-turns wasted needs --check-theory"), "\(alone.stderr)")
        let other = try await QueueSimProcess.runOffPool(
            ["sweep", scenario.path, "--check-theory", "--theory-turns", "lost"], limit: .seconds(30))
        #expect(
            other.status == 2 && other.stderr.contains("--theory-turns lost: expected wasted or skipped"),
            "\(other.stderr)")
    }
}
