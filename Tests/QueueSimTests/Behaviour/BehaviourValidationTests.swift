import Testing

@testable import QueueSim

/// `patience`, `comeback`, `afterPass` and `waitingRoom.abandonedTurns`: what they read into,
/// and every bad value refused at its line and column with what was expected.
@Suite("scenario: visitor behaviour keys")
struct BehaviourValidationTests {
    let minimal = ScenarioTestSupport.minimal
    func problems(_ yaml: String) -> [String] { ScenarioTestSupport.problems(yaml) }

    @Test("each distribution form reads into its draw; the CSV of durations is read whole")
    func forms() throws {
        let scenario = try ScenarioTestSupport.load(
            minimal + """
                visitors:
                  - { name: a, patience: { mean: 8m } }
                  - { name: b, patience: { fixed: 10m }, comeback: { share: 30%, after: { mean: 2m } } }
                  - { name: c, patience: { lognormal: { median: 6m, sigma: 0.8 } } }
                  - { name: d, patience: { csv: patience.csv, column: minutes }, afterPass: { calls: 5, thinkTime: { mean: 20s }, noShow: 10% } }
                waitingRoom: { abandonedTurns: skipped }

                """)
        let behaviours = scenario.groups.map(\.behaviour)
        #expect(behaviours[0].patience == .exponential(mean: .seconds(480)))
        #expect(behaviours[1].patience == .fixed(.seconds(600)))
        #expect(
            behaviours[1].comeback == ComebackBehaviour(share: 0.3, after: .exponential(mean: .seconds(120)), max: 1))
        #expect(behaviours[2].patience == .lognormal(median: .seconds(360), sigma: 0.8))
        #expect(behaviours[3].patience == .samples([.seconds(300), .seconds(90), .seconds(3600)]))
        #expect(
            behaviours[3].afterPass
                == AfterPassBehaviour(calls: 5, thinkTime: .exponential(mean: .seconds(20)), noShow: 0.1))
        #expect(scenario.waitingRoom?.abandonedTurns == .skipped)
        #expect((try ScenarioTestSupport.load(minimal).waitingRoom ?? WaitingRoomSettings()).abandonedTurns == .wasted)
    }

    @Test("bad values are refused at their position, with what was expected")
    func badValues() {
        #expect(
            problems(minimal + "visitors: [ { name: a, patience: { mean: -5m } } ]\n") == [
                "8:42: `visitors[0].patience.mean` must not be negative, found -5m"
            ])
        #expect(
            problems(minimal + "visitors: [ { name: a, patience: { meen: 5m } } ]\n") == [
                "8:36: unknown key `meen` in `visitors[0].patience`; expected `mean`, `fixed`, `lognormal`, `csv`, `column`; did you mean `mean`?"
            ])
        #expect(
            problems(minimal + "visitors: [ { name: a, patience: 5m } ]\n") == [
                "8:34: `visitors[0].patience` must be \(ScenarioValidator.distributionHelp), found `5m`"
            ])
        #expect(
            problems(minimal + "visitors: [ { name: a, patience: { mean: 5m, fixed: 2m } } ]\n") == [
                "8:46: `visitors[0].patience` gives one distribution, found `mean` and `fixed`"
            ])
        #expect(
            problems(minimal + "visitors: [ { name: a, patience: { lognormal: { median: 6m } } } ]\n") == [
                "8:47: `visitors[0].patience.lognormal` needs both `median` and `sigma`, such as { median: 6m, sigma: 0.8 }"
            ])
        #expect(
            problems(minimal + "visitors: [ { name: a, patience: { lognormal: { median: 6m, sigma: 9 } } } ]\n") == [
                "8:68: `visitors[0].patience.lognormal.sigma` must be a number from 0 to 5, found `9`"
            ])
        #expect(
            problems(minimal + "visitors: [ { name: a, patience: { csv: patience-bad.csv, column: minutes } } ]\n") == [
                "8:41: `visitors[0].patience`: row 2 of column `minutes` in patience-bad.csv must be \(ScenarioValidator.durationHelp), found \"soon\""
            ])
        #expect(
            problems(minimal + "visitors: [ { name: a, comeback: { share: 30%, after: { mean: 2m } } } ]\n") == [
                "8:34: `visitors[0].comeback` needs `visitors[0].patience`: only visitors who give up can come back"
            ])
        #expect(
            problems(
                minimal
                    + "visitors: [ { name: a, patience: { mean: 5m }, comeback: { share: 130%, after: { mean: 2m } } } ]\n"
            ) == [
                "8:67: `visitors[0].comeback.share` must be from 0% to 100% (a fraction such as 0.5 or a percentage such as 50%), found 130%"
            ])
        #expect(
            problems(minimal + "visitors: [ { name: a, afterPass: { calls: -1, thinkTime: { mean: 20s } } } ]\n") == [
                "8:44: `visitors[0].afterPass.calls` must be a whole number from 0 to 1000, found `-1`"
            ])
        #expect(
            problems(minimal + "visitors: [ { name: a, afterPass: { calls: 2 } } ]\n") == [
                "8:35: `visitors[0].afterPass` needs both `calls` and `thinkTime`, such as { calls: 5, thinkTime: { mean: 20s } }"
            ])
        #expect(
            problems(minimal + "waitingRoom: { abandonedTurns: skiped }\n") == [
                "8:32: `waitingRoom.abandonedTurns` must be one of wasted, skipped, found `skiped`; did you mean `skipped`?"
            ])
    }

    @Test("afterPass against a real endpoint needs a protectedApi URL to call")
    func afterPassNeedsAnAPI() {
        let yaml = minimal.replacingOccurrences(
            of: "waitingRoomId: launch", with: "waitingRoomId: launch\n  endpoint: http://127.0.0.1:9")
        #expect(
            problems(yaml + "visitors: [ { name: a, afterPass: { calls: 2, thinkTime: { mean: 5s } } } ]\n") == [
                "9:35: `visitors[0].afterPass` calls the protected API: give a `protectedApi` URL (in `target` or this group) when the endpoint is not embedded"
            ])
        #expect(
            problems(
                yaml
                    + "visitors: [ { name: a, protectedApi: 'https://shop.example/api', afterPass: { calls: 2, thinkTime: { mean: 5s } } } ]\n"
            ) == [])
    }

    @Test("`abandoned` is an outcome word thresholds know")
    func threshold() throws {
        let scenario = try ScenarioTestSupport.load(minimal + "thresholds: [ abandoned < 5%, abandoned.count == 0 ]\n")
        #expect(scenario.thresholds.map(\.metric) == [.outcomeRatio(.abandoned), .outcomeCount(.abandoned)])
    }
}
