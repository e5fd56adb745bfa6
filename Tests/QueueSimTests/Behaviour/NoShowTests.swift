import Foundation
import Testing

@testable import QueueSim

/// `noShow: 20%` on the virtual clock: exactly the seeded visitors leave at once with their
/// queue number (`abandoned`, cause no-show, never a comeback), and under wasted turns everyone
/// else's row is byte for byte the row of the same run without `noShow`.
@Suite("noShow: the seeded share leaves its turn unused, the rest unaffected", .timeLimit(.minutes(2)))
struct NoShowTests {
    static func scenario(group: String, turns: String = "wasted", burst: Int = 200) -> String {
        """
        version: 1
        name: noshow
        seed: 11
        clock: virtual
        target: { customerId: acme, waitingRoomId: launch }
        arrivals: { phases: [ { burst: \(burst) } ] }
        visitors: [ { name: app, \(group) } ]
        waitingRoom: { outflow: 600/min, abandonedTurns: \(turns), latency: { enqueue: 0s, queuePage: 0s, protectedApi: 0s, jitter: 0s } }
        """
    }

    /// The visitors the seed makes no-shows (visitors.csv numbers them from 1): the engine's own
    /// draw, one stream per visitor.
    static func seededNoShows(share: Double, count: Int) -> Set<String> {
        let book = VisitorBehaviourBook(seed: 11, groups: [VisitorBehaviour(noShow: share)])
        return Set((0..<count).filter { book.isNoShow(group: 0, visitor: $0) }.map { String($0 + 1) })
    }

    @Test("20 %: the seeded visitors are abandoned at once as no-shows; the others' rows are unchanged")
    func seededShareLeavesTheRestUnaffected() throws {
        let expected = Self.seededNoShows(share: 0.2, count: 200)
        #expect((30...50).contains(expected.count), "about 20 % of 200: \(expected.count)")
        let with = try RunFixture.virtual(Self.scenario(group: "patience: { fixed: 1h }, noShow: 20%"))
        let without = try RunFixture.virtual(Self.scenario(group: "patience: { fixed: 1h }"))
        with.expectContract(arrivals: 200)
        #expect(with.outcomes == ["abandoned": expected.count, "passed": 200 - expected.count])
        #expect(without.outcomes == ["passed": 200])
        let left = with.visitors.rows.filter { $0["outcome"] == "abandoned" }
        #expect(Set(left.compactMap { $0["visitor"] }) == expected)
        for row in left {
            #expect(row["error"] == "no-show: left the queue page before its turn")
            #expect(row["wait_ms"] == "0", "a no-show leaves as soon as it has its queue number")
            #expect(row["queue_id"]?.isEmpty == false, "it did get a queue id")
            #expect(row["comebacks"] == nil || row["comebacks"] == "0")
        }
        // Wasted turns: each no-show's number is still reached, so the others wait exactly as long.
        let others = with.visitors.rows.filter { !expected.contains($0["visitor"] ?? "") }
        let same = without.visitors.rows.filter { !expected.contains($0["visitor"] ?? "") }
        for (row, twin) in zip(others, same) {
            #expect(
                row["outcome"] == twin["outcome"] && row["wait_ms"] == twin["wait_ms"],
                "visitor \(row["visitor"] ?? "")")
        }
        #expect(others.count == same.count)
    }

    @Test("no-shows never come back, even with comeback at 100 %; a group without noShow draws as before")
    func noComebackAndOwnStream() throws {
        let reports = try RunFixture.virtual(
            Self.scenario(
                group:
                    "patience: { fixed: 1h }, noShow: 20%, comeback: { share: 100%, after: { fixed: 1s }, max: 3 }"))
        #expect(reports.outcomes["abandoned"] == Self.seededNoShows(share: 0.2, count: 200).count)
        #expect(reports.manifest["comebacks"] as? Int == 0)
        // noShow has its own stream: the same visitors' patience draws are those of a book without it.
        let plain = VisitorBehaviourBook(
            seed: 11, groups: [VisitorBehaviour(patience: .exponential(mean: .seconds(60)))])
        let mixed = VisitorBehaviourBook(
            seed: 11, groups: [VisitorBehaviour(patience: .exponential(mean: .seconds(60)), noShow: 0.3)])
        for visitor in 0..<50 {
            #expect(
                plain.patience(group: 0, visitor: visitor, attempt: 0)
                    == mixed.patience(group: 0, visitor: visitor, attempt: 0))
        }
    }

    /// The room skips a number after 60 s without a word from it: 2,000 visitors at 10 a second
    /// keep the line long enough for the no-shows' turns to be skipped, not spent.
    @Test("skipped turns: the no-shows' numbers are skipped, so the others pass sooner")
    func skippedTurnsMoveTheOthersUp() throws {
        let with = try RunFixture.virtual(Self.scenario(group: "noShow: 20%", turns: "skipped", burst: 2000))
        let without = try RunFixture.virtual(
            Self.scenario(group: "patience: { fixed: 1h }", turns: "skipped", burst: 2000))
        let noShows = Self.seededNoShows(share: 0.2, count: 2000)
        #expect(with.outcomes["abandoned"] == noShows.count)
        let lastWait = { (table: CSVTable) in table.rows.compactMap { Int($0["wait_ms"] ?? "") }.max() ?? 0 }
        #expect(lastWait(with.visitors) < lastWait(without.visitors))
    }

    @Test("noShow is 0–100 %: anything else is refused at its position")
    func validation() {
        let minimal = ScenarioTestSupport.minimal
        #expect(
            ScenarioTestSupport.problems(minimal + "visitors: [ { name: a, noShow: 120% } ]\n") == [
                "8:32: `visitors[0].noShow` must be from 0% to 100% (a fraction such as 0.5 or a percentage such as 50%), found 120%"
            ])
        #expect(
            ScenarioTestSupport.problems(minimal + "visitors: [ { name: a, noShow: lots } ]\n").first?.hasPrefix(
                "8:32: `visitors[0].noShow` must be") == true)
        #expect(ScenarioTestSupport.problems(minimal + "visitors: [ { name: a, noShow: 5% } ]\n").isEmpty)
    }
}
