import Testing

@testable import QueueSim

/// Issue 30: `--set KEY=VALUE` changes a scenario value by its path before the file is read, so
/// the value is checked by the same validator as the file's, at a position in the argument.
@Suite("--set scenario overrides")
struct ScenarioOverrideTests {
    static let scenario = """
        version: 1
        target: { customerId: acme, waitingRoomId: launch }
        arrivals:
          phases:
            - { duration: 10s, rate: 5 }
            - { burst: 100 }
        visitors:
          - { name: app, weight: 3 }
          - { name: partner, weight: 1, flow: tryPass }
        waitingRoom:
          outflow: 600/min

        """

    static func load(_ arguments: [String], yaml: String = scenario) throws(ScenarioLoadError) -> Scenario {
        let overrides = arguments.map { try! ScenarioOverride(argument: $0) }
        return try ScenarioLoader.load(yaml: yaml, path: "test.yaml", overrides: overrides, environment: ["RATE": "7"])
    }

    /// Every problem as `FILE:LINE:COLUMN: message`, as `validate` prints them.
    static func problems(_ arguments: [String], yaml: String = scenario) -> [String] {
        do {
            _ = try load(arguments, yaml: yaml)
            return []
        } catch {
            return error.diagnostics.map(\.description)
        }
    }

    @Test func anArgumentIsSplitAtItsFirstEqualsSign() throws {
        let override = try ScenarioOverride(argument: "target.layoutName=a=b")
        #expect(override == ScenarioOverride(path: "target.layoutName", value: "a=b"))
        #expect(try ScenarioOverride(argument: "visitors.app.patience=").value == "")
    }

    @Test func anArgumentWithoutAKeyOrAnEqualsSignIsRefusedByName() {
        #expect(throws: ScenarioOverrideError.self) { try ScenarioOverride(argument: "outflow") }
        do {
            _ = try ScenarioOverride(argument: "outflow")
        } catch {
            #expect(
                error.description == "--set outflow: expected KEY=VALUE, such as --set waitingRoom.outflow=1200/min")
        }
        do {
            _ = try ScenarioOverride(argument: "waitingRoom..outflow=1")
        } catch {
            #expect(
                error.description.hasPrefix(
                    "--set waitingRoom..outflow=1: the path `waitingRoom..outflow` has an empty key"))
        }
        do {
            _ = try ScenarioOverride(argument: "=5")
        } catch {
            #expect(error.description.hasPrefix("--set =5: the key before `=` is empty"))
        }
    }

    @Test func aValueReplacesTheFilesValueAndIsReadWithItsUnits() throws {
        let scenario = try Self.load(["waitingRoom.outflow=1200/min"])
        #expect(scenario.waitingRoom?.outflowPerSecond == 20)
        #expect(scenario.overrides == [ScenarioOverride(path: "waitingRoom.outflow", value: "1200/min")])
        #expect(scenario.warnings.isEmpty)
    }

    @Test func aGroupIsFoundByNameAndAListItemByNumber() throws {
        let scenario = try Self.load(["visitors.app.flow=tryPass", "arrivals.phases.1.burst=40", "visitors.1.weight=2"])
        #expect(scenario.groups.map(\.flow) == [.tryPass, .tryPass])
        #expect(scenario.groups.map(\.weight) == [3, 2])
        #expect(scenario.arrivals.phases[1] == .burst(count: 40))
    }

    @Test func aMissingMappingOnTheWayIsCreated() throws {
        let plain = """
            version: 1
            target: { customerId: acme, waitingRoomId: launch }
            arrivals: { phases: [ { burst: 10 } ] }
            """
        let scenario = try Self.load(["waitingRoom.latency.enqueue=250ms", "run.duration=90s"], yaml: plain)
        #expect(scenario.waitingRoom?.latency.enqueue == .milliseconds(250))
        #expect(scenario.run.duration == .seconds(90))
    }

    @Test func aMissingMappingInsideAGroupOrAListItemIsCreated() throws {
        let scenario = try Self.load(["visitors.partner.connections=shared", "waitingRoom.faults=[ { status: 503 } ]"])
        #expect(scenario.groups[1].connections == .shared)
        // A key absent from an item of a list: the path goes through the item, not a new list.
        #expect(
            ScenarioOverride.normalisedListPath(["visitors", "app", "patience", "mean"]) == "visitors.patience.mean")
        #expect(ScenarioOverride.normalisedListPath(["arrivals", "phases", "1", "rate"]) == "arrivals.phases.rate")
        #expect(ScenarioOverride.normalisedListPath(["visitors"]) == "visitors")
        // Created, then refused by the validator as the file's own key would be (the list of
        // known keys grows with the format, so only the start is compared).
        let unknown = Self.problems(["visitors.app.mood.level=5"])
        #expect(unknown.count == 1)
        #expect(
            unknown.first?.hasPrefix("--set visitors.app.mood.level=5:1:14: unknown key `mood` in `visitors[0]`")
                == true,
            "\(unknown)")
    }

    @Test func aWholeListOrMappingCanBeSetAsAFlowValue() throws {
        let scenario = try Self.load(["arrivals.phases=[ { burst: 7 }, { duration: 2s, rate: 3 } ]"])
        #expect(scenario.arrivals.phases == [.burst(count: 7), .steady(duration: .seconds(2), rate: 3, rampTo: nil)])
    }

    @Test func laterOverridesSeeEarlierOnes() throws {
        let scenario = try Self.load(["waitingRoom.outflow=60/min", "waitingRoom.outflow=120/min"])
        #expect(scenario.waitingRoom?.outflowPerSecond == 2)
    }

    @Test func environmentReferencesInAValueAreExpandedAsInTheFile() throws {
        let scenario = try Self.load(["arrivals.phases.0.rate=${RATE}"])
        #expect(scenario.arrivals.phases[0] == .steady(duration: .seconds(10), rate: 7, rampTo: nil))
    }

    @Test func aBadValueIsReportedByTheValidatorAtItsColumnInTheArgument() {
        // `waitingRoom.outflow=` is 20 characters: the value starts at column 21.
        #expect(
            Self.problems(["waitingRoom.outflow=fast"]) == [
                "--set waitingRoom.outflow=fast:1:21: `waitingRoom.outflow` must be a rate such as 10 (per second) or 600/min, found `fast`"
            ])
    }

    @Test func aValueThatIsNotYAMLIsReportedInTheArgument() {
        let problems = Self.problems(["waitingRoom.outflow=[1, 2"])
        #expect(problems.count == 1)
        #expect(problems.first?.hasPrefix("--set waitingRoom.outflow=[1, 2:") == true, "\(problems)")
    }

    @Test func anUnknownKeyIsRefusedAtTheKeyWithDidYouMean() {
        #expect(
            Self.problems(["waitingRoom.outflw=5/s"]) == [
                "--set waitingRoom.outflw=5/s:1:13: unknown key `outflw` in `waitingRoom`; did you mean `outflow`?"
            ])
    }

    @Test func aMissingGroupIsRefusedWithTheGroupsThereAre() {
        #expect(
            Self.problems(["visitors.ap.flow=tryPass"]) == [
                "--set visitors.ap.flow=tryPass:1:10: `visitors` has no item named `ap`; did you mean `app`?"
            ])
        #expect(
            Self.problems(["arrivals.phases.5.rate=3"]) == [
                "--set arrivals.phases.5.rate=3:1:17: `arrivals.phases` has no item `5`: its items are numbered 0 to 1"
            ])
    }

    @Test func aPathThroughAScalarIsRefused() {
        #expect(
            Self.problems(["waitingRoom.outflow.rate=5"]) == [
                "--set waitingRoom.outflow.rate=5:1:21: `waitingRoom.outflow` (written at 11:12) is a single value, not a mapping or a list, so it has no `rate` to set"
            ])
    }

    @Test func aGroupOfAScenarioWithoutGroupsIsRefused() {
        let plain = """
            version: 1
            target: { customerId: acme, waitingRoomId: launch }
            arrivals: { phases: [ { burst: 10 } ] }
            """
        #expect(
            Self.problems(["visitors.app.flow=tryPass"], yaml: plain) == [
                "--set visitors.app.flow=tryPass:1:1: the scenario has no `visitors` list, so there is no group `app` in it; add a `visitors:` list of groups to the file"
            ])
    }

    @Test func problemsInTheFileComeFirstThenEachOverridesInOrder() {
        let broken = Self.scenario.replacingOccurrences(of: "weight: 3", with: "weight: -3")
        #expect(
            Self.problems(["run.concurrency=0", "waitingRoom.mode=closed"], yaml: broken) == [
                "test.yaml:8:26: `visitors[0].weight` must be more than 0 and at most 1000000000, found -3.0",
                "--set run.concurrency=0:1:17: `run.concurrency` must be from 1 to 10000000, found 0",
                "--set waitingRoom.mode=closed:1:18: `waitingRoom.mode` must be one of queue, safetynet, disabled, idle, afterevent, found `closed`",
            ])
    }

    @Test func anOverrideThatCannotBeAppliedDoesNotHideTheOthersProblems() {
        #expect(
            Self.problems(["visitors.ap.flow=run", "run.concurrency=0"]) == [
                "--set visitors.ap.flow=run:1:10: `visitors` has no item named `ap`; did you mean `app`?",
                "--set run.concurrency=0:1:17: `run.concurrency` must be from 1 to 10000000, found 0",
            ])
    }

    @Test func aCredentialIsRecordedRedactedAndNeverEchoedInAMessage() {
        let secret = ScenarioOverride(path: "waitingRoom.secretKey", value: "hunter2")
        #expect(secret.recorded == "waitingRoom.secretKey=<redacted>")
        #expect(
            ScenarioOverride(path: "visitors.app.enqueueKey", value: "K-1").recorded
                == "visitors.app.enqueueKey=<redacted>")
        #expect(ScenarioOverride(path: "waitingRoom", value: "{ secretKey: x }").recorded == "waitingRoom=<redacted>")
        #expect(ScenarioOverride(path: "waitingRoom.outflow", value: "5/s").recorded == "waitingRoom.outflow=5/s")
        let problems = Self.problems(["waitingRoom.secretKey=hunter2", "waitingRoom.secretKey.x=1"])
        #expect(problems.count == 1)
        #expect(problems.allSatisfy { !$0.contains("hunter2") }, "\(problems)")
        #expect(problems.first?.hasPrefix("--set waitingRoom.secretKey.x=<redacted>:1:23:") == true, "\(problems)")
    }

    @Test func theScenarioDigestStaysTheFiles() throws {
        let plain = try Self.load([])
        let changed = try Self.load(["waitingRoom.outflow=1200/min"])
        #expect(plain.sourceSHA256 == changed.sourceSHA256)
        #expect(!changed.sourceSHA256.isEmpty)
    }
}
