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
        #expect(abs(model.released(from: 50, to: 150) - 550) < 1e-9)
        #expect(abs(model.finish(from: 90, releasing: 20) - 101) < 1e-9)
    }

    @Test func noVisitorsNoWait() {
        #expect(model([], outflow: 10).waitPercentile(0.95) == nil)
    }
}
