import Testing

@testable import QueueSim

/// CSV columns handed to the planner in place of files.
struct FakeColumns {
    var columns: [String: [String]]
    init(_ columns: [String: [String]]) { self.columns = columns }

    func load(_ feeder: CSVFeeder) throws -> [String] {
        guard let values = columns[feeder.path + ":" + feeder.column] else {
            throw PlanTestError.missingColumn(feeder.path, feeder.column)
        }
        return values
    }

    static func rows(_ prefix: String, _ count: Int) -> [String] {
        (0..<count).map { "\(prefix)\($0)" }
    }
}

enum PlanTestError: Error {
    case missingColumn(String, String)
}

@Suite("Feeders")
struct FeederSetTests {
    private func feeder(_ order: FeederOrder, column: String = "key", path: String = "keys.csv") -> VisitorValue {
        .feeder(CSVFeeder(path: path, column: column, order: order))
    }

    private func keys(_ set: inout FeederSet, group: Int = 0, visitors: Range<Int>) throws -> [String] {
        try visitors.map { try set.values(forGroup: group, visitorIndex: $0).enqueueKey ?? "-" }
    }

    @Test("unique: every row once, in a shuffled order, then a clear error")
    func uniqueExhausts() throws {
        let rows = FakeColumns.rows("k", 100)
        var set = try FeederSet(
            groups: [VisitorGroup(name: "invited", enqueueKey: feeder(.unique))], seed: 1,
            loadColumn: FakeColumns(["keys.csv:key": rows]).load)
        let handed = try keys(&set, visitors: 0..<100)
        #expect(Set(handed) == Set(rows))
        #expect(handed != rows)
        let error = PlanError.feederExhausted(group: "invited", file: "keys.csv", column: "key", rows: 100)
        #expect(throws: error) { try set.values(forGroup: 0, visitorIndex: 100) }
        #expect(error.description.contains("'invited'"))
        #expect(error.description.contains("keys.csv column 'key' ran out after 100 rows"))
    }

    @Test("unique: the same seed shuffles alike, another seed otherwise")
    func uniqueSeeded() throws {
        let columns = FakeColumns(["keys.csv:key": FakeColumns.rows("k", 50)])
        func order(seed: UInt64) throws -> [String] {
            var set = try FeederSet(
                groups: [VisitorGroup(name: "g", enqueueKey: feeder(.unique))], seed: seed, loadColumn: columns.load)
            return try keys(&set, visitors: 0..<50)
        }
        #expect(try order(seed: 8) == order(seed: 8))
        #expect(try order(seed: 8) != order(seed: 9))
    }

    @Test("groups reading one file under unique share its rows: none goes to two visitors")
    func uniqueAcrossGroups() throws {
        var set = try FeederSet(
            groups: [
                VisitorGroup(name: "a", enqueueKey: feeder(.unique)),
                VisitorGroup(name: "b", enqueueKey: feeder(.unique)),
            ], seed: 2, loadColumn: FakeColumns(["keys.csv:key": FakeColumns.rows("k", 60)]).load)
        var handed: [String] = []
        for visitor in 0..<60 {
            handed.append(try set.values(forGroup: visitor % 2, visitorIndex: visitor).enqueueKey!)
        }
        #expect(Set(handed).count == 60)
        #expect(throws: PlanError.self) { try set.values(forGroup: 1, visitorIndex: 60) }
    }

    @Test("a key and a token read from one file come from the same row")
    func pairedColumns() throws {
        let columns = FakeColumns([
            "pairs.csv:key": FakeColumns.rows("key", 20), "pairs.csv:token": FakeColumns.rows("token", 20),
        ])
        var loads = 0
        var set = try FeederSet(
            groups: [
                VisitorGroup(
                    name: "g", enqueueKey: feeder(.unique, column: "key", path: "pairs.csv"),
                    enqueueToken: feeder(.unique, column: "token", path: "pairs.csv"))
            ], seed: 5,
            loadColumn: {
                loads += 1
                return try columns.load($0)
            })
        #expect(loads == 2)
        for visitor in 0..<20 {
            let values = try set.values(forGroup: 0, visitorIndex: visitor)
            #expect(values.enqueueKey!.dropFirst(3) == values.enqueueToken!.dropFirst(5))
        }
    }

    @Test("sequence: file order, then the same error")
    func sequenceOrder() throws {
        var set = try FeederSet(
            groups: [VisitorGroup(name: "seq", enqueueKey: feeder(.sequence))], seed: 1,
            loadColumn: FakeColumns(["keys.csv:key": ["a", "b", "c"]]).load)
        #expect(try keys(&set, visitors: 0..<3) == ["a", "b", "c"])
        #expect(throws: PlanError.feederExhausted(group: "seq", file: "keys.csv", column: "key", rows: 3)) {
            try set.values(forGroup: 0, visitorIndex: 3)
        }
    }

    @Test("cycle: file order, starting over after the last row")
    func cycleWraps() throws {
        var set = try FeederSet(
            groups: [VisitorGroup(name: "c", enqueueKey: feeder(.cycle))], seed: 1,
            loadColumn: FakeColumns(["keys.csv:key": ["a", "b", "c"]]).load)
        #expect(try keys(&set, visitors: 0..<7) == ["a", "b", "c", "a", "b", "c", "a"])
    }

    @Test("random: rows from the file, by seed and visitor index only")
    func randomReproducible() throws {
        let rows = FakeColumns.rows("r", 10)
        let columns = FakeColumns(["keys.csv:key": rows])
        func make(seed: UInt64) throws -> FeederSet {
            try FeederSet(
                groups: [VisitorGroup(name: "r", enqueueKey: feeder(.random))], seed: seed, loadColumn: columns.load)
        }
        var forward = try make(seed: 4)
        var backward = try make(seed: 4)
        var other = try make(seed: 5)
        let values = try keys(&forward, visitors: 0..<200)
        #expect(
            try (0..<200).reversed().map { try backward.values(forGroup: 0, visitorIndex: $0).enqueueKey! }.reversed()
                == values)
        #expect(try keys(&other, visitors: 0..<200) != values)
        #expect(Set(values).isSubset(of: Set(rows)))
        #expect(Set(values).count == 10)  // 200 draws over 10 rows hit every row (miss chance ≈ 10⁻⁹)
    }

    @Test("literals and absent values; an empty column is an error for any order")
    func literalsAndEmpty() throws {
        var set = try FeederSet(
            groups: [
                VisitorGroup(name: "lit", enqueueToken: .literal("tok")),
                VisitorGroup(name: "empty", enqueueKey: feeder(.cycle)),
            ], seed: 1, loadColumn: FakeColumns(["keys.csv:key": []]).load)
        let literal = try set.values(forGroup: 0, visitorIndex: 0)
        #expect(literal.enqueueKey == nil)
        #expect(literal.enqueueToken == "tok")
        let error = PlanError.feederExhausted(group: "empty", file: "keys.csv", column: "key", rows: 0)
        #expect(throws: error) { try set.values(forGroup: 1, visitorIndex: 1) }
        #expect(error.description == "visitor group 'empty': keys.csv column 'key' has no rows")
    }

    @Test("a column that cannot be read fails construction with the reader's error")
    func loadFailure() {
        #expect(throws: PlanTestError.self) {
            try FeederSet(
                groups: [VisitorGroup(name: "g", enqueueKey: feeder(.cycle, path: "missing.csv"))], seed: 1,
                loadColumn: FakeColumns([:]).load)
        }
    }
}
