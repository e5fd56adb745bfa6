import Histogram
import QueueClientCore

/// The timings of a visitor, in whole milliseconds, as HdrHistograms.
///
/// What goes in (documented in docs/reports.md): `enqueue` holds every visitor whose enqueue
/// was decided; `wait` every visitor that entered the queue page; `total` every visitor;
/// `connect` and `tls` every visitor whose first request opened a connection (and, for `tls`,
/// an https one). A visitor that never waited is not a zero in `wait`: "p95 wait" means "of
/// those who waited".
struct TimingHistograms {
    /// Lists until a timing has `TimingValues.listLimit` values (most cells of a scenario of
    /// many small groups never do), histograms after.
    private var values = [TimingValues](repeating: TimingValues(), count: Threshold.Timing.allCases.count)

    var enqueue: Histogram<UInt64> {
        get { values[Self.slot(.enqueue)].histogram }
        set { values[Self.slot(.enqueue)] = TimingValues(newValue) }
    }
    var wait: Histogram<UInt64> {
        get { values[Self.slot(.wait)].histogram }
        set { values[Self.slot(.wait)] = TimingValues(newValue) }
    }
    var total: Histogram<UInt64> {
        get { values[Self.slot(.total)].histogram }
        set { values[Self.slot(.total)] = TimingValues(newValue) }
    }
    var connect: Histogram<UInt64> {
        get { values[Self.slot(.connect)].histogram }
        set { values[Self.slot(.connect)] = TimingValues(newValue) }
    }
    var tls: Histogram<UInt64> {
        get { values[Self.slot(.tls)].histogram }
        set { values[Self.slot(.tls)] = TimingValues(newValue) }
    }

    /// Auto-resizing with three significant digits: exact up to 2 s, within 0.1 % above, and a
    /// few hundred kilobytes at most however long the run.
    static func makeHistogram() -> Histogram<UInt64> {
        TimingHistogram.make()
    }

    private static func slot(_ timing: Threshold.Timing) -> Int {
        switch timing {
        case .enqueue: 0
        case .wait: 1
        case .total: 2
        case .connect: 3
        case .tls: 4
        }
    }

    /// How many of the five timings hold an HdrHistogram (the others a short list or nothing).
    var histogramCount: Int { values.count { $0.holdsHistogram } }

    mutating func add(_ record: VisitorRecord) {
        if let enqueue = record.enqueueMilliseconds { values[0].record(UInt64(enqueue)) }
        if record.queueEntered != nil { values[1].record(UInt64(record.waitMilliseconds)) }
        values[2].record(UInt64(record.totalMilliseconds))
        if let connect = record.connectMilliseconds { values[3].record(UInt64(connect)) }
        if let tls = record.tlsMilliseconds { values[4].record(UInt64(tls)) }
    }

    mutating func merge(_ other: TimingHistograms) {
        for index in values.indices { values[index].add(other.values[index]) }
    }

    /// A timing as the reports read it, without making a histogram of a short list.
    func reading(_ timing: Threshold.Timing) -> TimingReading {
        values[Self.slot(timing)].reading
    }

    func histogram(for timing: Threshold.Timing) -> Histogram<UInt64> {
        values[Self.slot(timing)].histogram
    }
}

/// Counts and timing histograms per (group, outcome): the source of `summary.csv` and of the
/// threshold measurements. Groups are kept in scenario order; a group name the scenario did
/// not declare (a runner bug, but reports must not drop the visitor) is added after them, and
/// the summary sorts such names so the output stays deterministic.
struct OutcomeStatistics {
    struct Cell {
        var count = 0
        var timings = TimingHistograms()
    }

    private(set) var groupNames: [String]
    private let declaredGroupCount: Int
    private var groupIndexByName: [String: Int]
    /// The group of the last row: rows come in runs of one group, and hashing its name for
    /// every visitor was most of this type's time on the row writer's thread.
    private var lastGroup: (name: String, index: Int)?
    /// `cells[group][outcome]`, outcome in `VisitorOutcome.allCases` order.
    private var cells: [[Cell?]]
    private(set) var visitorsPerGroup: [Int]
    /// The `all` cells by outcome, worked out once the recording is over (`settle`): summary.csv,
    /// report.html and run.json each read them, and merging 2,000 groups' timings three times
    /// was a few percent of such a run (issue 51). Nil while cells may still change.
    private var settledAcrossGroups: [Cell?]?

    static let outcomes = VisitorOutcome.allCases
    private static let outcomeIndex: [VisitorOutcome: Int] = Dictionary(
        uniqueKeysWithValues: VisitorOutcome.allCases.enumerated().map { ($1, $0) })

    init(groupNames: [String]) {
        var unique: [String] = []
        var seen: Set<String> = []
        // A set, not the list's `contains`: quadratic in groups, 1 % of a run of 2,000.
        for name in groupNames where seen.insert(name).inserted { unique.append(name) }
        self.groupNames = unique
        declaredGroupCount = unique.count
        groupIndexByName = Dictionary(uniqueKeysWithValues: unique.enumerated().map { ($1, $0) })
        cells = Array(
            repeating: [Cell?](repeating: nil, count: Self.outcomes.count), count: unique.count)
        visitorsPerGroup = Array(repeating: 0, count: unique.count)
    }

    var visitorCount: Int { visitorsPerGroup.reduce(0, +) }

    mutating func add(_ record: VisitorRecord) {
        settledAcrossGroups = nil
        let group = groupIndex(for: record.group)
        let outcome = record.outcome.ordinal
        // Mutated in place: copying a cell out would copy its histograms' buffers per visitor.
        if cells[group][outcome] == nil { cells[group][outcome] = Cell() }
        cells[group][outcome]!.count += 1
        cells[group][outcome]!.timings.add(record)
        visitorsPerGroup[group] += 1
    }

    fileprivate mutating func groupIndex(for name: String) -> Int {
        if let last = lastGroup, last.name == name { return last.index }
        let index = groupIndexByName[name] ?? addGroup(name)
        lastGroup = (name, index)
        return index
    }

    private mutating func addGroup(_ name: String) -> Int {
        let index = groupNames.count
        groupNames.append(name)
        groupIndexByName[name] = index
        cells.append([Cell?](repeating: nil, count: Self.outcomes.count))
        visitorsPerGroup.append(0)
        return index
    }

    /// Group indexes in report order: declared groups in scenario order, then undeclared ones
    /// sorted by name.
    var reportGroupOrder: [Int] {
        let undeclared = (declaredGroupCount..<groupNames.count).sorted {
            groupNames[$0] < groupNames[$1]
        }
        return Array(0..<declaredGroupCount) + undeclared
    }

    func cell(group: Int, outcome: VisitorOutcome) -> Cell? {
        cells[group][Self.outcomeIndex[outcome]!]
    }

    /// A group's cells by outcome (empty: no visitor), read by position rather than looked up
    /// outcome by outcome: run.json's figures read every group's (issue 51).
    func cells(group: Int) -> [VisitorOutcome: Cell] {
        var found: [VisitorOutcome: Cell] = [:]
        for (index, cell) in cells[group].enumerated() {
            if let cell { found[Self.outcomes[index]] = cell }
        }
        return found
    }

    /// Works out the `all` cells now, for the readers that follow (until the next `add`).
    mutating func settle() {
        settledAcrossGroups = nil
        settledAcrossGroups = Self.outcomes.map { cellAcrossGroups(outcome: $0) }
    }

    /// One outcome across every group (the `all` rows).
    func cellAcrossGroups(outcome: VisitorOutcome) -> Cell? {
        if let settledAcrossGroups { return settledAcrossGroups[Self.outcomeIndex[outcome]!] }
        var merged: Cell?
        let outcome = Self.outcomeIndex[outcome]!
        for group in cells.indices {
            guard let cell = cells[group][outcome] else { continue }
            // In place: a copy out and back copied the merged histogram once per group.
            if merged == nil { merged = Cell() }
            merged!.count += cell.count
            merged!.timings.merge(cell.timings)
        }
        return merged
    }

    /// (group, outcome) cells that hold a visitor, and the HdrHistograms in them: what the
    /// recorder keeps per group (`Recorder.groupStorage`).
    var storage: (cells: Int, histograms: Int) {
        var cellCount = 0
        var histograms = 0
        for row in cells {
            for case let cell? in row {
                cellCount += 1
                histograms += cell.timings.histogramCount
            }
        }
        return (cellCount, histograms)
    }

    func count(of outcome: VisitorOutcome) -> Int {
        cells.reduce(0) { $0 + ($1[Self.outcomeIndex[outcome]!]?.count ?? 0) }
    }

    /// Every visitor of every group and outcome: what latency thresholds measure.
    func timingsOfEveryone() -> TimingHistograms {
        var merged = TimingHistograms()
        // Settled, the `all` cells hold every group's timings already: nine merges rather than
        // one per (group, outcome), a few percent of a run of 2,000 groups (issue 51). The
        // same values either way, so the same figures.
        if let settledAcrossGroups {
            for case let cell? in settledAcrossGroups { merged.merge(cell.timings) }
            return merged
        }
        for row in cells {
            for case let cell? in row { merged.merge(cell.timings) }
        }
        return merged
    }
}

extension OutcomeStatistics {
    /// Every (group, outcome) cell that holds a visitor, groups in report order.
    var occupiedCells: [(group: String, outcome: VisitorOutcome, cell: Cell)] {
        reportGroupOrder.flatMap { group in
            Self.outcomes.compactMap { outcome in
                cell(group: group, outcome: outcome).map { (groupNames[group], outcome, $0) }
            }
        }
    }

    /// Adds the counts and timings of another run's cell (a shard's): the merged cell is the one
    /// a single run that recorded both sets of visitors would have.
    mutating func merge(_ other: Cell, group name: String, outcome: VisitorOutcome) {
        settledAcrossGroups = nil
        let group = groupIndex(for: name)
        let index = Self.outcomeIndex[outcome]!
        if cells[group][index] == nil { cells[group][index] = Cell() }
        cells[group][index]!.count += other.count
        cells[group][index]!.timings.merge(other.timings)
        visitorsPerGroup[group] += other.count
    }
}
