import Foundation
import QueueClientCore
import Testing

@testable import QueueSim

/// `sweep --check-theory` over a plan: each point's oracle and verdict, sweep.csv's columns,
/// and the screen's lines; the wrong rule's oracle fails every point.
@Suite("theory: the sweep's check", .timeLimit(.minutes(3)))
struct SweepTheoryTests {
    static let yaml = """
        version: 1
        name: theory-sweep
        seed: 3
        clock: virtual
        target: { customerId: acme, waitingRoomId: launch }
        client: { pollInterval: 2s, maxWait: 2h }
        arrivals: { phases: [ { duration: 6m, rate: 1000/min } ] }
        visitors: [ { name: app, patience: { mean: 10m } } ]
        waitingRoom: { outflow: 600/min, abandonedTurns: wasted, latency: { enqueue: 0s, queuePage: 0s, jitter: 0s } }
        thresholds: [ "passed >= 50%" ]
        """

    static func results() throws -> SweepResults {
        let base = try ScenarioTestSupport.load(Self.yaml)
        let outflows = ["400/min", "800/min"].map { SweepValue(text: $0, magnitude: Double($0.prefix(3))! / 60) }
        let plan = try SweepPlan(
            file: ScenarioTestSupport.path, bytes: Array(Self.yaml.utf8), base: base, overrides: [],
            commandLine: SweepSettings(axes: [SweepAxis(key: "waitingRoom.outflow", values: outflows)]),
            environment: [:], needsQuestion: false)
        let runs = try SweepRunner(plan: plan, jobs: 2, stopSignal: RunStopSignal()).run()
        return SweepResults(plan: plan, runs: runs)
    }

    @Test func eachPointAgainstItsOracleAndTheWrongRuleFails() throws {
        let results = try Self.results()
        let theory = SweepTheory(results: results)
        #expect(theory.checks.allSatisfy { $0 != nil })
        #expect(theory.passed, "\(theory.lines)")
        #expect(theory.lines == ["theory check: 2 points within 2 points (shares) and 5 % (waits) of the theory"])
        #expect(theory.header.contains("oracle_passed_share") && theory.header.contains("oracle_wait_p95_ms"))
        #expect(theory.header.last == "theory")
        let passedColumn = try #require(theory.header.firstIndex(of: "oracle_passed_share"))
        let cells = theory.cells(point: 0, verdict: true)
        #expect(cells.last == "pass" && theory.cells(point: 0, verdict: false).last == "")
        // 400/min against 1,000/min for 6 min, θ = 10 min: many give up; twice the outflow,
        // fewer.
        let share = try #require(Double(cells[passedColumn]))
        let doubled = try #require(Double(theory.cells(point: 1, verdict: true)[passedColumn]))
        #expect(share > 0.3 && share < 0.8 && doubled > share + 0.1, "\(share), \(doubled)")

        let wrong = SweepTheory(results: results, turns: .skipped)
        #expect(wrong.failingPoints == [0, 1])
        #expect(wrong.cells(point: 1, verdict: true).last == "fail")
        #expect(wrong.lines.count == 2)
        #expect(
            wrong.lines[0].hasPrefix(
                "theory check against skipped turns: point 1 (waitingRoom.outflow=400/min) fails: passed_share "))
    }

    /// A room the theory does not cover (scripted faults) has no oracle: nothing is judged.
    @Test func noOracleNoVerdict() throws {
        let faulty = Self.yaml.replacingOccurrences(
            of: "abandonedTurns: wasted,", with: "abandonedTurns: wasted, faults: [ { from: 1m, to: 2m, mode: idle } ],"
        )
        #expect(TheoryOracle(scenario: try ScenarioTestSupport.load(faulty)) == nil)
        #expect(TheoryOracle(scenario: try ScenarioTestSupport.load(Self.yaml)) != nil)
    }
}
