import QueueClientCore
import Testing

@testable import QueueSim

@Suite("Sharded plans: --shard K/N")
struct PlanShardTests {
    private static let keyRows = FakeColumns.rows("key-", 2000)
    private let columns = FakeColumns(["data/keys.csv:key": PlanShardTests.keyRows])

    private var scenario: Scenario {
        Scenario(
            name: "shards", seed: 11, target: Target(customerId: "acme", waitingRoomId: "launch"),
            arrivals: Arrivals(
                process: .poisson,
                phases: [.steady(duration: .seconds(20), rate: 20, rampTo: 60), .burst(count: 300)]),
            groups: [
                VisitorGroup(name: "app", weight: 70),
                VisitorGroup(
                    name: "invited", weight: 30,
                    enqueueKey: .feeder(CSVFeeder(path: "data/keys.csv", column: "key", order: .unique))),
            ])
    }

    private func visitors(shard: PlanShard, loop: Int = 0, of loops: Int = 1) throws -> [PlannedVisitor] {
        var plan = try VisitorPlan(scenario: scenario, shard: shard, loadColumn: columns.load)
        var visitors: [PlannedVisitor] = []
        while let visitor = try plan.next(ownedBy: loop, of: loops) { visitors.append(visitor) }
        return visitors
    }

    @Test(
        "the shards' visitors, each split again between event loops, are the whole plan exactly once",
        arguments: [(3, 1), (3, 2), (4, 3), (7, 1)])
    func unionIsTheWholePlan(shards: Int, loops: Int) throws {
        let whole = try visitors(shard: .whole)
        #expect(whole.count > 500)
        var union: [PlannedVisitor] = []
        for index in 0..<shards {
            let shard = try #require(PlanShard(index: index, count: shards))
            var ofShard: [PlannedVisitor] = []
            for loop in 0..<loops { ofShard += try visitors(shard: shard, loop: loop, of: loops) }
            #expect(ofShard.allSatisfy { $0.index % shards == index })
            #expect(ofShard.count == shard.share(of: whole.count))
            union += ofShard
        }
        union.sort { $0.index < $1.index }
        // Same numbers, arrivals, groups, user ids and feeder rows: `unique` keys included.
        #expect(union == whole)
        let keys = union.compactMap(\.enqueueKey)
        #expect(Set(keys).count == keys.count)
    }

    @Test("the preflight counts the shard's visitors and checks feeders for the whole plan")
    func preflight() throws {
        let whole = try VisitorPlan.preflight(scenario: scenario, loadColumn: columns.load)
        let shard = try #require(PlanShard(index: 1, count: 3))
        let part = try VisitorPlan.preflight(scenario: scenario, shard: shard, loadColumn: columns.load)
        #expect(part.plannedVisitorCount == whole.visitorCount)
        #expect(part.visitorCount == shard.share(of: whole.visitorCount))
        #expect(part.visitorsPerGroup == whole.visitorsPerGroup)
        // A feeder too short for the whole plan is refused in every shard, even where the
        // shard's own share would fit.
        let short = FakeColumns(["data/keys.csv:key": FakeColumns.rows("k", whole.visitorsPerGroup[1] - 1)])
        #expect(throws: PlanError.self) {
            try VisitorPlan.preflight(scenario: scenario, shard: shard, loadColumn: short.load)
        }
    }

    @Test("--shard K/N and auto/N with JOB_COMPLETION_INDEX; bad values say what is expected")
    func parsing() {
        #expect(PlanShard.parse("2/5", environment: [:]) == .success(PlanShard(index: 2, count: 5)!))
        #expect(
            PlanShard.parse("auto/3", environment: ["JOB_COMPLETION_INDEX": "1"])
                == .success(PlanShard(index: 1, count: 3)!))
        #expect(PlanShard.parse("auto/3", environment: [:]) == .failure(.noJobIndex(count: 3)))
        #expect(
            PlanShard.parse("auto/3", environment: ["JOB_COMPLETION_INDEX": "3"])
                == .failure(.indexOutOfRange(index: 3, count: 3)))
        #expect(
            PlanShard.parse("auto/3", environment: ["JOB_COMPLETION_INDEX": "x"])
                == .failure(.badJobIndex("x", count: 3)))
        for bad in ["3", "1/0", "-1/2", "a/b", "1/2/3", ""] {
            guard case .failure = PlanShard.parse(bad, environment: [:]) else {
                Issue.record("\(bad) was accepted")
                continue
            }
        }
        #expect(PlanShard.parse("3/3", environment: [:]) == .failure(.indexOutOfRange(index: 3, count: 3)))
    }

    @Test("a sharded run is refused on the virtual clock and with the embedded room, at the scenario's place")
    func whatCannotBeSharded() throws {
        var options = RunOptions()
        options.shard = PlanShard(index: 0, count: 2)!
        var virtual = scenario
        virtual.clock = .virtual
        virtual.positions.clock = YamlMark(line: 3, column: 1)
        #expect {
            try PreparedRun(scenario: virtual, options: options)
        } throws: { error in
            guard let failure = error as? PreflightFailure, case PlanError.shardedVirtualClock = failure.reason
            else { return false }
            return failure.position?.line == 3
        }
        var embedded = scenario
        embedded.positions.target = YamlMark(line: 5, column: 1)
        #expect {
            try PreparedRun(scenario: embedded, options: options)
        } throws: { error in
            guard let failure = error as? PreflightFailure, case PlanError.shardedEmbeddedRoom = failure.reason
            else { return false }
            return failure.position?.line == 5 && failure.description.contains("queuesim serve")
        }
        var remote = scenario
        remote.target.endpoint = .baseURL(scheme: "http", host: "127.0.0.1", port: 9)
        remote.waitingRoom = nil
        remote.groups = [VisitorGroup(name: "app", weight: 1)]
        remote.run.concurrency = 10
        options.shard = PlanShard(index: 1, count: 3)!
        let prepared = try PreparedRun(scenario: remote, options: options)
        // `run.concurrency` is the whole run's; each shard holds its share.
        #expect(prepared.scenario.run.concurrency == 3)
        #expect(prepared.runDescription.shard?.shard == options.shard)
    }
}
