import Testing

@testable import QueueSim

@Suite("Scenario units")
struct ScenarioUnitsTests {
    @Test(arguments: [
        ("250ms", Duration.milliseconds(250)), ("1.5s", .milliseconds(1500)), ("30s", .seconds(30)),
        ("5m", .seconds(300)), ("2h", .seconds(7200)), ("45", .seconds(45)), ("0.25", .milliseconds(250)),
        ("0", .zero), (" 10s ", .seconds(10)), ("-3s", .seconds(-3)), ("1_000ms", .seconds(1)),
    ])
    func readsDurations(text: String, expected: Duration) {
        #expect(ScenarioUnits.duration(text) == expected)
    }

    @Test(arguments: [
        "", "s", "10 sec", "1min", "ten", "1e3s", "inf", "nan", ".5s", "5.s", "1.2.3s", "10d", "999999999999h",
    ])
    func refusesWhatIsNotADuration(text: String) {
        #expect(ScenarioUnits.duration(text) == nil)
    }

    @Test(arguments: [
        ("10", 10.0), ("600/min", 10.0), ("2.5", 2.5), ("30/s", 30.0), ("7200/h", 2.0), ("90 / min", 1.5), ("-4", -4.0),
    ])
    func readsRatesPerSecond(text: String, expected: Double) {
        #expect(ScenarioUnits.rate(text) == expected)
    }

    @Test(arguments: ["10/day", "/min", "fast", "10/", "1e2"])
    func refusesWhatIsNotARate(text: String) {
        #expect(ScenarioUnits.rate(text) == nil)
    }

    @Test(arguments: [("0.5%", 0.005), ("50%", 0.5), ("0.5", 0.5), ("100%", 1.0), ("1", 1.0), ("150%", 1.5)])
    func readsShares(text: String, expected: Double) {
        #expect(ScenarioUnits.fraction(text) == expected)
    }

    @Test(arguments: ["%", "half", "5 percent", "50%%"])
    func refusesWhatIsNotAShare(text: String) {
        #expect(ScenarioUnits.fraction(text) == nil)
    }
}
