import Foundation
import Testing

@testable import QueueSim

/// Numbers the validator used to let through and that then crashed or exhausted the process
/// (issue 12, item 4): each is refused at its position, and the edge of each range is accepted.
@Suite("scenario: every number has a range")
struct ScenarioLimitsTests {
    static let base = """
        version: 1
        target: { customerId: acme, waitingRoomId: launch }

        """

    func problems(_ yaml: String) -> [String] {
        ScenarioTestSupport.problems(Self.base + yaml)
    }

    @Test func aRateAboveAMillionPerSecondIsRefused() {
        #expect(
            problems("arrivals: { phases: [ { rate: 100000000000/s, duration: 10s } ] }") == [
                "3:31: `arrivals.phases[0].rate` must be at most 1000000 per second, found 100000000000/s"
            ])
        #expect(problems("arrivals: { phases: [ { rate: 1000000, duration: 10s } ] }").isEmpty)
    }

    @Test func aRampAboveTheRateLimitIsRefused() {
        #expect(
            problems("arrivals: { phases: [ { rate: 1, rampTo: 60000001/min, duration: 10s } ] }") == [
                "3:42: `arrivals.phases[0].rampTo` must be at most 1000000 per second, found 60000001/min"
            ])
    }

    @Test func aBurstNearIntMaxIsRefused() {
        #expect(
            problems("arrivals: { phases: [ { burst: 9223372036854775807 } ] }") == [
                "3:32: `arrivals.phases[0].burst` must be from 1 to 100000000 visitors, found 9223372036854775807"
            ])
        #expect(problems("arrivals: { phases: [ { burst: 100000000 } ] }").isEmpty)
    }

    @Test func aPlanOfMoreThanAHundredMillionVisitorsIsRefusedAtThePhases() {
        #expect(
            problems("arrivals: { phases: [ { rate: 1000000, duration: 1000s } ] }") == [
                "3:21: these phases plan about 1000000000 visitors; a run holds at most 100000000 (lower the rates or set `arrivals.maxVisitors`)"
            ])
        // Two bursts each within range add up past it.
        #expect(
            problems("arrivals: { phases: [ { burst: 60000000 }, { burst: 60000000 } ] }").first?.hasPrefix(
                "3:21: these phases plan about 120000000 visitors") == true)
        // A cap brings the plan back into range.
        #expect(
            problems("arrivals: { maxVisitors: 1000, phases: [ { rate: 1000000, duration: 1000s } ] }").isEmpty)
    }

    @Test func durationsBeyondAYearAreRefused() {
        #expect(
            problems("arrivals: { phases: [ { burst: 10 }, { pause: 100000h }, { burst: 10 } ] }") == [
                "3:47: `arrivals.phases[1].pause` must be at most 366 days (8784h), found 100000h"
            ])
        #expect(
            problems("client: { maxWait: 9000h }\narrivals: { phases: [ { burst: 1 } ] }") == [
                "3:20: `client.maxWait` must be at most 366 days (8784h), found 9000h"
            ])
        #expect(problems("run: { duration: 8784h }\narrivals: { phases: [ { burst: 1 } ] }").isEmpty)
    }

    @Test func phasesThatTogetherLastMoreThanAYearAreRefused() {
        #expect(
            problems("arrivals: { phases: [ { pause: 8000h }, { duration: 8000h, rate: 0.001 } ] }") == [
                "3:21: these phases last 16000h in all; the arrival plan may last at most 366 days (8784h)"
            ])
    }

    @Test func anOutflowThatReleasesNobodyInAYearIsRefused() {
        #expect(
            problems("waitingRoom: { outflow: 0.00000000001/min }\narrivals: { phases: [ { burst: 10 } ] }") == [
                "3:25: `waitingRoom.outflow` must let at least one visitor through within a year (366 days (8784h)), found 0.00000000001/min"
            ])
        #expect(problems("waitingRoom: { outflow: 1/h }\narrivals: { phases: [ { burst: 10 } ] }").isEmpty)
    }

    @Test func anOutflowSlowerThanTheRunIsAFairRehearsalOfEveryoneQueued() {
        #expect(
            problems("waitingRoom: { outflow: 1/h }\nrun: { duration: 10m }\narrivals: { phases: [ { burst: 10 } ] }")
                .isEmpty)
    }

    @Test func restartsConcurrencyAndWeightsHaveUpperBounds() {
        #expect(
            problems("client: { maxRestarts: 9223372036854775807 }\narrivals: { phases: [ { burst: 1 } ] }") == [
                "3:24: `client.maxRestarts` must be from 0 to 1000, found 9223372036854775807"
            ])
        #expect(
            problems("run: { concurrency: 9223372036854775807 }\narrivals: { phases: [ { burst: 1 } ] }") == [
                "3:21: `run.concurrency` must be from 1 to 10000000, found 9223372036854775807"
            ])
        #expect(
            problems(
                "arrivals: { phases: [ { burst: 1 } ] }\nvisitors: [ { name: a, weight: 1e300 }, { name: b } ]") == [
                    "4:32: `visitors[0].weight` must be more than 0 and at most 1000000000, found 1e+300"
                ])
    }
}
