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

    private var list: [UInt64] = []
    private var recorded: Histogram<UInt64>?

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
