import Foundation
import Testing

@testable import QueueSim

/// Issue 52: sweep.html's layout (the report's narrow drawing below 700 px, round ticks,
/// labels that do not touch, the fluid line on top), its capped points, and rates with units.
@Suite("sweep.html layout, capped points and units")
struct SweepPageLayoutTests {
    /// 30 minutes of maxWait, so a wait p95 of 30 minutes is capped.
    static let scenario = ScenarioTestSupport.minimal + "client: { maxWait: 30m }\n"

    /// Outflows written without a unit (per second), one seed; the wait p95 of each point given.
    static func page(outflows: [String], waits: [Double], fluid: [Double?]? = nil) throws -> String {
        let values = outflows.map { SweepValue(text: $0, magnitude: Double($0)!) }
        let goal = Threshold(
            metric: .timing(.wait, .percentile(95)), comparator: .lessThan, limit: 35 * 60_000,
            source: "wait.p95 < 35m")
        let plan = SweepPlan(
            file: "test.yaml", scenario: try ScenarioTestSupport.load(scenario),
            axes: [SweepAxis(key: "waitingRoom.outflow", values: values)], seeds: [1], goals: [goal],
            objective: SweepObjective(direction: .minimize, key: "waitingRoom.outflow"))
        let wait = try #require(plan.metrics.firstIndex { $0.column == "wait_p95_ms" })
        let runs = plan.points.map { point -> SweepRunResult? in
            var figures: [Double?] = plan.metrics.map { _ in 0 }
            figures[wait] = waits[point.index]
            return SweepRunResult(
                point: point.index, seedIndex: 0, values: figures, goalsMet: [waits[point.index] < 1_799_000],
                visitors: 10)
        }
        let results = SweepResults(plan: plan, runs: runs)
        let model = SweepFluid(
            waitP95: fluid ?? waits.map { $0 * 1.01 }, abandonedShare: waits.map { _ in nil })
        return SweepPage(
            results: results, answer: SweepAnswer.find(in: results), sentence: "answer", fluid: model
        ).render()
    }

    /// Each drawing's text, from `<svg` to its `</svg>`.
    static func svgs(_ page: String) -> [Substring] {
        page.components(separatedBy: "<svg").dropFirst().map { part in
            Substring(part)[..<(part.range(of: "</svg>")?.lowerBound ?? part.endIndex)]
        }
    }

    static func tickLabels(_ svg: Substring) -> [String] {
        svg.components(separatedBy: "class=\"tick\">").dropFirst().map { String($0.prefix { $0 != "<" }) }
    }

    @Test func everyChartHasAWideAndANarrowDrawingSwitchedAt700Pixels() throws {
        let page = try Self.page(outflows: ["10", "20", "30"], waits: [577_000, 288_000, 192_000])
        #expect(page.contains("@media (max-width:700px){.wide{display:none}.narrow{display:block}"))
        let wide = page.components(separatedBy: "<div class=\"wide\"><svg").count - 1
        let narrow = page.components(separatedBy: "<div class=\"narrow\"><svg").count - 1
        #expect(wide >= 1 && wide == narrow, "\(wide) wide, \(narrow) narrow drawings")
    }

    @Test func waitTicksAreRoundDurations() throws {
        // The highest figure is 9m 37s and the goal's line 35m: the ticks are round minutes up
        // to 40m, never `9m 37s` or `8m 45s`.
        let page = try Self.page(outflows: ["10", "20", "30"], waits: [577_000, 288_000, 192_000])
        let chart = try #require(Self.svgs(page).first { $0.contains("aria-label=\"wait p95\"") })
        let labels = Self.tickLabels(chart).filter { !$0.hasSuffix("/s") }
        #expect(labels == ["0", "10m", "20m", "30m", "40m"], "\(labels)")
    }

    @Test func xLabelsAreThinnedUntilTheyDoNotTouch() {
        let labels = (0..<40).map { (x: Double($0) * 9, text: "\(1000 + $0 * 100)/min") }
        let kept = SweepChart.spacedLabels(labels, fontSize: 11)
        #expect(kept.first?.text == "1000/min" && kept.count < labels.count && kept.count > 3)
        for (left, right) in zip(kept, kept.dropFirst()) {
            let gap = (right.x - Double(right.text.count) * 11 * 0.3) - (left.x + Double(left.text.count) * 11 * 0.3)
            #expect(gap >= 11, "\(left.text) and \(right.text) are \(gap) apart")
        }
    }

    /// The first label is anchored at its start (it would leave the plot otherwise), so it
    /// reaches a whole width to the right: the next label must clear that, not half of it
    /// (`50/min75/min` touched on a phone).
    @Test func aLabelAnchoredAtTheEdgeIsMeasuredFromItsAnchor() {
        let labels = [(x: 40.0, text: "50/min"), (x: 92.0, text: "75/min"), (x: 140.0, text: "100/min")]
        let kept = SweepChart.spacedLabels(labels, fontSize: 11, left: 40, right: 300)
        #expect(kept.map(\.text) == ["50/min", "100/min"], "\(kept.map(\.text))")
        #expect(kept.first?.anchor == "start")
    }

    @Test func theFluidLineIsDashedInItsOwnColourAndDrawnOverTheSimulatedOne() throws {
        let page = try Self.page(
            outflows: ["10", "20", "30"], waits: [577_000, 288_000, 192_000], fluid: [577_000, 288_000, 192_000])
        for svg in Self.svgs(page) where svg.contains("aria-label=\"wait p95\"") {
            let simulated = try #require(svg.range(of: "stroke=\"#2f6fdf\" stroke-width=\"2\""))
            let model = try #require(svg.range(of: "class=\"model\""))
            #expect(simulated.lowerBound < model.lowerBound, "the model must be drawn last")
            #expect(svg.contains("stroke=\"\(SweepChart.modelColour)\" stroke-dasharray=\"5 4\""))
        }
        #expect(page.contains("fluid model (dashed)"))
    }

    @Test func aCappedPointIsMarkedInTheChartAndTable() throws {
        let page = try Self.page(outflows: ["10", "20"], waits: [1_800_000, 900_000])
        #expect(page.contains("<td class=\"capped\" title=\"capped by client.maxWait\">≥ 30m"), "\(page)")
        #expect(page.contains("class=\"capped\"><title>capped: waitingRoom.outflow 10: at least 30m"))
        #expect(page.contains("no goal &lt; or &lt;= on it is met"))
        // The uncapped point keeps its mean.
        #expect(!page.contains("≥ 15m"))
    }

    @Test func aRateWrittenWithoutAUnitIsShownPerSecond() throws {
        let page = try Self.page(outflows: ["5000", "10000"], waits: [60_000, 30_000])
        #expect(page.contains(">5,000/s</text>") && page.contains(">10,000/s</text>"))
        #expect(page.contains("<td>5,000/s</td>"))
        #expect(
            SweepText.value(SweepValue(text: "5000/min", magnitude: 5000 / 60), key: "waitingRoom.outflow")
                == "5,000/min")
        #expect(SweepText.value(SweepValue(text: "1.5", magnitude: 1.5), key: "arrivals.scale") == "1.5")
        #expect(ScenarioUnits.isRateKey("arrivals.phases[0].rampTo") && !ScenarioUnits.isRateKey("client.maxWait"))
    }
}
