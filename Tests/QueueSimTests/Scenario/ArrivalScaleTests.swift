import Testing

@testable import QueueSim

/// Issue 30: `arrivals.scale` multiplies the arrival plan (rates, bursts, the cap), so "a crowd
/// twice as big" is `--set arrivals.scale=2`.
@Suite("arrivals.scale")
struct ArrivalScaleTests {
    static func scenario(scale: String?, cap: String? = nil) -> String {
        """
        version: 1
        target: { customerId: acme, waitingRoomId: launch }
        arrivals:
          phases:
            - { duration: 10s, rate: 5, rampTo: 15 }
            - { burst: 5 }
            - { pause: 30s }
            - { burst: 1 }
        \(scale.map { "  scale: \($0)\n" } ?? "")\(cap.map { "  maxVisitors: \($0)\n" } ?? "")
        """
    }

    @Test func everyRateAndBurstIsMultipliedAndTheTimelineKeepsItsShape() throws {
        let arrivals = try ScenarioTestSupport.load(Self.scenario(scale: "1.5")).arrivals
        // 5 × 1.5 = 7.5 rounds up to 8; 1 × 1.5 = 1.5 rounds up to 2.
        #expect(
            arrivals.phases == [
                .steady(duration: .seconds(10), rate: 7.5, rampTo: 22.5), .burst(count: 8),
                .pause(duration: .seconds(30)),
                .burst(count: 2),
            ])
        #expect(arrivals.scale == 1.5)
        #expect(arrivals.plannedDuration == .seconds(40))
        #expect(arrivals.plannedVisitorCount == 150 + 8 + 2)
    }

    @Test func aPercentageIsAFactorAndABurstThatRoundsToNobodyIsLeftOut() throws {
        let arrivals = try ScenarioTestSupport.load(Self.scenario(scale: "40%")).arrivals
        // 5 × 0.4 = 2; 1 × 0.4 = 0.4 rounds to no visitor.
        #expect(
            arrivals.phases == [
                .steady(duration: .seconds(10), rate: 2, rampTo: 6), .burst(count: 2), .pause(duration: .seconds(30)),
            ])
    }

    @Test func theCapIsScaledToo() throws {
        #expect(try ScenarioTestSupport.load(Self.scenario(scale: "2", cap: "50")).arrivals.maxVisitors == 100)
        // 4 × 0.1 rounds to no visitor: the cap stays 1.
        #expect(try ScenarioTestSupport.load(Self.scenario(scale: "0.1", cap: "4")).arrivals.maxVisitors == 1)
    }

    @Test func withoutTheKeyThePlanIsUnchanged() throws {
        let plain = try ScenarioTestSupport.load(Self.scenario(scale: nil))
        #expect(plain.arrivals == (try ScenarioTestSupport.load(Self.scenario(scale: "1"))).arrivals)
        #expect(plain.arrivals.scale == 1)
        #expect(plain.arrivals.phases[1] == .burst(count: 5))
    }

    @Test func aBadScaleIsRefusedAtItsPosition() {
        #expect(
            ScenarioTestSupport.problems(Self.scenario(scale: "0")) == [
                "9:10: `arrivals.scale` must be a factor above 0 such as 1.5 or 150%, at most 1,000,000, found `0`"
            ])
        #expect(
            ScenarioTestSupport.problems(Self.scenario(scale: "twice")) == [
                "9:10: `arrivals.scale` must be a factor above 0 such as 1.5 or 150%, at most 1,000,000, found `twice`"
            ])
        #expect(
            ScenarioTestSupport.problems(Self.scenario(scale: "100000")) == [
                "9:10: `arrivals.scale: 100000` makes the fastest phase 1,500,000/s; rates may be at most 1000000 per second"
            ])
    }

    @Test func aPlanScaledPastTheLimitIsRefusedSayingSo() {
        let problems = ScenarioTestSupport.problems(
            """
            version: 1
            target: { customerId: acme, waitingRoomId: launch }
            arrivals:
              phases: [ { burst: 60000000 } ]
              scale: 2
            """)
        #expect(
            problems == [
                "4:11: these phases plan about 120000000 visitors (× 2 by `arrivals.scale`); a run holds at most 100000000 (lower the rates or set `arrivals.maxVisitors`)"
            ])
    }

    @Test func theSetOptionScalesThePlanAndThePreflightFollows() throws {
        let scenario = try ScenarioLoader.load(
            yaml: Self.scenario(scale: nil), path: "test.yaml",
            overrides: [try ScenarioOverride(argument: "arrivals.scale=2")], environment: [:])
        #expect(scenario.arrivals.plannedVisitorCount == 200 + 10 + 2)
        let prepared = try PreparedRun(scenario: scenario, options: RunOptions(clock: .virtual))
        #expect(prepared.summary.visitorCount == 212)
    }
}
