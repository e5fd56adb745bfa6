import QueueClientCore

/// A run's visitors split in arrival order into `count` batches of about equal size, with each
/// batch's outcome counts and timings, overall and per group: what `compare` reads the noise of
/// a figure from (batch means, NoiseBand.batchMeans).
///
/// Why batches rather than the visitors one by one: the waits of a queue are autocorrelated
/// (visitors who arrive together wait alike), so an interval that treats every visitor as an
/// independent draw is far too narrow. A batch of a twentieth of the run is long enough that
/// its figure is close to independent of the next batch's, and the spread of the batch figures
/// says how far the whole run's figure could move by chance.
///
/// Visitors are numbered in arrival order (`VisitorRecord.index`), so a row's batch is its
/// number over the run's visitor count: the rows may come in any order.
struct RunBatches {
    /// What one batch counts of one scope (every visitor, or one group).
    struct Tally {
        var visitors = 0
        var outcomes = [Int](repeating: 0, count: VisitorOutcome.allCases.count)
        var timings = TimingHistograms()

        mutating func add(_ record: VisitorRecord) {
            visitors += 1
            outcomes[record.outcome.ordinal] += 1
            timings.add(record)
        }

        /// The figure as RunMeasurements.measure reads it from a whole run; nil where this batch
        /// has nobody to measure (nobody waited in it).
        func measure(_ metric: Threshold.Metric) -> Double? {
            switch metric {
            case .visitorCount: return nil
            case .outcomeCount(let outcome): return Double(outcomes[outcome.ordinal])
            case .outcomeRatio(let outcome):
                guard visitors > 0 else { return nil }
                return Double(outcomes[outcome.ordinal]) / Double(visitors)
            case .timing(let timing, .percentile(let percentile)):
                // A short list is read sorted, not made into a histogram per batch and figure.
                let reading = timings.reading(timing)
                guard reading.totalCount > 0 else { return nil }
                return Double(reading.valueAtPercentile(percentile))
            case .timing(let timing, .mean):
                let histogram = timings.histogram(for: timing)
                return histogram.totalCount > 0 ? histogram.mean : nil
            case .timing(_, .max), .timing(_, .min):
                return nil
            }
        }
    }

    /// Twenty batches: enough for a spread to mean something (19 degrees of freedom), few enough
    /// that each holds a twentieth of the run.
    static let defaultCount = 20

    /// A group with fewer visitors than this in either run gets no verdict (`too few
    /// visitors`, docs/compare.md): its batches hold two or three visitors each, a share moves
    /// two points per visitor and a percentile is whichever visitor sits there, so its band
    /// says little and a rule on it judges the luck of a few. The whole run is always judged.
    package static let minimumGroupVisitors = 50

    let count: Int
    /// The run's visitor count, which places a visitor number in its batch.
    private let visitorCount: Int
    /// `tallies[batch][scope]`: scope 0 is every visitor, then the groups as first seen.
    private var tallies: [[Tally]]
    private var scopeByGroup: [String: Int] = [:]

    init(visitorCount: Int, count: Int = defaultCount) {
        self.count = max(1, count)
        self.visitorCount = max(1, visitorCount)
        tallies = Array(repeating: [Tally()], count: self.count)
    }

    mutating func add(_ record: VisitorRecord) {
        let batch = min(count - 1, max(0, record.index) * count / visitorCount)
        let scope = scopeByGroup[record.group] ?? addScope(record.group)
        tallies[batch][0].add(record)
        tallies[batch][scope].add(record)
    }

    private mutating func addScope(_ group: String) -> Int {
        let scope = tallies[0].count
        scopeByGroup[group] = scope
        for batch in tallies.indices { tallies[batch].append(Tally()) }
        return scope
    }

    /// The figure of each batch that has one, in arrival order: every visitor's when `group`
    /// is nil, one group's otherwise (none for a group the run does not have).
    func figures(_ metric: Threshold.Metric, group: String?) -> [Double] {
        let scope: Int
        if let group {
            guard let found = scopeByGroup[group] else { return [] }
            scope = found
        } else {
            scope = 0
        }
        return tallies.compactMap { $0[scope].measure(metric) }
    }
}
