import Foundation
import Testing

@testable import QueueSim

/// The fluid model the sweep draws beside the simulated wait and holds its answer to.
@Suite("Fluid queue")
struct FluidQueueTests {
    func model(_ phases: [ArrivalPhase], eventStart: Duration = .zero, outflow: Double) -> FluidQueue {
        FluidQueue(arrivals: Arrivals(phases: phases), eventStart: eventStart, outflowPerSecond: outflow)
    }

    @Test func aBurstAtTheEventStartWaits095NOverR() throws {
        // 10,000 at once, 1,000/min: the p95 visitor is 9,500th, released after 9.5 minutes.
        let wait = try #require(model([.burst(count: 10_000)], outflow: 1000.0 / 60).waitPercentile(0.95))
        #expect(abs(wait - 570) < 0.5)
        let median = try #require(model([.burst(count: 10_000)], outflow: 1000.0 / 60).waitPercentile(0.5))
        #expect(abs(median - 300) < 0.5)
    }

    @Test func arrivalsBelowTheOutflowHardlyWait() throws {
        // 5 a second against 10 a second: each visitor is served in a tenth of a second.
        let wait = try #require(
            model([.steady(duration: .seconds(100), rate: 5, rampTo: nil)], outflow: 10).waitPercentile(0.95))
        #expect(wait < 0.2)
    }

    @Test func arrivalsAboveTheOutflowBuildAQueue() throws {
        // 20 a second for 100 s against 10 a second: the visitor arriving at t leaves at 2t,
        // so waits run from 0 to 100 s uniformly over arrivals; the p95 is 95 s.
        let wait = try #require(
            model([.steady(duration: .seconds(100), rate: 20, rampTo: nil)], outflow: 10).waitPercentile(0.95))
        #expect(abs(wait - 95) < 0.5)
    }

    @Test func thePreQueueIsShuffledAtTheEventStart() throws {
        // 600 visitors over the minute before the event start, released at 10 a second from
        // it in a random order: wait = (60 − a) + U·60 with a, U uniform: the p95 of the sum
        // of two uniforms on [0, 60] s is 120 − 60·√0.1 ≈ 101.0 s.
        let wait = try #require(
            model([.steady(duration: .seconds(60), rate: 10, rampTo: nil)], eventStart: .seconds(60), outflow: 10)
                .waitPercentile(0.95))
        #expect(abs(wait - (120 - 60 * 0.1.squareRoot())) < 1)
    }

    @Test func thePatienceClosedForms() {
        // Issue 30's oracles for a burst with exponential patience.
        let n = 10_000.0
        let r = 10.0
        let theta = 480.0
        #expect(
            abs(
                FluidQueue.burstQueueEmptiesSkippingTurns(visitors: n, outflow: r, meanPatience: theta) - theta
                    * log(1 + n / (r * theta))) < 1e-9)
        let passed = FluidQueue.burstPassedWastingTurns(visitors: n, outflow: r, meanPatience: theta)
        #expect(passed < n && passed > 0.85 * r * theta)
        // Patient visitors (θ → ∞): everyone passes when wasted turns cannot happen.
        #expect(abs(FluidQueue.burstPassedWastingTurns(visitors: 100, outflow: 1, meanPatience: 1e9) - 100) < 1e-3)
    }

    @Test func aScheduledOutflowServesAtTheRateInForce() throws {
        // 1,000 at once; 1 a second for 100 s, then 10 a second: the 950th leaves at
        // 100 + 850 / 10 = 185 s.
        let model = FluidQueue(
            arrivals: Arrivals(phases: [.burst(count: 1000)]), eventStart: .zero, outflowPerSecond: 1,
            outflowChanges: [OutflowChange(at: .seconds(100), perSecond: 10)])
        #expect(abs(try #require(model.waitPercentile(0.95)) - 185) < 0.1)
        #expect(abs(model.outflow.released(from: 50, to: 150) - 550) < 1e-9)
        #expect(abs(model.outflow.finish(from: 90, releasing: 20) - 101) < 1e-9)
    }

    @Test func noVisitorsNoWait() {
        #expect(model([], outflow: 10).waitPercentile(0.95) == nil)
    }

    static func patienceScenario(
        phases: String = "[ { burst: 2000 } ]", eventStart: String = "0s", patience: String = "{ mean: 30m }",
        comeback: String = "", turns: String = "skipped", outflow: String = "60/min"
    ) throws -> Scenario {
        try ScenarioLoader.load(
            yaml: """
                version: 1
                name: patience
                target: { customerId: acme, waitingRoomId: launch }
                arrivals: { phases: \(phases) }
                visitors: [ { name: app, patience: \(patience)\(comeback) } ]
                waitingRoom: { eventStart: \(eventStart), outflow: \(outflow), abandonedTurns: \(turns) }
                """, path: "patience.yaml", environment: [:])
    }

    /// The share who give up that the sweep draws beside the simulated one: the closed forms for
    /// N = 2,000, r = 1/s, θ = 1,800 s (rθ = 1,800).
    @Test func theAbandonedShareOfABurstWithExponentialPatience() throws {
        let (n, rTheta) = (2_000.0, 1_800.0)
        let skipped = try #require(FluidQueue.abandonedShare(scenario: Self.patienceScenario()))
        #expect(abs(skipped - (1 - rTheta * log(1 + n / rTheta) / n)) < 1e-12)
        let wasted = try #require(FluidQueue.abandonedShare(scenario: Self.patienceScenario(turns: "wasted")))
        #expect(abs(wasted - (1 - rTheta * (1 - exp(-n / rTheta)) / n)) < 1e-12)
        // Skipping the turns of those who left lets more pass: 0.327 against 0.396 give up.
        #expect(skipped < wasted - 0.05)
        // A burst 10 minutes before the event start: e^(−600/1800) of it is still there at the
        // start (patience is memoryless), and the closed forms run from there.
        let early = try #require(
            FluidQueue.abandonedShare(
                scenario: Self.patienceScenario(eventStart: "10m", turns: "wasted")))
        #expect(abs(early - (1 - exp(-600.0 / 1800) * rTheta * (1 - exp(-n / rTheta)) / n)) < 1e-12)
    }

    @Test func noAbandonedShareWhereTheClosedFormsDoNotApply() throws {
        // Fixed patience, comebacks, arrivals over time, a scheduled outflow: no prediction.
        #expect(FluidQueue.abandonedShare(scenario: try Self.patienceScenario(patience: "{ fixed: 10m }")) == nil)
        #expect(
            FluidQueue.abandonedShare(
                scenario: try Self.patienceScenario(comeback: ", comeback: { share: 30%, after: { mean: 2m } }"))
                == nil)
        #expect(
            FluidQueue.abandonedShare(
                scenario: try Self.patienceScenario(phases: "[ { duration: 10m, rate: 5 } ]")) == nil)
        #expect(
            FluidQueue.abandonedShare(
                scenario: try Self.patienceScenario(
                    outflow: "[ { at: 0s, rate: 60/min }, { at: 10m, rate: 120/min } ]")) == nil)
        // Without patience the wait percentile is the model's figure, not this one.
        #expect(
            FluidQueue.abandonedShare(
                scenario: try ScenarioLoader.load(
                    yaml: """
                        version: 1
                        name: patient
                        target: { customerId: acme, waitingRoomId: launch }
                        arrivals: { phases: [ { burst: 100 } ] }
                        waitingRoom: { outflow: 60/min }
                        """, path: "patient.yaml", environment: [:])) == nil)
    }
}
