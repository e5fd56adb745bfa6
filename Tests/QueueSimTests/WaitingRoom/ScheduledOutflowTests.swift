import QueueClientCore
import Testing

@testable import QueueSim

/// Issue 30: `waitingRoom.outflow: [ { at: 0s, rate: 30/min }, { at: 20s, rate: 60/min } ]` —
/// an operator raising Max Outflow during the event. Each release comes 1/μ after the one
/// before, μ the rate in force at that earlier release.
@Suite("scheduled outflow")
struct ScheduledOutflowTests {
    static let raised = [OutflowChange(at: .seconds(20), perSecond: 1)]

    static func room(eventStart: Duration = .zero, changes: [OutflowChange] = raised) -> WaitingRoomModel {
        var configuration = RoomFixture.configuration(eventStart: eventStart, outflowPerMinute: 30)
        configuration.settings.outflowChanges = changes
        return WaitingRoomModel(configuration: configuration)
    }

    /// Release instants in whole milliseconds, in release order.
    static func releaseMilliseconds(_ model: WaitingRoomModel, count: Int) -> [Int64] {
        (1...count).map { model.releaseInstant(ofQueueNumber: $0).map { $0.milliseconds } ?? -1 }
    }

    @Test func aBurstIsReleasedAtTheFirstRateThenAtTheRaisedRate() {
        var model = Self.room()
        for _ in 0..<30 { _ = model.enqueue(enqueueKey: nil, enqueueToken: nil, at: RoomFixture.at(0)) }
        // 30/min: one every 2 s until 20 s (0, 2, …, 18 and the one due at 20), then one a second.
        let expected = (0..<10).map { Int64($0) * 2000 } + (0..<20).map { 20_000 + Int64($0) * 1000 }
        #expect(Self.releaseMilliseconds(model, count: 30) == expected)
    }

    @Test func aPreQueueIsSealedOnTheSameSchedule() {
        var model = Self.room(eventStart: .seconds(10), changes: [OutflowChange(at: .seconds(14), perSecond: 2)])
        for _ in 0..<6 { _ = model.enqueue(enqueueKey: nil, enqueueToken: nil, at: RoomFixture.at(1)) }
        // The first poll after event start seals the pre-queue: 10, 12, 14 s at 30/min, then
        // every 0.5 s at 120/min.
        _ = model.queuePage(ticket: 0, at: RoomFixture.at(10))
        #expect(Self.releaseMilliseconds(model, count: 6) == [10_000, 12_000, 14_000, 14_500, 15_000, 15_500])
    }

    @Test func theQueuePageForecastFollowsTheSchedule() {
        var model = Self.room()
        for _ in 0..<30 { _ = model.enqueue(enqueueKey: nil, enqueueToken: nil, at: RoomFixture.at(0)) }
        // The last of 30 is released at 39 s (58 s at 30/min alone): the page says so.
        guard case .waiting(let position) = model.queuePage(ticket: 29, at: RoomFixture.at(1)) else {
            Issue.record("the last visitor should wait")
            return
        }
        #expect(position.releaseAt == RoomFixture.at(39))
        #expect(position.expectedWait == .seconds(38))
    }

    @Test func aPlainRateKeepsItsReleaseTimes() {
        var plain = WaitingRoomModel(configuration: RoomFixture.configuration(outflowPerMinute: 30))
        var scheduled = Self.room(changes: [])
        for _ in 0..<10 {
            _ = plain.enqueue(enqueueKey: nil, enqueueToken: nil, at: RoomFixture.at(0))
            _ = scheduled.enqueue(enqueueKey: nil, enqueueToken: nil, at: RoomFixture.at(0))
        }
        #expect(Self.releaseMilliseconds(plain, count: 10) == (0..<10).map { Int64($0) * 2000 })
        #expect(Self.releaseMilliseconds(scheduled, count: 10) == Self.releaseMilliseconds(plain, count: 10))
    }

    @Test func aVirtualRunPassesVisitorsAtTheTwoRates() throws {
        let (report, directory) = try VirtualRun.run(
            """
            version: 1
            name: scheduled-outflow
            seed: 5
            target: { customerId: acme, waitingRoomId: raise }
            client: { pollInterval: 1s, maxWait: 1h }
            arrivals:
              phases:
                - { burst: 30 }
            waitingRoom:
              outflow:
                - { at: 0s, rate: 30/min }
                - { at: 20s, rate: 60/min }
              latency: { enqueue: 0ms, queuePage: 0ms, jitter: 0ms }
            """)
        #expect(report.outcomeCounts[.passed] == 30)
        // Release instants are whole seconds, so the poll that finds each released lands on it.
        let waits = try VirtualRun.visitors(directory).map(\.waitMs).sorted()
        let expected = (0..<10).map { Int64($0) * 2000 } + (0..<20).map { 20_000 + Int64($0) * 1000 }
        #expect(waits == expected)
    }

    @Test func theScheduleIsReadWithPositionsOnItsProblems() throws {
        func problems(_ outflow: String, eventStart: String = "0s") -> [String] {
            ScenarioTestSupport.problems(
                ScenarioTestSupport.minimal + "waitingRoom:\n  eventStart: \(eventStart)\n  outflow: \(outflow)\n")
        }
        let scenario = try ScenarioTestSupport.load(
            ScenarioTestSupport.minimal
                + "waitingRoom:\n  outflow: [ { at: 0s, rate: 600/min }, { at: 10m, rate: 1200/min } ]\n")
        #expect(scenario.waitingRoom?.outflowPerSecond == 10)
        #expect(scenario.waitingRoom?.outflowChanges == [OutflowChange(at: .seconds(600), perSecond: 20)])
        #expect(scenario.waitingRoom?.outflowDescription == "600/min, 1,200/min from 10m")
        #expect(
            problems("[ { at: 0s, rate: 600/min }, { at: 0s, rate: 60/min } ]") == [
                "10:47: `waitingRoom.outflow[1].at` must be later than the change before it (0s at 10:20), found 0s; list the changes in time order"
            ])
        #expect(
            problems("[ { at: 1m, rate: 600/min } ]", eventStart: "30s") == [
                "10:20: `waitingRoom.outflow[0].at` is 1m, after `waitingRoom.eventStart` (30s): the first rate must be in force when the room starts releasing; write `at: 0s`"
            ])
        #expect(
            problems("[ { at: 0s, rat: 600/min } ]") == [
                "10:14: missing `rate` in `waitingRoom.outflow[0]`; each change is { at: 10m, rate: 1200/min }",
                "10:24: unknown key `rat` in `waitingRoom.outflow[0]`; did you mean `rate`?",
            ])
        #expect(
            problems("[]") == [
                "10:12: `waitingRoom.outflow` needs at least one change when it is a list; each change is { at: 10m, rate: 1200/min }, or write one rate such as 600/min"
            ])
        #expect(
            problems("[ { at: 0s, rate: fast } ]") == [
                "10:30: `waitingRoom.outflow[0].rate` must be a rate such as 10 (per second) or 600/min, found `fast`"
            ])
    }

    @Test func aScheduledRateCanBeSetFromTheCommandLine() throws {
        let yaml =
            ScenarioTestSupport.minimal
            + "waitingRoom:\n  outflow: [ { at: 0s, rate: 600/min }, { at: 10m, rate: 1200/min } ]\n"
        let scenario = try ScenarioLoader.load(
            yaml: yaml, path: "test.yaml",
            overrides: [ScenarioOverride(path: "waitingRoom.outflow.1.rate", value: "3000/min")],
            environment: [:])
        #expect(scenario.waitingRoom?.outflowChanges == [OutflowChange(at: .seconds(600), perSecond: 50)])
    }

    @Test func theFluidEstimateFollowsTheSchedule() throws {
        // 200 at once, 60/min for a minute, then 600/min: 60 pass in the first minute, the other
        // 140 in the next 14 s, so nobody waits past a 2-minute maxWait.
        let scheduled = try ScenarioTestSupport.load(
            OutflowWarningTests.scenario(
                outflow: "[ { at: 0s, rate: 60/min }, { at: 1m, rate: 600/min } ]", maxWait: "2m"))
        let estimate = try #require(try OutflowEstimate.of(scheduled, visitors: nil))
        #expect(estimate.pastMaxWait == 0)
        #expect(estimate.warning == nil)
        let slow = try ScenarioTestSupport.load(
            OutflowWarningTests.scenario(
                outflow: "[ { at: 0s, rate: 60/min }, { at: 10m, rate: 600/min } ]", maxWait: "2m"))
        let late = try #require(try OutflowEstimate.of(slow, visitors: nil))
        #expect(late.pastMaxWait == 80)
        #expect(
            late.warning?.hasPrefix("warning: outflow 60/min, 600/min from 10m with maxWait 2m, 200 planned") == true)
    }
}
