import Foundation
import QueueClientCore
import Testing

@testable import QueueSim

/// Issue 53's `noShow` in the one fluid model: a share of the visitors whose turn goes unused
/// whatever their wait. `validate`'s estimate and the sweep's oracle count them as leaving at
/// once (outcome `abandoned`, wait 0), their tickets costing a turn by the room's rule (always
/// under `wasted`, within the room's 60 s of silence under `skipped`); the virtual engine
/// agrees within `--check-theory`'s tolerances.
@Suite("Fluid estimate with no-shows", .timeLimit(.minutes(3)))
struct FluidEstimateNoShowTests {
    /// 1,000/min for 5 min into 300/min, a fifth of the visitors no-shows, nobody else leaving.
    static func yaml(turns: AbandonedTurns, groups: String = "[ { name: app, noShow: 20% } ]") -> String {
        """
        version: 1
        name: no-show-estimate
        seed: 3
        clock: virtual
        target: { customerId: acme, waitingRoomId: launch }
        client: { pollInterval: 2s, maxWait: 2h }
        arrivals: { phases: [ { duration: 5m, rate: 1000/min } ] }
        visitors: \(groups)
        waitingRoom: { outflow: 300/min, abandonedTurns: \(turns.rawValue), latency: { enqueue: 0s, queuePage: 0s, jitter: 0s } }
        thresholds: [ "passed >= 90%" ]
        """
    }

    @Test("the estimate counts the no-shows and the engine agrees", arguments: AbandonedTurns.allCases)
    func theEstimateAndTheEngine(turns: AbandonedTurns) throws {
        let scenario = try ScenarioTestSupport.load(Self.yaml(turns: turns))
        let estimate = try #require(FluidEstimate.of(scenario))
        let noShows = try #require(estimate.patience, "validate's estimate must count the no-shows")
        #expect(abs(noShows.abandonedShare - 0.2) < 0.003, "\(noShows)")
        #expect(abs(noShows.passedShare - 0.8) < 0.003, "\(noShows)")
        #expect(estimate.lines[0].hasPrefix("fluid estimate (with no-shows 20%, turns \(turns)): about 80% pass"))
        // The sweep's oracle is the same model.
        let oracle = try #require(TheoryOracle(scenario: scenario))
        #expect(abs(oracle.trajectory.abandonedShare - 0.2) < 0.003)

        let engine = try FluidEstimatePatienceTests.simulated(Self.yaml(turns: turns))
        #expect(abs(engine.passed - noShows.passedShare) <= TheoryCheck.shareTolerance, "\(engine), \(noShows)")
        #expect(abs(engine.abandoned - noShows.abandonedShare) <= TheoryCheck.shareTolerance)
        let fluidP95Ms = noShows.waitP95 * 1000
        #expect(abs(engine.waitP95Ms - fluidP95Ms) <= TheoryCheck.waitTolerance * fluidP95Ms, "\(engine), \(noShows)")
    }

    /// Under wasted turns everyone else waits as long as without no-shows; under skipped turns
    /// the room skips their numbers, so those who pass wait less.
    @Test func theTurnRuleDecidesWhetherNoShowsShortenTheWaits() throws {
        let everyoneStays = try #require(
            FluidEstimate.of(try ScenarioTestSupport.load(Self.yaml(turns: .wasted, groups: "[ { name: app } ]"))))
        #expect(everyoneStays.patience == nil)
        let wasted = try #require(FluidEstimate.of(try ScenarioTestSupport.load(Self.yaml(turns: .wasted)))?.patience)
        let skipped = try #require(FluidEstimate.of(try ScenarioTestSupport.load(Self.yaml(turns: .skipped)))?.patience)
        // The stepped model against the exact one: within 2 %.
        #expect(abs(wasted.passedWaitP95 - everyoneStays.waitP95) < 0.02 * everyoneStays.waitP95, "\(wasted)")
        #expect(skipped.passedWaitP95 < 0.9 * wasted.passedWaitP95, "\(skipped) vs \(wasted)")
    }

    /// A no-show is drawn for each visitor apart from its group's other behaviour, so the
    /// groups' shares pool by weight; groups without any leave the estimate as it was.
    @Test func theGroupsNoShowsPoolByWeight() throws {
        let groups = "[ { name: app, weight: 3, noShow: 20% }, { name: web, weight: 1 } ]"
        let scenario = try ScenarioTestSupport.load(Self.yaml(turns: .wasted, groups: groups))
        #expect(abs(try #require(FluidCrowd(groups: scenario.groups)).noShow - 0.15) < 1e-12)
        let estimate = try #require(FluidEstimate.of(scenario)?.patience)
        #expect(abs(estimate.abandonedShare - 0.15) < 0.003, "\(estimate)")
        // The sweep's everyone-stays wait is not offered where visitors leave early.
        #expect(FluidQueue(scenario: scenario) == nil)
    }
}
