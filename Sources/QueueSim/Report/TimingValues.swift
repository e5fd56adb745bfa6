import Histogram

/// One timing's values: a short list while there are few, an HdrHistogram once there are
/// enough to pay for one.
///
/// An empty HdrHistogram of three significant digits is a 16 KiB counts array, 64 KiB once it
/// holds a two-minute wait, and a (group, outcome) cell keeps five of them: a scenario of 2,000
/// small groups spent most of its memory and time on histograms of one or two visitors (issue
/// 51). Up to `listLimit` values cost eight bytes each; the histogram handed out is built from
/// them when asked for, and holds the very counts, minimum and maximum a histogram fed the same
/// values would, so every report reads the same figures.
struct TimingValues {
    /// Values kept as a list before the histogram is made: 2 KiB, an eighth of the smallest one.
    static let listLimit = 256

    private(set) var list: [UInt64] = []
    private(set) var recorded: Histogram<UInt64>?

    init() {}

    init(_ histogram: Histogram<UInt64>) {
        recorded = histogram
    }

    var totalCount: UInt64 { recorded?.totalCount ?? UInt64(list.count) }

    /// Whether the values are in an HdrHistogram (for tests of what a run allocates).
    var holdsHistogram: Bool { recorded != nil }

    mutating func record(_ value: UInt64) {
        if recorded == nil {
            guard list.count >= Self.listLimit else {
                list.append(value)
                return
            }
            recorded = Self.histogram(of: list)
            list = []
        }
        recorded!.record(value)
    }

    mutating func add(_ other: TimingValues) {
        if let theirs = other.recorded {
            if recorded == nil {
                recorded = Self.histogram(of: list)
                list = []
            }
            recorded!.add(theirs)
        } else {
            for value in other.list { record(value) }
        }
    }

    /// The values as an HdrHistogram (empty without values): made from the list when there is one.
    var histogram: Histogram<UInt64> {
        recorded ?? Self.histogram(of: list)
    }

    private static func histogram(of values: [UInt64]) -> Histogram<UInt64> {
        var histogram = TimingHistograms.makeHistogram()
        for value in values { histogram.record(value) }
        return histogram
    }
}

/// What the reports read of a timing: its count, percentiles and largest value.
protocol TimingDistribution {
    var totalCount: UInt64 { get }
    var maxRecorded: UInt64 { get }
    func valueAtPercentile(_ percentile: Double) -> UInt64
}

extension Histogram: TimingDistribution where Count == UInt64 {}

/// A timing as the reports read it: its histogram, or its short list sorted once and read as a
/// histogram of the same values would be, without making one. Making a 16-64 KiB histogram per
/// timing per group per report, and walking its counts per percentile, was most of the time a
/// run of 2,000 small groups spent writing its reports.
enum TimingReading: TimingDistribution {
    case histogram(Histogram<UInt64>)
    /// Ascending.
    case sorted([UInt64])

    /// Bucket arithmetic only (no counts are read): the value ranges of `makeHistogram`'s layout.
    private static let layout = TimingHistograms.makeHistogram()

    var totalCount: UInt64 {
        switch self {
        case .histogram(let histogram): histogram.totalCount
        case .sorted(let values): UInt64(values.count)
        }
    }

    var maxRecorded: UInt64 {
        switch self {
        case .histogram(let histogram): histogram.maxRecorded
        case .sorted(let values): values.last ?? 0
        }
    }

    /// `Histogram.valueAtPercentile`'s answer step for step: the value of the rank its count
    /// rounds up to, reported as the highest value equivalent to it, clamped to min and max.
    func valueAtPercentile(_ percentile: Double) -> UInt64 {
        guard case .sorted(let values) = self else {
            guard case .histogram(let histogram) = self else { return 0 }
            return histogram.valueAtPercentile(percentile)
        }
        guard let lowest = values.first, let highest = values.last else { return 0 }
        guard percentile != 0.0 else { return lowest }
        guard percentile < 100.0 else { return highest }
        let requested = min(max(percentile.nextDown, 0.0), 100.0)
        let rank = max(1, UInt64(((requested * Double(values.count)) / 100.0).rounded(.up)))
        let value = values[Int(min(rank, UInt64(values.count))) - 1]
        return max(min(Self.layout.highestEquivalentForValue(value), highest), lowest)
    }
}

extension TimingValues {
    /// The values for reading: sorted once when they are a list.
    var reading: TimingReading {
        recorded.map { .histogram($0) } ?? .sorted(list.sorted())
    }
}
