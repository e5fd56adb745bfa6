import Testing

@testable import QueueSim

/// Durations are written one way in every output: whole units short (`30m`, `2h`), the rest in
/// parts with a space (`19m 7s`), never `1147s`, `19m07s`, `2.5 min` or `0.250 s`.
@Suite("duration text: one form in run, sweep, validate and report.html")
struct DurationTextTests {
    @Test("a scenario's durations as summaries, the report and the validator write them")
    func describe() {
        #expect(ScenarioUnits.describe(.seconds(1147)) == "19m 7s")
        #expect(ScenarioUnits.describe(.seconds(90)) == "1m 30s")
        #expect(ScenarioUnits.describe(.seconds(1800)) == "30m")
        #expect(ScenarioUnits.describe(.seconds(7200)) == "2h")
        #expect(ScenarioUnits.describe(.seconds(3900)) == "1h 5m")
        #expect(ScenarioUnits.describe(.seconds(3725)) == "1h 2m 5s")
        #expect(ScenarioUnits.describe(.seconds(3607)) == "1h 0m 7s")
        #expect(ScenarioUnits.describe(.seconds(45)) == "45s")
        #expect(ScenarioUnits.describe(.milliseconds(1500)) == "1.5s")
        #expect(ScenarioUnits.describe(.milliseconds(61_500)) == "1m 1.5s")
        #expect(ScenarioUnits.describe(.milliseconds(250)) == "250ms")
        #expect(ScenarioUnits.describe(.zero) == "0s")
        #expect(ScenarioUnits.describe(.seconds(-90)) == "-1m 30s")
    }

    @Test("a measured figure: the run's end screen, report.html and the sweep's sentence agree")
    func measured() {
        #expect(ThresholdTable.formatMilliseconds(1_147_000) == "19m 7s")
        #expect(SweepText.duration(milliseconds: 1_147_000) == "19m 7s")
        #expect(SweepText.figure(1_147_000, .milliseconds) == "19m 7s")
        #expect(SweepText.duration(milliseconds: 3_900_000) == "1h 5m")
        #expect(SweepText.duration(milliseconds: 492_000) == "8m 12s")
        #expect(SweepText.duration(milliseconds: 12_345) == "12.35s")
        #expect(SweepText.duration(milliseconds: -5) == "0ms")
    }

    @Test("report.html's axis labels of a timing: `2m 30s`, `10m`, `1.5s`, not `2.5 min` or `1.5 s`")
    func chartAxis() {
        #expect(SVGChart.Unit.milliseconds.format(150_000) == "2m 30s")
        #expect(SVGChart.Unit.milliseconds.format(600_000) == "10m")
        #expect(SVGChart.Unit.milliseconds.format(1500) == "1.5s")
        #expect(SVGChart.Unit.milliseconds.format(250) == "250ms")
        #expect(SVGChart.Unit.milliseconds.format(0.5) == "0.5ms")
        #expect(SVGChart.Unit.milliseconds.format(1.5) == "1.5ms")
        #expect(SVGChart.Unit.milliseconds.format(0) == "0ms")
    }
}
