import Foundation
import Testing

@testable import QueueSim

/// Issue 52, item 5: what `validate` says about a queue before any run, from the fluid model,
/// held to closed forms a reader can check by hand.
@Suite("Fluid estimate")
struct FluidEstimateTests {
    static func scenario(
        phases: String, outflow: String, maxWait: String = "30m", eventStart: String = "0s", thresholds: String = "[]",
        extra: String = ""
    ) throws -> Scenario {
        try ScenarioTestSupport.load(
            """
            version: 1
            target: { customerId: acme, waitingRoomId: launch }
            client: { maxWait: \(maxWait) }
            arrivals: { phases: \(phases) }
            waitingRoom: { outflow: \(outflow), eventStart: \(eventStart) }
            thresholds: \(thresholds)
            \(extra)
            """)
    }

    @Test func theLaunchQuestionIsAnsweredInClosedForm() throws {
        // 300,000 over 10 minutes (30,000/min) against 5,000/min from the start: the visitor
        // arriving at t minutes leaves at 6t, so waits are 5t, uniform on 0…50 minutes.
        let scenario = try Self.scenario(
            phases: "[ { duration: 10m, rate: 500/s } ]", outflow: "5000/min", thresholds: "[ \"wait.p95 < 20m\" ]")
        let estimate = try #require(FluidEstimate.of(scenario))
        #expect(abs(estimate.waitP50 - 25 * 60) / (25 * 60) < 0.01)
        #expect(abs(estimate.waitP95 - 47.5 * 60) / (47.5 * 60) < 0.01)
        // Waits of at most 30 minutes: those who arrive in the first 6 minutes, 60 %.
        #expect(abs(estimate.shareWithinMaxWait - 0.6) < 0.01)
        // The queue peaks as the last arrives: 300,000 in, 50,000 out.
        #expect(abs(estimate.peakQueue - 250_000) / 250_000 < 0.01)
        #expect(abs(estimate.peakQueueAt - 600) < 1)
        // wait.p95 < 20m: the 95th percentile arrives at 9.5 minutes and waits 9.5·(30,000/μ − 1).
        let needed = 30_000 / (1 + 20 / 9.5)
        let factor = try #require(estimate.needs.first?.factor)
        #expect(abs(factor * 5000 - needed) / needed < 0.01)
        #expect(estimate.leftOut.isEmpty)
    }

    @Test func aSingleBurstWaitsItsPlaceOverTheOutflow() throws {
        // N = 100,000 at once, μ = 5,000/min: the last waits N/μ = 20 minutes, the p95 0.95·N/μ,
        // and wait.p95 < 10m needs 0.95·N/10 = 9,500/min.
        let scenario = try Self.scenario(
            phases: "[ { burst: 100000 } ]", outflow: "5000/min", maxWait: "1h",
            thresholds: "[ \"wait.p95 < 10m\", \"wait.max <= 15m\", \"wait.p50 > 1m\" ]")
        let estimate = try #require(FluidEstimate.of(scenario))
        #expect(abs(estimate.waitP95 - 0.95 * 20 * 60) / (0.95 * 20 * 60) < 0.01)
        #expect(abs(estimate.waitP50 - 10 * 60) / (10 * 60) < 0.01)
        #expect(estimate.shareWithinMaxWait == 1)
        #expect(abs(estimate.peakQueue - 100_000) < 1)
        // A lower bound (`>`) asks for no outflow: only `<` and `<=` on wait are answered.
        #expect(estimate.needs.map(\.threshold) == ["wait.p95 < 10m", "wait.max <= 15m"])
        let forP95: Double = try #require(estimate.needs[0].factor) * 5000
        let forMax: Double = try #require(estimate.needs[1].factor) * 5000
        #expect(abs(forP95 - 9500) / 9500 < 0.01)
        #expect(abs(forMax - 100_000.0 / 15) / (100_000.0 / 15) < 0.01)
        #expect(
            estimate.lines == [
                "fluid estimate: wait p50 about 10m 0s, p95 about 19m 0s",
                "all get through within maxWait 1h; peak queue about 100,000 visitors (at 0s)",
                "outflow needed for wait.p95 < 10m: about 9,500/min",
                "outflow needed for wait.max <= 15m: about 6,670/min",
            ])
    }

    @Test func aScheduleIsScaledAsAWhole() throws {
        // 1,000 at once; 60/min for 2 minutes, then 600/min: a threshold is met by scaling both.
        let scenario = try Self.scenario(
            phases: "[ { burst: 1000 } ]", outflow: "[ { at: 0s, rate: 60/min }, { at: 2m, rate: 600/min } ]",
            thresholds: "[ \"wait.p95 < 100s\" ]")
        let estimate = try #require(FluidEstimate.of(scenario))
        // At factor k the first 100 s release 100k: the 950th leaves at 100 s when k = 9.5.
        let factor = try #require(estimate.needs.first?.factor)
        #expect(abs(factor - 9.5) < 0.01)
        #expect(
            estimate.lines.last
                == "outflow needed for wait.p95 < 100s: about 9.5× the schedule: 570/min, 5,700/min from 2m")
    }

    @Test func aThresholdNoOutflowMeetsIsSaid() throws {
        // Everyone arrives a minute before the event start: none can wait under 30 s.
        let scenario = try Self.scenario(
            phases: "[ { burst: 1000 } ]", outflow: "600/min", eventStart: "1m", thresholds: "[ \"wait.p95 < 30s\" ]")
        let estimate = try #require(FluidEstimate.of(scenario))
        #expect(estimate.needs == [FluidEstimate.Need(threshold: "wait.p95 < 30s", factor: nil)])
        #expect(estimate.lines.last?.contains("none is enough") == true)
    }

    /// Groups that give up differently are one crowd the model with abandonment cannot hold
    /// (one patience for all): left out and said so. (The same patience everywhere is
    /// modelled: FluidEstimatePatienceTests.)
    @Test func whatTheModelLeavesOutIsNamed() throws {
        let scenario = try Self.scenario(
            phases: "[ { burst: 1000 } ]", outflow: "600/min",
            extra:
                "visitors: [ { name: app, weight: 1, patience: { mean: 5m } }, { name: web, weight: 1, patience: { mean: 9m } } ]"
        )
        let estimate = try #require(FluidEstimate.of(scenario))
        #expect(estimate.patience == nil)
        #expect(estimate.leftOut == ["visitors who give up (the groups' patience differs)"])
        #expect(
            estimate.lines[0].hasPrefix(
                "fluid estimate (leaves out visitors who give up (the groups' patience differs)): "))
    }

    @Test func noQueueNoEstimate() throws {
        let scenario = try ScenarioTestSupport.load(
            """
            version: 1
            target: { customerId: acme, waitingRoomId: launch, endpoint: "http://127.0.0.1:9" }
            arrivals: { phases: [ { burst: 10 } ] }
            """)
        #expect(FluidEstimate.of(scenario) == nil)
    }

    @Test(arguments: [0.5, 0.95, 0.99])
    func theWaitsAreTheSweepsFluidModel(fraction: Double) throws {
        // A ramp before and after a late event start, with a scheduled outflow: the held
        // distribution answers exactly what `waitPercentile` (the sweep's fluid line) does.
        let model = FluidQueue(
            arrivals: Arrivals(phases: [
                .steady(duration: .seconds(120), rate: 10, rampTo: 40), .burst(count: 4000),
                .steady(duration: .seconds(600), rate: 5, rampTo: nil),
            ]), eventStart: .seconds(120), outflowPerSecond: 8,
            outflowChanges: [OutflowChange(at: .seconds(300), perSecond: 12)])
        let waits = try #require(model.waits(sliceArrivals: model.sliceArrivals()))
        let expected = try #require(model.waitPercentile(fraction))
        #expect(abs(waits.percentile(fraction) - expected) < 1e-3)
    }

    @Test func theBusiestSecondCountsABurst() {
        // launch.yaml: a ramp 20 → 150/s over 10 s, 800 at once at 10 s, then 50/s: the
        // busiest second is the ramp's last (143.5) plus the burst.
        let arrivals = Arrivals(phases: [
            .steady(duration: .seconds(10), rate: 20, rampTo: 150), .burst(count: 800),
            .steady(duration: .seconds(5), rate: 50, rampTo: nil),
        ])
        #expect(abs(arrivals.busiestSecond - 943.5) < 0.01)
        #expect(Arrivals(phases: [.steady(duration: .seconds(60), rate: 25, rampTo: nil)]).busiestSecond == 25)
    }
}

extension FluidEstimateTests {
    @Test func theWarningAndTheEstimateAreOneModel() throws {
        // 60,000 over the 10 minutes before the event start, 3,000/min from it: the pre-queue
        // is released in a random order, so a quarter get through within 10 minutes (first come
        // first served would say nobody). The stderr warning says what the estimate says.
        let scenario = try Self.scenario(
            phases: "[ { duration: 10m, rate: 100/s } ]", outflow: "3000/min", maxWait: "10m", eventStart: "10m")
        let estimate = try #require(FluidEstimate.of(scenario))
        #expect(abs(estimate.shareWithinMaxWait - 0.25) < 0.001)
        let warning = try #require(try OutflowEstimate.of(scenario, visitors: nil))
        #expect(warning.pastMaxWait == 45_000)
        #expect(Double(warning.waitP95Ms) == (estimate.waitP95 * 1000).rounded())
    }
}

extension FluidEstimateTests {
    @Test func aRunThatStopsBeforeTheQueueEmptiesIsSaid() throws {
        // 1,000 at once, 600/min: the queue empties at 100 s, after a 60 s run stops.
        let scenario = try Self.scenario(
            phases: "[ { burst: 1000 } ]", outflow: "600/min", extra: "run: { duration: 1m }")
        let estimate = try #require(FluidEstimate.of(scenario))
        #expect(abs(estimate.emptiesAt - 100) < 0.01)
        #expect(
            estimate.lines.contains(
                "the queue empties at about 1m 40s, after the run stops at 1m (run.duration): waits still open then are cut there"
            ))
        let long = try Self.scenario(phases: "[ { burst: 1000 } ]", outflow: "600/min", extra: "run: { duration: 2m }")
        #expect(try #require(FluidEstimate.of(long)).lines.allSatisfy { !$0.contains("empties") })
    }
}
