/// The enqueue keys, enqueue tokens and invite codes of every visitor group: literals, or rows
/// of CSV feeders.
///
/// Values are handed out by a single sequential pass in arrival order (the planner), never by
/// visitor tasks, so "each row to one visitor" holds however many tasks run the visitors.
/// - `unique`: rows in a seeded shuffled order (`.feederShuffle`), no row twice.
/// - `sequence`: rows in file order, no row twice.
/// - `cycle`: rows in file order, starting over after the last.
/// - `random`: row drawn per visitor from `SeededRandom(seed, .feederRow, visitorIndex)`.
/// One file read with one order is one shared pool: groups sharing `keys.csv` under `unique`
/// never get the same row, and a visitor reading two columns of one file gets one row.
/// Running out (`unique`, `sequence`), or a feeder with no rows, is `PlanError.feederExhausted`.
package struct FeederSet: Sendable {
    /// Where one of a group's values comes from.
    enum ValueSource: Sendable, Equatable {
        case absent
        case literal(String)
        case pool(Int, column: Int)

        var pool: Int? {
            if case .pool(let pool, _) = self { return pool }
            return nil
        }
    }

    struct GroupSources: Sendable {
        let name: String
        let key: ValueSource
        let token: ValueSource
        let inviteCode: ValueSource

        /// In the order `values` draws them.
        var all: [ValueSource] { [key, token, inviteCode] }
    }

    private(set) var pools: [FeederPool] = []
    let groups: [GroupSources]
    /// Each group's values when none comes from a feeder (the same for all its visitors), by
    /// group index: `values` returns them without the unoptimized draw (1 % of a keep-alive
    /// request's CPU in `bench/live-ceiling.sh`).
    private let fixedValues: [VisitorValues?]

    /// - Parameter loadColumn: reads one column of one CSV file (the path as written in the
    ///   scenario, already resolved); called once per distinct file and column.
    package init(
        groups: [VisitorGroup], seed: UInt64, loadColumn: (CSVFeeder) throws -> [String]
    ) throws {
        var pools: [FeederPool] = []
        var loaded: [String: [String]] = [:]
        func source(_ value: VisitorValue?) throws -> ValueSource {
            switch value {
            case nil: return .absent
            case .literal(let text): return .literal(text)
            case .feeder(let feeder):
                let poolIndex: Int
                if let existing = pools.firstIndex(where: { $0.file == feeder.path && $0.order == feeder.order }) {
                    poolIndex = existing
                } else {
                    pools.append(FeederPool(file: feeder.path, order: feeder.order, seed: seed))
                    poolIndex = pools.count - 1
                }
                let cacheKey = feeder.path + "\u{0}" + feeder.column
                let values = try loaded[cacheKey] ?? loadColumn(feeder)
                loaded[cacheKey] = values
                let column = pools[poolIndex].addColumn(feeder.column, values: values)
                return .pool(poolIndex, column: column)
            }
        }
        self.groups = try groups.map { group in
            GroupSources(
                name: group.name, key: try source(group.enqueueKey), token: try source(group.enqueueToken),
                inviteCode: try source(group.inviteCode))
        }
        self.pools = pools
        fixedValues = self.groups.map { sources in
            guard sources.all.allSatisfy({ $0.pool == nil }) else { return nil }
            func literal(_ source: ValueSource) -> String? {
                if case .literal(let text) = source { return text }
                return nil
            }
            return VisitorValues(
                enqueueKey: literal(sources.key), enqueueToken: literal(sources.token),
                inviteCode: literal(sources.inviteCode))
        }
    }

    /// The enqueue key and token for a visitor of group `groupIndex`. Call in arrival order:
    /// `unique`, `sequence` and `cycle` hand rows out in the order of these calls.
    /// Throws `PlanError` only.
    package mutating func values(forGroup groupIndex: Int, visitorIndex: Int) throws(PlanError) -> VisitorValues {
        if let fixed = fixedValues[groupIndex] { return fixed }
        return try drawValues(forGroup: groupIndex, visitorIndex: visitorIndex)
    }

    /// `values` for a group that reads a feeder. `@_optimize(none)`: Swift 6.3.1's optimizer
    /// crashes on this function in release builds ("Found ownership error?!" in
    /// CopyPropagation), whatever its shape.
    @_optimize(none)
    private mutating func drawValues(forGroup groupIndex: Int, visitorIndex: Int) throws(PlanError) -> VisitorValues {
        let sources = groups[groupIndex]
        // One row per pool: two columns of one file come from the same row.
        let keyRow = try row(sources.key, visitorIndex: visitorIndex, group: sources.name)
        let tokenRow =
            sources.token.pool != nil && sources.token.pool == sources.key.pool
            ? keyRow : try row(sources.token, visitorIndex: visitorIndex, group: sources.name)
        var values = VisitorValues(
            enqueueKey: resolve(sources.key, row: keyRow), enqueueToken: resolve(sources.token, row: tokenRow))
        if sources.inviteCode != .absent {
            let pool = sources.inviteCode.pool
            let codeRow =
                pool != nil && pool == sources.key.pool
                ? keyRow
                : pool != nil && pool == sources.token.pool
                    ? tokenRow : try row(sources.inviteCode, visitorIndex: visitorIndex, group: sources.name)
            values.inviteCode = resolve(sources.inviteCode, row: codeRow)
        }
        return values
    }

    /// A new row of the source's pool for this visitor (0 for a literal or absent source).
    private mutating func row(_ source: ValueSource, visitorIndex: Int, group: String) throws(PlanError) -> Int {
        guard let row = draw(source, visitorIndex: visitorIndex) else { throw exhausted(source, group: group) }
        return row
    }

    /// The next row of the source's pool (0 for a literal or absent source), nil when it ran out.
    private mutating func draw(_ source: ValueSource, visitorIndex: Int) -> Int? {
        guard case .pool(let pool, _) = source else { return 0 }
        return pools[pool].nextRow(visitorIndex: visitorIndex)
    }

    private func exhausted(_ source: ValueSource, group: String) -> PlanError {
        guard case .pool(let pool, let column) = source else { preconditionFailure("only pools run out") }
        let exhausted = pools[pool]
        return PlanError.feederExhausted(
            group: group, file: exhausted.file, column: exhausted.columnNames[column], rows: exhausted.rows)
    }

    private func resolve(_ source: ValueSource, row: Int) -> String? {
        switch source {
        case .absent: nil
        case .literal(let text): text
        case .pool(let pool, let column): pools[pool].value(row: row, column: column)
        }
    }

    /// Checks, before the run, that `visitorsPerGroup` (indexed like the groups) can be served:
    /// consumed pools have a row for every visitor of every group reading them, and no feeder
    /// that any planned visitor reads is empty.
    package func checkCapacity(visitorsPerGroup: [Int]) throws {
        for (poolIndex, pool) in pools.enumerated() {
            var readers: [String] = []
            var demand = 0
            var column: String?
            for (groupIndex, sources) in groups.enumerated() {
                let columns = sources.all.compactMap { source -> Int? in
                    guard case .pool(poolIndex, let column) = source else { return nil }
                    return column
                }
                guard let first = columns.first, visitorsPerGroup[groupIndex] > 0 else { continue }
                readers.append(sources.name)
                demand += visitorsPerGroup[groupIndex]
                column = column ?? pool.columnNames[first]
            }
            guard let column, demand > 0 else { continue }
            if pool.rows == 0 || (pool.consumesRows && demand > pool.rows) {
                throw PlanError.feederTooShort(
                    groups: readers, file: pool.file, column: column, order: pool.order, rows: pool.rows,
                    visitorsPlanned: demand)
            }
        }
    }
}

/// What one visitor carries from its group's literals and feeders.
package struct VisitorValues: Sendable, Equatable {
    package var enqueueKey: String?
    package var enqueueToken: String?
    package var inviteCode: String?

    package init(enqueueKey: String? = nil, enqueueToken: String? = nil, inviteCode: String? = nil) {
        self.enqueueKey = enqueueKey
        self.enqueueToken = enqueueToken
        self.inviteCode = inviteCode
    }
}
