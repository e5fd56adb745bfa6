import Foundation
import QueueClientCore
import Testing

@testable import QueueSim

/// `validate`'s fluid estimate with visitors who give up: the sweep's oracle under the
/// scenario's patience and turn rule (not a third fluid model), held to that oracle exactly and
/// to the virtual engine within `--check-theory`'s tolerances (2 points on shares, 5 % on waits).
@Suite("Fluid estimate with patience", .timeLimit(.minutes(3)))
struct FluidEstimatePatienceTests {
    /// 1,000/min for 5 min into 300/min, exponential patience of mean 5 min.
    static func yaml(turns: AbandonedTurns, outflow: String = "300/min") -> String {
        """
        version: 1
        name: patience-estimate
        seed: 3
        clock: virtual
        target: { customerId: acme, waitingRoomId: launch }
        client: { pollInterval: 2s, maxWait: 2h }
        arrivals: { phases: [ { duration: 5m, rate: 1000/min } ] }
        visitors: [ { name: app, patience: { mean: 5m } } ]
        waitingRoom: { outflow: \(outflow), abandonedTurns: \(turns.rawValue), latency: { enqueue: 0s, queuePage: 0s, jitter: 0s } }
        thresholds: [ "passed >= 60%", "wait.p95 < 4m", "abandoned < 30%" ]
        """
    }

    /// The virtual engine's passed share, abandoned share and wait p95 at one point.
    static func simulated(_ yaml: String) throws -> (passed: Double, abandoned: Double, waitP95Ms: Double) {
        let base = try ScenarioTestSupport.load(yaml)
        let plan = try SweepPlan(
            file: ScenarioTestSupport.path, bytes: Array(yaml.utf8), base: base, overrides: [],
            commandLine: SweepSettings(
                axes: [SweepAxis(key: "arrivals.scale", values: [SweepValue(text: "1", magnitude: 1)])]),
            environment: [:], needsQuestion: false)
        let runs = try SweepRunner(plan: plan, jobs: 1, stopSignal: RunStopSignal()).run()
        let values = try #require(runs.first??.values)
        func figure(_ metric: SweepMetric) throws -> Double {
            try #require(plan.metrics.firstIndex(of: metric).flatMap { values[$0] })
        }
        return (
            try figure(SweepMetric(metric: .outcomeRatio(.passed))), try figure(SweepMetric.abandonedShare),
            try figure(SweepMetric.waitP95)
        )
    }

    @Test("the estimate is the sweep's oracle and the engine agrees", arguments: AbandonedTurns.allCases)
    func theOracleAndTheEngine(turns: AbandonedTurns) throws {
        let scenario = try ScenarioTestSupport.load(Self.yaml(turns: turns))
        let estimate = try #require(FluidEstimate.of(scenario))
        let patience = try #require(estimate.patience)
        let oracle = try #require(TheoryOracle(scenario: scenario))
        // The same model, cut coarser for speed (validate's resolution): within a few tenths
        // of a point and a percent of the sweep's oracle.
        #expect(abs(patience.passedShare - oracle.trajectory.passedShare) < 0.003, "\(patience)")
        #expect(abs(patience.abandonedShare - oracle.trajectory.abandonedShare) < 0.003)
        let oracleP95 = oracle.trajectory.waitPercentile(0.95)
        #expect(abs(patience.waitP95 - oracleP95) < 0.01 * oracleP95, "\(patience.waitP95) vs \(oracleP95)")
        // Those who pass wait less than everyone's p95 (who gave up waited their patience).
        #expect(patience.passedWaitP50 > 0 && patience.passedWaitP50 < patience.passedWaitP95)

        let engine = try Self.simulated(Self.yaml(turns: turns))
        #expect(abs(engine.passed - patience.passedShare) <= TheoryCheck.shareTolerance, "\(engine), \(patience)")
        #expect(abs(engine.abandoned - patience.abandonedShare) <= TheoryCheck.shareTolerance)
        let fluidP95Ms = patience.waitP95 * 1000
        #expect(abs(engine.waitP95Ms - fluidP95Ms) <= TheoryCheck.waitTolerance * fluidP95Ms, "\(engine), \(patience)")
        #expect(estimate.lines[0].hasPrefix("fluid estimate (with patience exponential, mean 5m, turns \(turns)): "))
    }

    /// The outflow a threshold needs is where the model just meets it; the rules differ (a
    /// wasted turn costs the outflow a release, so wasted needs more for the same share).
    @Test func theOutflowEachThresholdNeeds() throws {
        var factors: [AbandonedTurns: Double] = [:]
        for turns in AbandonedTurns.allCases {
            let scenario = try ScenarioTestSupport.load(Self.yaml(turns: turns))
            let estimate = try #require(FluidEstimate.of(scenario))
            #expect(estimate.needs.map(\.threshold) == ["passed >= 60%", "wait.p95 < 4m", "abandoned < 30%"])
            let factor = try #require(estimate.needs[0].factor)
            factors[turns] = factor
            // At the needed outflow 60 % pass (to the search's coarser cut and its 0.5 %); 2 %
            // below it, fewer.
            let needed = try ScenarioTestSupport.load(
                Self.yaml(turns: turns, outflow: "\(Int((300 * factor).rounded(.up)))/min"))
            let passed = try #require(FluidEstimate.of(needed)?.patience?.passedShare)
            #expect(passed >= 0.597 && passed < 0.605, "\(turns): \(passed)")
            let short = try ScenarioTestSupport.load(
                Self.yaml(turns: turns, outflow: "\(Int((300 * factor * 0.98).rounded(.down)))/min"))
            #expect(try #require(FluidEstimate.of(short)?.patience?.passedShare) < 0.6)
            #expect(estimate.lines.contains { $0.hasPrefix("outflow needed for passed >= 60%: about ") })
        }
        #expect(factors[.wasted]! > factors[.skipped]!)
    }

    /// Patience alone can keep a wait threshold: visitors who give up end their waits.
    @Test func aThresholdPatienceAloneKeepsIsSaid() throws {
        let yaml = Self.yaml(turns: .skipped).replacingOccurrences(of: "\"wait.p95 < 4m\"", with: "\"wait.p95 < 1h\"")
        let estimate = try #require(FluidEstimate.of(try ScenarioTestSupport.load(yaml)))
        #expect(estimate.needs[1] == FluidEstimate.Need(threshold: "wait.p95 < 1h", factor: 0))
        #expect(
            estimate.lines.contains(
                "outflow needed for wait.p95 < 1h: any (met whatever the outflow: those who give up end their waits)"))
    }
}
