import Foundation
import Testing

@testable import QueueSim

/// The answer rule (docs/sweep.md, "The answer"), on made-up results.
@Suite("Sweep answer")
struct SweepAnswerTests {
    static let outflows = ["600/min", "900/min", "1200/min", "1500/min"].map {
        SweepValue(text: $0, magnitude: SweepUnit.parse($0).map { $0.number * $0.unit.scale } ?? 0)
    }
    static let scales = ["1", "2"].map { SweepValue(text: $0, magnitude: Double($0)!) }

    func plan(scales: Bool, direction: SweepObjective.Direction? = .minimize, seeds: Int = 2) throws -> SweepPlan {
        var axes = [SweepAxis(key: "waitingRoom.outflow", values: Self.outflows)]
        if scales { axes.append(SweepAxis(key: "arrivals.scale", values: Self.scales)) }
        return SweepPlan(
            file: "test.yaml", scenario: try ScenarioTestSupport.load(ScenarioTestSupport.minimal), axes: axes,
            seeds: (0..<UInt64(seeds)).map { $0 + 1 }, goals: [],
            objective: direction.map { SweepObjective(direction: $0, key: "waitingRoom.outflow") })
    }

    /// Results where `meets(point, seed)` says whether that run met every goal.
    func results(_ plan: SweepPlan, _ meets: (SweepPoint, Int) -> Bool?) -> SweepResults {
        var runs: [SweepRunResult?] = []
        for point in plan.points {
            for seed in plan.seeds.indices {
                runs.append(
                    meets(point, seed).map {
                        SweepRunResult(
                            point: point.index, seedIndex: seed, values: plan.metrics.map { _ in 1 }, goalsMet: [$0],
                            visitors: 10)
                    })
            }
        }
        return SweepResults(plan: plan, runs: runs)
    }

    @Test func theLowestValueWhoseEverySeedMeetsEveryGoal() throws {
        let plan = try plan(scales: false)
        // 900/min meets in one seed only; 1200/min in both.
        let found = SweepAnswer.find(
            in: results(plan) { point, seed in
                point.values[0].magnitude >= 20 || (point.values[0].magnitude == 15 && seed == 0)
            })
        #expect(found?.values.map(\.text) == ["1200/min"])
    }

    @Test func maximizeTakesTheHighest() throws {
        let plan = try plan(scales: false, direction: .maximize)
        let found = SweepAnswer.find(in: results(plan) { point, _ in point.values[0].magnitude <= 15 })
        #expect(found?.values.map(\.text) == ["900/min"])
    }

    @Test func withAnotherKeyTheValueMustHoldAtEveryValueOfIt() throws {
        let plan = try plan(scales: true)
        // Scale 1 needs 900/min, scale 2 needs 1500/min: the answer is 1500/min, decided at scale 2.
        let found = SweepAnswer.find(
            in: results(plan) { point, _ in
                point.values[0].magnitude >= 15 * point.values[1].magnitude - (point.values[1].magnitude == 2 ? 5 : 0)
            })
        #expect(found?.values.map(\.text) == ["1500/min", "2"])
        let each = SweepAnswer.perCombination(
            in: results(plan) { point, _ in
                point.values[0].magnitude >= 15 * point.values[1].magnitude - (point.values[1].magnitude == 2 ? 5 : 0)
            })
        #expect(each.map { $0.value?.text } == ["900/min", "1500/min"])
    }

    @Test func noPointMeetingEveryGoalIsNoAnswer() throws {
        let plan = try plan(scales: false)
        let none = results(plan) { _, _ in false }
        #expect(SweepAnswer.find(in: none) == nil)
        #expect(
            SweepText.sentence(results: none, answer: nil)
                == "no outflow tried (600/min to 1,500/min) meets every goal in all 2 seeds")
    }

    @Test func aPointWithAnUnfinishedSeedMeetsNothing() throws {
        let plan = try plan(scales: false)
        // 1200/min's second seed was interrupted: 1500/min is the lowest known to hold.
        let partial = results(plan) { point, seed in
            point.values[0].text == "1200/min" && seed == 1 ? nil : point.values[0].magnitude >= 20
        }
        #expect(SweepAnswer.find(in: partial)?.values.map(\.text) == ["1500/min"])
        #expect(
            SweepText.sentence(results: partial, answer: SweepAnswer.find(in: partial)).hasPrefix(
                "among the points that finished, lowest outflow"))
    }

    @Test func withoutAnObjectiveTheFirstPointInGridOrder() throws {
        let plan = try plan(scales: true, direction: nil)
        let found = SweepAnswer.find(
            in: results(plan) { point, _ in point.values[1].text == "2" && point.values[0].magnitude >= 20 })
        #expect(found?.values.map(\.text) == ["1200/min", "2"])
    }
}
