import Foundation
import Testing

@testable import QueueSim

/// The sweep's bracketed answer (docs/sweep.md, "The answer"): bisection to a precision with a
/// bounded count of probes, the margin, the fluid model's value and the words of an interval
/// that seeds do not move.
@Suite("Sweep refinement")
struct SweepRefinementTests {
    static func value(_ text: String) -> SweepValue {
        SweepValue(text: text, magnitude: SweepUnit.parse(text).map { $0.number * $0.unit.scale } ?? 0)
    }

    @Test func bisectionBracketsAMonotoneAnswerWithinThePrecision() throws {
        // Passing from 9,537/min up; the grid said 9,000/min fails and 10,000/min passes.
        let needed = 9537.0 / 60
        var asked: [Double] = []
        let outcome = SweepBisection.refine(
            failing: 9000.0 / 60, passing: 10000.0 / 60, precision: 100.0 / 60, step: 1.0 / 60
        ) { size in
            asked.append(size)
            return size >= needed
        }
        #expect(outcome.width <= 100.0 / 60 + 1e-9)
        #expect(outcome.failing < needed && outcome.passing >= needed)
        #expect(!outcome.stopped)
        // log2(1,000 / 100) rounded up: 4 probes, within the bound of 5.
        #expect(outcome.probes.count == 4)
        #expect(asked.count <= SweepBisection.mostProbes(width: 1000.0 / 60, precision: 100.0 / 60))
        // Every probe is a whole number per minute (the key's natural step).
        for size in asked { #expect(abs(size * 60 - (size * 60).rounded()) < 1e-6, "\(size * 60)/min") }
        #expect(SweepPrecision.value(outcome.passing, like: Self.value("9000/min")).text == "9563/min")
        #expect(SweepPrecision.value(outcome.failing, like: Self.value("9000/min")).text == "9500/min")
    }

    @Test func bisectionGoesDownForAMaximizedKey() {
        // The highest crowd that passes: up to 1.37; the grid said 1.5 fails and 1 passes.
        let outcome = SweepBisection.refine(failing: 1.5, passing: 1, precision: 0.01) { $0 <= 1.37 }
        #expect(outcome.passing <= 1.37 && outcome.failing > 1.37)
        #expect(outcome.width <= 0.01)
        #expect(outcome.probes.count <= SweepBisection.mostProbes(width: 0.5, precision: 0.01))
    }

    @Test func theProbeCountIsBoundedWhateverTheAnswers() {
        // An answer that flips at random still ends within log2(width / precision) + 1 probes.
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<50 {
            let outcome = SweepBisection.refine(failing: 0, passing: 1000, precision: 0.5, step: 1) { _ in
                Bool.random(using: &generator)
            }
            #expect(outcome.probes.count <= SweepBisection.mostProbes(width: 1000, precision: 0.5))
            #expect(outcome.width <= 1)
        }
        // Nothing to do when the grid's step is already within the precision.
        #expect(SweepBisection.refine(failing: 0, passing: 1, precision: 2) { _ in true }.probes.isEmpty)
    }

    @Test func aProbeThatCannotRunStopsWhereTheBracketIs() {
        var count = 0
        let outcome = SweepBisection.refine(failing: 0, passing: 100, precision: 1) { size -> Bool? in
            count += 1
            return count == 3 ? nil : size >= 42
        }
        #expect(outcome.stopped)
        #expect(outcome.probes.count == 2)
        #expect(outcome.failing == 25 && outcome.passing == 50)
    }

    @Test func theMarginFindsTheCrowdThatFails() {
        let outcome = SweepMargin.find { factor in factor < 1.043 }
        #expect(outcome.surviving < 1.043 && (outcome.failing ?? 0) >= 1.043)
        #expect((outcome.failing ?? 9) - outcome.surviving <= SweepMargin.precision + 1e-9)
        #expect(outcome.probes.count <= SweepMargin.mostProbes)
        // A crowd twice as large still passing: the most tried, no failing scale.
        let strong = SweepMargin.find { _ in true }
        #expect(strong.failing == nil && strong.surviving == 2)
        #expect(strong.probes.count <= SweepMargin.mostProbes)
        // One percent more already fails: narrowed below 1.01.
        let thin = SweepMargin.find { factor in factor < 1.004 }
        #expect((thin.failing ?? 9) >= 1.004 && (thin.failing ?? 9) <= 1.005 + 1e-9)
        #expect(SweepRefinedAnswer.marginWords(outcome).hasPrefix("survives a crowd 4.2 % larger (4.3 % larger fails)"))
    }

    @Test func anIntervalOfZeroWidthIsSaidToBeSeedsThatDoNotMoveIt() throws {
        let still = try #require(SweepInterval([570_000, 570_000, 570_000]))
        #expect(still.spread { SweepText.duration(milliseconds: $0) } == "seeds do not vary this figure")
        let moving = try #require(SweepInterval([560_000, 570_000, 580_000]))
        // Durations as the sentence writes them (SweepText.duration), whatever its style.
        let mean = SweepText.duration(milliseconds: 570_000)
        #expect(
            moving.spread { SweepText.duration(milliseconds: $0) }
                == "95 % interval \(SweepText.duration(milliseconds: moving.low!))–\(SweepText.duration(milliseconds: moving.high!))"
        )
        let barely = try #require(SweepInterval([570_000, 570_010, 570_020]))
        #expect(barely.spread { SweepText.duration(milliseconds: $0) } == "95 % interval \(mean) ± 25ms")
        #expect(try #require(SweepInterval([570_000])).spread { "\($0)" } == nil)
        // In the sentence: never an interval from a figure to itself.
        var refined = Self.refined()
        refined.headline = SweepMetric.waitP95
        refined.headlineInterval = still
        #expect(refined.clause.contains("at 9,563/min: wait p95 \(mean), seeds do not vary this figure"))
        #expect(!refined.clause.contains("\(mean)–\(mean)"))
    }

    @Test func theClauseAndTheFileFieldsSayTheBracket() throws {
        let refined = Self.refined()
        #expect(refined.bracketText == "9,500–9,563/min")
        #expect(refined.withinPrecision)
        #expect(
            refined.clause
                == "; refined by bisection to 9,500–9,563/min (within 100/min; at 9,563/min; survives a crowd 0.4 % larger (0.5 % larger fails); fluid model 9,500/min for wait.p95 < 10m)"
        )
        let json = refined.json
        #expect(
            (json["answer_bracket"] as? [String: [Any]])?["waitingRoom.outflow"]?.compactMap { $0 as? String } == [
                "9500/min", "9563/min",
            ])
        #expect(json["answer_margin"] as? Double == 1.005)
        #expect((json["answer_fluid"] as? [String: String]) == ["waitingRoom.outflow": "9500/min"])
    }

    static func refined() -> SweepRefinedAnswer {
        SweepRefinedAnswer(
            key: "waitingRoom.outflow", direction: .minimize, grid: value("10000/min"), failing: value("9500/min"),
            passing: value("9563/min"), precision: SweepPrecision(amount: .absolute(100.0 / 60), text: "100/min"),
            precisionSize: 100.0 / 60, probes: [], headline: nil, headlineInterval: nil, baseScale: 1,
            margin: SweepMargin.Outcome(surviving: 1.004, failing: 1.005, probes: [], stopped: false),
            fluid: value("9500/min"), fluidGoal: "wait.p95 < 10m", notes: [])
    }

    @Test func precisionIsReadInTheKeysUnits() throws {
        let outflows = ["9000/min", "10000/min"].map(Self.value)
        let absolute = try SweepPrecision.parse("100/min", values: outflows).get()
        #expect(absolute.base(at: 160, step: 1.0 / 60) == 100.0 / 60)
        let relative = try SweepPrecision.parse("2%", values: outflows).get()
        #expect(abs(relative.base(at: 100, step: 1.0 / 60) - 2) < 1e-9)
        // 1 % of a small answer is finer than the natural step: the step wins.
        #expect(SweepPrecision.standard.base(at: 1, step: 1.0 / 60) == 1.0 / 60)
        #expect(SweepPrecision.naturalStep(of: outflows) == 1.0 / 60)
        #expect(SweepPrecision.naturalStep(of: ["1", "1.5"].map(Self.value)) == 0)
        #expect(SweepPrecision.naturalStep(of: ["5m", "10m"].map(Self.value)) == 1)
        for bad in ["5s", "100", "0/min", "-3/min", "fast", "0%", "150%"] {
            guard case .failure(let problem) = SweepPrecision.parse(bad, values: outflows) else {
                Issue.record("--precision \(bad) accepted")
                continue
            }
            #expect(!problem.message.isEmpty)
        }
        // A duration probe in whole seconds is written in seconds, not as 9.516667m.
        #expect(SweepPrecision.value(571, like: Self.value("10m")).text == "571s")
        #expect(SweepPrecision.value(600, like: Self.value("10m")).text == "10m")
    }

    @Test func theFluidAnswerOfABurstIs095NOverTheLimit() throws {
        let scenario = try ScenarioTestSupport.load(
            """
            version: 1
            name: burst
            target: { customerId: acme, waitingRoomId: launch }
            arrivals: { phases: [ { burst: 100000 } ] }
            waitingRoom: { mode: queue, outflow: 9000/min }
            """)
        let goal = try ThresholdParser.parse("wait.p95 < 10m").get()
        let answer = try #require(
            SweepFluidAnswer.find(key: "waitingRoom.outflow", goals: [goal], scenario: scenario, keyValue: 150))
        // 0.95 × 100,000 / 10 min = 9,500/min.
        #expect(abs(answer.size * 60 - 9500) < 9500 * 1e-4, "\(answer.size * 60)/min")
        #expect(SweepRefiner.fluidValue(answer.size, like: Self.value("9000/min")).text == "9500/min")
        // The crowd the same outflow serves in 10 minutes: 9,000/min × 10 / 0.95 of 100,000.
        let crowd = try #require(
            SweepFluidAnswer.find(key: "arrivals.scale", goals: [goal], scenario: scenario, keyValue: 1))
        #expect(abs(crowd.size - 90_000 / 0.95 / 100_000) < 1e-3)
        // A goal the model does not predict: no fluid answer.
        let passed = try ThresholdParser.parse("passed >= 99%").get()
        #expect(
            SweepFluidAnswer.find(key: "waitingRoom.outflow", goals: [passed], scenario: scenario, keyValue: 150) == nil
        )
    }

    /// A goal above client.maxWait: a wait at the cap is a lower bound and fails `<`, so the
    /// fluid answer is the outflow that keeps the p95 under maxWait (0.95 × 1,000 / 30 min),
    /// not the one that meets 35 minutes (0.95 × 1,000 / 35 min = 27.1/min).
    @Test func theFluidAnswerKeepsTheWaitUnderMaxWait() throws {
        let scenario = try ScenarioTestSupport.load(
            """
            version: 1
            name: capped
            target: { customerId: acme, waitingRoomId: launch }
            client: { maxWait: 30m }
            arrivals: { phases: [ { burst: 1000 } ] }
            waitingRoom: { mode: queue, outflow: 25/min }
            """)
        let goal = try ThresholdParser.parse("wait.p95 < 35m").get()
        let answer = try #require(
            SweepFluidAnswer.find(key: "waitingRoom.outflow", goals: [goal], scenario: scenario, keyValue: 25.0 / 60))
        #expect(abs(answer.size * 60 - 950.0 / 30) < 0.01, "\(answer.size * 60)/min")
    }
}
