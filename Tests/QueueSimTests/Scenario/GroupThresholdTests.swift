import Foundation
import QueueClientCore
import Testing

@testable import QueueSim

/// Thresholds on one visitor group (issue 13): `- partner: wait.p95 < 5m`.
@Suite("thresholds per group")
struct GroupThresholdTests {
    static let scenario = """
        version: 1
        target: { customerId: acme, waitingRoomId: launch }
        arrivals: { phases: [ { burst: 40 } ] }
        visitors:
          - { name: app, weight: 3 }
          - { name: partner, weight: 1 }

        """

    @Test func aOneKeyMappingOrAPrefixedLineNamesTheGroup() throws {
        let scenario = try ScenarioTestSupport.load(
            Self.scenario + "thresholds:\n  - partner: wait.p95 < 5m\n  - \"app: passed >= 99%\"\n  - error < 1%\n")
        #expect(scenario.thresholds.map(\.group) == ["partner", "app", nil])
        #expect(scenario.thresholds.map(\.source) == ["partner: wait.p95 < 5m", "app: passed >= 99%", "error < 1%"])
        #expect(scenario.thresholds[0].metric == .timing(.wait, .percentile(95)))
    }

    @Test func anUnknownGroupIsRefusedAtItsName() {
        #expect(
            ScenarioTestSupport.problems(Self.scenario + "thresholds:\n  - partners: passed >= 99%\n") == [
                "8:5: a threshold for one group reads `- GROUP: METRIC OPERATOR VALUE`, but `partners` is not one of the scenario's groups; did you mean `partner`?"
            ])
    }

    @Test func aProblemInAGroupsLineIsPointedAtInTheLine() {
        #expect(
            ScenarioTestSupport.problems(Self.scenario + "thresholds:\n  - partner: wait.p95 < soon\n") == [
                "8:25: `wait.p95` is compared with a duration such as 300ms, 2s or 5m, found `soon`"
            ])
    }

    @Test func aGroupsThresholdMeasuresThatGroupOnly() throws {
        var statistics = OutcomeStatistics(groupNames: ["app", "partner"])
        statistics.add(directVisitor(0, group: "app", enqueueMs: 10, outcome: .passed))
        statistics.add(directVisitor(1, group: "app", enqueueMs: 10, outcome: .passed))
        statistics.add(directVisitor(2, group: "app", enqueueMs: 10, outcome: .passed))
        statistics.add(directVisitor(3, group: "partner", enqueueMs: 90, outcome: .error))
        let measurements = RunMeasurements(statistics: statistics)
        func threshold(_ line: String) throws -> Threshold { try ThresholdParser.parse(line).get() }
        #expect(measurements.measure(try threshold("passed >= 50%")) == 0.75)
        #expect(measurements.measure(try threshold("partner: passed >= 50%")) == 0)
        #expect(measurements.measure(try threshold("app: passed >= 50%")) == 1)
        #expect(measurements.measure(try threshold("partner: enqueue.max < 1s")) == 90)
        // A group nobody arrived in: counts of 0, no timing.
        #expect(measurements.measure(try threshold("late: visitors >= 1")) == 0)
        #expect(measurements.measure(try threshold("late: enqueue.p50 < 1s")) == nil)
        let verdicts = measurements.judge([try threshold("partner: error < 1%"), try threshold("app: error < 1%")])
        #expect(verdicts.map(\.passed) == [false, true])
        #expect(ThresholdTable.render(verdicts).contains("partner: error | < 1%  | 100%     | FAIL"))
    }

    /// Rows of several groups interleaved, one of them undeclared: each counted in its own
    /// group and outcome (the statistics remember the last row's group).
    @Test func interleavedGroupsAreCountedApart() {
        var statistics = OutcomeStatistics(groupNames: ["app", "partner"])
        let rows: [(String, VisitorOutcome)] = [
            ("app", .passed), ("partner", .error), ("partner", .error), ("app", .queued), ("late", .passed),
            ("app", .passed), ("late", .abandoned), ("partner", .passed),
        ]
        for (index, (group, outcome)) in rows.enumerated() {
            statistics.add(directVisitor(index, group: group, enqueueMs: 10, outcome: outcome))
        }
        #expect(statistics.groupNames == ["app", "partner", "late"])
        #expect(statistics.visitorsPerGroup == [3, 3, 2])
        #expect(statistics.cell(group: 0, outcome: .passed)?.count == 2)
        #expect(statistics.cell(group: 0, outcome: .queued)?.count == 1)
        #expect(statistics.cell(group: 1, outcome: .error)?.count == 2)
        #expect(statistics.cell(group: 1, outcome: .passed)?.count == 1)
        #expect(statistics.cell(group: 2, outcome: .abandoned)?.count == 1)
        #expect(statistics.count(of: .passed) == 4)
    }

    @Test func outcomeOrdinalsAreTheReportsColumnOrder() {
        #expect(VisitorOutcome.allCases.map(\.ordinal) == Array(VisitorOutcome.allCases.indices))
    }
}
