import Testing

@testable import QueueSim

/// Issue 29: a bare outflow number is per second (Queue-it's Max Outflow is per minute), and an
/// outflow that cannot serve the plan within maxWait makes every wait figure the cap.
@Suite("outflow warnings")
struct OutflowWarningTests {
    static func scenario(outflow: String, arrivals: String = "{ burst: 200 }", maxWait: String = "1m") -> String {
        """
        version: 1
        target: { customerId: acme, waitingRoomId: launch }
        client: { maxWait: \(maxWait) }
        arrivals:
          phases:
            - \(arrivals)
        waitingRoom:
          outflow: \(outflow)
        """
    }

    @Test func aBareOutflowNumberIsReadPerSecondAndWarnedAtItsPosition() throws {
        let scenario = try ScenarioTestSupport.load(Self.scenario(outflow: "3000"))
        #expect(scenario.waitingRoom?.outflowPerSecond == 3000)
        #expect(
            scenario.warnings.map(\.description) == [
                "8:12: `waitingRoom.outflow: 3000` has no unit, so it is read as 3,000/s (180,000/min); Queue-it's Max Outflow is per minute: write 3000/min if you meant that, or 3000/s to keep this reading"
            ])
        #expect(scenario.positions.outflow == YamlMark(line: 8, column: 12))
    }

    @Test(arguments: ["3000/min", "50/s", "1.5/min"])
    func anOutflowWithAUnitIsNotWarned(outflow: String) throws {
        #expect(try ScenarioTestSupport.load(Self.scenario(outflow: outflow)).warnings.isEmpty)
    }

    @Test func aBurstBiggerThanMaxWaitsOutflowIsWarnedWithTheFluidEstimate() throws {
        // 200 at once, 60/min: 60 are released within the minute of maxWait, 140 are not.
        let scenario = try ScenarioTestSupport.load(Self.scenario(outflow: "60/min"))
        let estimate = try #require(try OutflowEstimate.of(scenario, visitors: nil))
        #expect(estimate.planned == 200 && estimate.peakQueue == 200)
        #expect(estimate.pastMaxWait == 140)
        #expect(
            estimate.warning
                == "warning: outflow 60/min × maxWait 1m = 60 < 200 planned: waits will hit client.maxWait; fluid model: 140 visitors (70%) wait longer, expected wait p95 3m 10s"
        )
    }

    /// Half of the 200 are no-shows: they never wait, so 70 (not 140) stop at maxWait, as
    /// `validate`'s estimate with no-shows says.
    @Test func noShowsAreNotCountedAsWaitingPastMaxWait() throws {
        let yaml = Self.scenario(outflow: "60/min") + "\nvisitors: [ { name: app, noShow: 50% } ]"
        let estimate = try #require(try OutflowEstimate.of(try ScenarioTestSupport.load(yaml), visitors: nil))
        #expect(abs(estimate.pastMaxWait - 70) <= 2, "\(estimate)")
        #expect(estimate.warning?.contains("fluid model: \(estimate.pastMaxWait) visitors (") == true)
    }

    @Test func anOutflowThatKeepsUpIsNotWarned() throws {
        let fast = try ScenarioTestSupport.load(Self.scenario(outflow: "600/min"))
        #expect(try OutflowEstimate.of(fast, visitors: nil)?.warning == nil)
        // Arrivals spread over an hour at 300/min against 240/min (the soak): the queue grows to
        // about 3,600, fifteen minutes of outflow, well inside 30 minutes of maxWait.
        let soak = try ScenarioTestSupport.load(
            Self.scenario(outflow: "240/min", arrivals: "{ duration: 1h, rate: 300/min }", maxWait: "30m"))
        let estimate = try #require(try OutflowEstimate.of(soak, visitors: nil))
        #expect(estimate.warning == nil && estimate.pastMaxWait == 0)
        #expect(estimate.peakQueue > 3000 && estimate.peakQueue < 3700, "\(estimate)")
    }

    @Test func aRealEndpointHasNoEstimate() throws {
        var scenario = try ScenarioTestSupport.load(Self.scenario(outflow: "1/min"))
        scenario.waitingRoom = nil
        #expect(try OutflowEstimate.of(scenario, visitors: nil) == nil)
    }

    @Test func groupedNumbers() {
        #expect(ScenarioUnits.grouped(3000) == "3,000")
        #expect(ScenarioUnits.grouped(180_000) == "180,000")
        #expect(ScenarioUnits.grouped(1_234_567.891) == "1,234,567.89")
        #expect(ScenarioUnits.grouped(0.5) == "0.5")
        #expect(ScenarioUnits.grouped(12) == "12")
    }
}
