import QueueClientCore
import Testing

@testable import QueueSim

@Suite("Visitor plan")
struct VisitorPlanTests {
    private static let keyRows = FakeColumns.rows("key-", 3000)
    private let columns = FakeColumns(["data/keys.csv:key": VisitorPlanTests.keyRows])

    private func scenario(
        seed: UInt64 = 42, phases: [ArrivalPhase] = [.steady(duration: .seconds(60), rate: 50, rampTo: nil)],
        process: ArrivalProcess = .uniform, keyOrder: FeederOrder = .unique
    ) -> Scenario {
        Scenario(
            name: "plan", seed: seed, target: Target(customerId: "acme", waitingRoomId: "launch"),
            arrivals: Arrivals(process: process, phases: phases),
            groups: [
                VisitorGroup(name: "app", weight: 80),
                VisitorGroup(
                    name: "invited", weight: 15,
                    enqueueKey: .feeder(CSVFeeder(path: "data/keys.csv", column: "key", order: keyOrder))),
                VisitorGroup(name: "partner", weight: 5, enqueueToken: .literal("partner-token")),
            ])
    }

    private func all(_ scenario: Scenario, visitors: Int? = nil) throws -> [PlannedVisitor] {
        var plan = try VisitorPlan(scenario: scenario, visitors: visitors, loadColumn: columns.load)
        var visitors: [PlannedVisitor] = []
        while let visitor = try plan.next() { visitors.append(visitor) }
        return visitors
    }

    /// The plan as text, one line per visitor: what "byte-identical" compares.
    private func rendered(_ visitors: [PlannedVisitor]) -> String {
        visitors.map {
            "\($0.index),\($0.arrival.sinceOrigin),\($0.groupIndex),\($0.userId),\($0.enqueueKey ?? ""),\($0.enqueueToken ?? "")"
        }.joined(separator: "\n")
    }

    @Test("the same seed gives the same plan; another seed a different one", arguments: ArrivalProcess.allCases)
    func determinism(process: ArrivalProcess) throws {
        let first = rendered(try all(scenario(seed: 7, process: process)))
        #expect(first == rendered(try all(scenario(seed: 7, process: process))))
        #expect(first != rendered(try all(scenario(seed: 8, process: process))))
        #expect(!first.isEmpty)
    }

    @Test("the loops' shares of a plan add up to the plan: same visitors, user ids and unique rows", arguments: [2, 3])
    func sharesAddUp(loops: Int) throws {
        let scenario = scenario(process: .poisson)
        let whole = try all(scenario)
        var shares: [PlannedVisitor] = []
        for loop in 0..<loops {
            var plan = try VisitorPlan(scenario: scenario, loadColumn: columns.load)
            while let visitor = try plan.next(ownedBy: loop, of: loops) {
                #expect(visitor.index % loops == loop)
                shares.append(visitor)
            }
        }
        #expect(rendered(shares.sorted { $0.index < $1.index }) == rendered(whole))
    }

    @Test("visitors come in arrival order with their group's data")
    func plannedVisitors() throws {
        let visitors = try all(scenario())
        #expect(visitors.count == 3000)
        #expect(visitors.map(\.index) == Array(0..<3000))
        #expect(visitors.map(\.arrival) == visitors.map(\.arrival).sorted())
        for visitor in visitors {
            switch visitor.groupIndex {
            case 0: #expect(visitor.enqueueKey == nil && visitor.enqueueToken == nil)
            case 1: #expect(visitor.enqueueKey?.hasPrefix("key-") == true && visitor.enqueueToken == nil)
            default: #expect(visitor.enqueueKey == nil && visitor.enqueueToken == "partner-token")
            }
        }
        let keys = visitors.compactMap(\.enqueueKey)
        #expect(Set(keys).count == keys.count)
    }

    @Test("user ids are UUID-shaped (version 4, RFC 4122 variant), stable and distinct")
    func userIds() throws {
        let ids = (0..<10_000).map { VisitorUserId.make(seed: 42, visitorIndex: $0) }
        for id in ids.prefix(500) {
            let parts = id.split(separator: "-", omittingEmptySubsequences: false)
            #expect(parts.map(\.count) == [8, 4, 4, 4, 12], "\(id)")
            #expect(id.allSatisfy { "0123456789ABCDEF-".contains($0) }, "\(id)")  // iOS prints UUIDs upper-case
            #expect(parts[2].first == "4")
            #expect("89AB".contains(parts[3].first!))
        }
        #expect(Set(ids).count == ids.count)
        #expect(VisitorUserId.make(seed: 42, visitorIndex: 17) == ids[17])
        #expect(VisitorUserId.make(seed: 43, visitorIndex: 17) != ids[17])
        #expect(try all(scenario()).prefix(100).map(\.userId) == Array(ids.prefix(100)))
    }

    @Test("no feeder row goes to two visitors when many tasks pull visitors concurrently")
    func uniqueUnderConcurrency() async throws {
        let source = PlanDispenser(plan: try VisitorPlan(scenario: scenario(), loadColumn: columns.load))
        let collected = try await withThrowingTaskGroup(of: [PlannedVisitor].self) { tasks in
            for _ in 0..<16 {
                tasks.addTask {
                    var mine: [PlannedVisitor] = []
                    while let visitor = try await source.next() {
                        mine.append(visitor)
                        await Task.yield()
                    }
                    return mine
                }
            }
            return try await tasks.reduce(into: []) { $0 += $1 }
        }
        let keys = collected.compactMap(\.enqueueKey)
        #expect(Set(keys).count == keys.count)
        // Whoever ran them, each visitor is the one the sequential plan describes.
        #expect(collected.sorted { $0.index < $1.index } == (try all(scenario())))
    }

    @Test("--visitors scales the plan")
    func scaledPlan() throws {
        let visitors = try all(scenario(phases: [.steady(duration: .seconds(60), rate: 10, rampTo: 30)]), visitors: 500)
        #expect(visitors.count == 500)
        #expect(visitors.last!.arrival <= RunInstant(sinceOrigin: .seconds(60)))
    }

    @Test("preflight counts the plan per group without running it")
    func preflightSummary() throws {
        let bursting = scenario(phases: [.burst(count: 10), .steady(duration: .seconds(20), rate: 100, rampTo: nil)])
        let summary = try VisitorPlan.preflight(scenario: bursting, loadColumn: columns.load)
        let visitors = try all(bursting)
        #expect(summary.visitorCount == visitors.count)
        #expect(summary.visitorsPerGroup == (0..<3).map { group in visitors.filter { $0.groupIndex == group }.count })
        #expect(summary.span == .seconds(20))
        #expect(summary.firstArrival == .origin)
        #expect(summary.lastArrival == visitors.last?.arrival)
        #expect(summary.scale == 1)
    }

    @Test("preflight refuses a feeder that would run out, naming group, file, column, rows and visitors")
    func preflightFeederTooShort() throws {
        // 30 000 visitors, about 4 500 invited, 3 000 keys.
        let big = scenario(phases: [.steady(duration: .seconds(300), rate: 100, rampTo: nil)])
        let summary = try VisitorPlan.preflight(scenario: big, keyOrder: .cycle, loadColumn: columns.load)
        let invited = summary.visitorsPerGroup[1]
        let expected = PlanError.feederTooShort(
            groups: ["invited"], file: "data/keys.csv", column: "key", order: .unique, rows: 3000,
            visitorsPlanned: invited)
        #expect(throws: expected) { try VisitorPlan.preflight(scenario: big, loadColumn: columns.load) }
        #expect(
            expected.description
                == "visitor group 'invited': \(invited) visitors are planned but data/keys.csv column 'key' has only 3000 rows; with order: unique each row goes to one visitor only: add rows, lower the visitor count or use order: cycle"
        )
        // Running the plan anyway fails at the first invited visitor beyond the last row.
        var plan = try VisitorPlan(scenario: big, loadColumn: columns.load)
        var invitedSoFar = 0
        var failure: PlanError?
        do {
            while let visitor = try plan.next() {
                if visitor.groupIndex == 1 { invitedSoFar += 1 }
            }
        } catch { failure = error }
        #expect(invitedSoFar == 3000)
        #expect(failure == .feederExhausted(group: "invited", file: "data/keys.csv", column: "key", rows: 3000))
        #expect(throws: failure!) { try plan.next() }
    }
}

extension VisitorPlan {
    /// Preflight of `scenario` with the invited group's order replaced (test convenience).
    fileprivate static func preflight(
        scenario: Scenario, keyOrder: FeederOrder, loadColumn: (CSVFeeder) throws -> [String]
    ) throws -> PlanSummary {
        var changed = scenario
        changed.groups[1].enqueueKey = .feeder(CSVFeeder(path: "data/keys.csv", column: "key", order: keyOrder))
        return try preflight(scenario: changed, loadColumn: loadColumn)
    }
}

/// Many tasks pulling from one plan, as a wall-clock dispatcher would hand visitors out.
private actor PlanDispenser {
    private var plan: VisitorPlan
    init(plan: VisitorPlan) { self.plan = plan }
    func next() throws -> PlannedVisitor? { try plan.next() }
}
