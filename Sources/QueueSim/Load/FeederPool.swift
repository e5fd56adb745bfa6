/// The rows of one CSV file read under one order, shared by every group and every column that
/// reads that file with that order.
///
/// Sharing is what keeps promises: two `unique` groups on `keys.csv` never get the same row,
/// and a group reading `key` and `token` from one file gets both from the same row (a visitor
/// draws one row per pool). Different orders on one file are separate pools.
struct FeederPool: Sendable {
    let file: String
    let order: FeederOrder
    private(set) var columnNames: [String] = []
    private var columnValues: [[String]] = []
    /// Rows every column has (the shortest column, should the reader give ragged ones).
    private(set) var rows = 0
    /// Rows handed out so far (`unique`, `sequence`, `cycle`).
    private(set) var drawn = 0
    /// `unique`: a Fisher-Yates shuffle of the row numbers done one step per draw, so a draw
    /// costs O(1) and rows never drawn are never shuffled.
    private var permutation: [Int32] = []
    private var shuffle: SeededRandom
    private let seed: UInt64

    init(file: String, order: FeederOrder, seed: UInt64) {
        self.file = file
        self.order = order
        self.seed = seed
        // Keyed by the file, not by its position in the scenario, so reordering or adding
        // groups does not reshuffle a file's rows.
        shuffle = SeededRandom(seed: seed, purpose: .feederShuffle, index: Self.stableHash(file))
    }

    /// Adds a column (once per name) and returns its position.
    mutating func addColumn(_ name: String, values: [String]) -> Int {
        if let existing = columnNames.firstIndex(of: name) { return existing }
        columnNames.append(name)
        columnValues.append(values)
        rows = columnValues.map(\.count).min() ?? 0
        if order == .unique { permutation = (0..<Int32(clamping: rows)).map { $0 } }
        return columnNames.count - 1
    }

    /// Rows are consumed (`unique`, `sequence`): every row goes to one visitor at most.
    var consumesRows: Bool { order == .unique || order == .sequence }

    /// The row for the next visitor reading this pool, or nil when it has run out
    /// (or has no rows at all).
    mutating func nextRow(visitorIndex: Int) -> Int? {
        guard rows > 0 else { return nil }
        switch order {
        case .sequence:
            guard drawn < rows else { return nil }
            defer { drawn += 1 }
            return drawn
        case .cycle:
            defer { drawn += 1 }
            return drawn % rows
        case .unique:
            guard drawn < rows else { return nil }
            let pick = drawn + Self.below(rows - drawn, using: &shuffle)
            permutation.swapAt(drawn, pick)
            defer { drawn += 1 }
            return Int(permutation[drawn])
        case .random:
            // Per visitor, so the row does not depend on who else was planned before.
            var random = SeededRandom(seed: seed, purpose: .feederRow, index: UInt64(visitorIndex))
            return Self.below(rows, using: &random)
        }
    }

    func value(row: Int, column: Int) -> String {
        columnValues[column][row]
    }

    /// A uniform integer in `0..<bound` by multiply-high. Written out rather than
    /// `Int.random(in:using:)` so the plan cannot change with the standard library's algorithm;
    /// the bias (bound / 2⁶⁴) is far below anything a scenario could notice.
    static func below(_ bound: Int, using random: inout SeededRandom) -> Int {
        Int(random.next().multipliedFullWidth(by: UInt64(bound)).high)
    }

    /// FNV-1a over the UTF-8 bytes: stable across runs and processes (unlike `Hasher`).
    static func stableHash(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        return hash
    }
}
