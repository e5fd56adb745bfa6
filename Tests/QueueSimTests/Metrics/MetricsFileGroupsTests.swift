import Foundation
import QueueClientCore
import Testing

@testable import QueueSim

/// Issue 51 item 8: metrics.prom's group series are written group by group from each group's
/// changes (`MetricsFileGroups`), no longer from a snapshot per second with every group in
/// it. The file must be the same bytes as the snapshots' exposition, which stays the
/// reference here: each case renders both and compares them whole.
@Suite("Metrics: metrics.prom's group series, written group by group, are the snapshots' bytes")
struct MetricsFileGroupsTests {
    static let identity = MetricsSnapshot.Identity(runId: "groups-test", scenario: "gr\"oups", shard: "2/3")

    /// The file as `run` writes it, and as the snapshots with every group's series render it.
    static func bothTexts(
        _ records: [VisitorRecord], groups: [String], seconds: Int, answers: RequestStatistics = RequestStatistics()
    ) -> (written: String, reference: String) {
        var series = RunMetricsSeries(groupNames: groups)
        for record in records { series.add(record) }
        var written = ""
        MetricsFile.write(
            series, seconds: seconds, timestampBase: 1_764_000_000, identity: identity, answers: answers,
            saturated: [2, 3]
        ) { written += $0 }
        let snapshots = series.snapshots(
            seconds: seconds, identity: identity, answers: answers, saturated: [2, 3])
        let reference = MetricsExposition.openMetrics(
            snapshots.enumerated().map { (seconds: 1_764_000_000 + Int64($0.offset) + 1, snapshot: $0.element) })
        return (written, reference)
    }

    static func answers() -> RequestStatistics {
        var answers = RequestStatistics()
        for second in [0, 3, 4, 9] {
            answers.answered(.enqueue, status: .init(code: 200), milliseconds: 40, inSecond: second)
            answers.answered(.queuePage, status: .init(code: 503), milliseconds: 900, inSecond: second + 1)
        }
        return answers
    }

    @Test("three groups over 300 s (one idle), with answers: the same bytes")
    func smallScenario() {
        let texts = Self.bothTexts(
            SparseGroupSeriesTests.records(seconds: 300), groups: ["app", "partner", "idle"], seconds: 300,
            answers: Self.answers())
        #expect(texts.written.utf8.count > 10_000)
        #expect(texts.written == texts.reference)
    }

    @Test("2,000 groups of one visitor each, some without visitors: the same bytes")
    func manyGroups() {
        let groups = (1...2000).map { "g\($0)" }
        let records = groups.enumerated().compactMap { index, group -> VisitorRecord? in
            guard index % 9 != 4 else { return nil }
            return index % 7 == 3
                ? directVisitor(index, group: group, arrival: index * 13 % 20_000, enqueueMs: 30, outcome: .error)
                : queuedVisitor(
                    index, group: group, arrival: index * 7 % 15_000, enqueueMs: 25, waitMs: index * 7_919 % 40_000,
                    outcome: index % 5 == 1 ? .abandoned : .passed)
        }
        let texts = Self.bothTexts(records, groups: groups, seconds: 51, answers: Self.answers())
        #expect(texts.written == texts.reference)
    }

    @Test("an hour and a half, busy groups, a name to escape and a group the scenario did not declare")
    func longRunAndOddNames() {
        var records: [VisitorRecord] = []
        let groups = ["busy", "we\"ird\\name", "quiet"]
        for index in 0..<3_000 {
            // Busy over more than one 1,024-second block, with waits up to two hours.
            let arrival = index * 1_800 + (index % 3) * 400
            let group = index % 10 == 0 ? "we\"ird\\name" : index % 97 == 0 ? "undeclared" : "busy"
            var record = queuedVisitor(
                index, group: group, arrival: arrival, enqueueMs: 50, waitMs: (index * 104_729) % 7_300_000 % 400_000)
            if index % 11 == 0 {
                record.earlierStays = [QueueStay(entered: at(arrival + 50), left: at(arrival + 2_050))]
            }
            records.append(record)
        }
        let seconds = records.map { Timeline.second(of: $0.ended) }.max()! + 2
        let texts = Self.bothTexts(records, groups: groups, seconds: seconds)
        #expect(texts.written.contains("group=\"we\\\"ird\\\\name\""))
        #expect(texts.written.contains("group=\"undeclared\""))
        #expect(texts.written == texts.reference)
    }

    @Test("runs of one second and of no visitors at all")
    func edges() {
        let one = Self.bothTexts([queuedVisitor(0, group: "a", enqueueMs: 10, waitMs: 300)], groups: ["a"], seconds: 1)
        #expect(one.written == one.reference)
        let none = Self.bothTexts([], groups: ["a", "b"], seconds: 40)
        #expect(none.written == none.reference)
        #expect(!none.written.contains("queuesim_visitors_total"))
        let noGroups = Self.bothTexts([], groups: [], seconds: 5)
        #expect(noGroups.written == noGroups.reference)
    }

    @Test("the schedule's jumps land on the seconds it samples one by one")
    func jumpsMatchTheSchedule() {
        // The project's own seeded generator; the purpose only picks a stream.
        var generator = SeededRandom(seed: 51, purpose: .groupChoice)
        for _ in 0..<500 {
            let seconds = Int.random(in: 0...200, using: &generator)
            let changes = (0..<Int.random(in: 0...12, using: &generator)).map { _ in
                Int.random(in: 0...max(0, seconds + 1), using: &generator)
            }
            var schedule = SampleSchedule(changes: changes, seconds: seconds)
            let oneByOne = (0..<seconds).filter { schedule.samples($0) }
            let jumped = SampleSchedule.sampledSeconds(changes: Array(Set(changes)).sorted(), seconds: seconds)
            #expect(jumped == oneByOne, "changes \(changes.sorted()) over \(seconds) s")
        }
    }
}
