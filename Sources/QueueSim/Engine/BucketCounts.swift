/// The bucket bounds the engine counts in (seconds), which `MetricCatalog` exports as its
/// histograms' `le` labels.
package enum CountingBuckets {
    /// Answer times, from a loopback room's milliseconds to a slow origin's tens of seconds.
    package static let requests: [Double] = [
        0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60,
    ]
    /// Waits in the queue, from a second to the two hours of a long launch.
    package static let waits: [Double] = [1, 5, 10, 30, 60, 120, 300, 600, 900, 1200, 1800, 2700, 3600, 7200]
}

/// A Prometheus histogram's buckets: counts per upper bound (seconds) and a `+Inf` bucket, the
/// sum and the count. Adding two (shards, loops) adds their buckets.
package struct BucketCounts: Sendable, Equatable {
    package let bounds: [Double]
    /// Per bucket, not cumulative; one more than `bounds` (the `+Inf` bucket).
    package private(set) var counts: [UInt64]
    /// The sum in whole milliseconds: every value queuesim counts is, and an integer sum is the
    /// same whatever order loops, seconds and shards add up in.
    package private(set) var sumMilliseconds: Int64 = 0
    package private(set) var count: UInt64 = 0

    /// The sum in seconds, as the exposition writes it.
    package var sum: Double { Double(sumMilliseconds) / 1000 }

    package init(bounds: [Double]) {
        self.bounds = bounds
        counts = Array(repeating: 0, count: bounds.count + 1)
    }

    package mutating func record(seconds: Double, times: UInt64 = 1) {
        let index = bounds.firstIndex { seconds <= $0 } ?? bounds.count
        counts[index] += times
        sumMilliseconds += Int64((seconds * 1000).rounded()) * Int64(times)
        count += times
    }

    /// `times` values that fell in the bucket of `seconds` (`.infinity`: the `+Inf` bucket),
    /// their sum added apart (`addToSum`): for counts kept per bucket, not per value.
    package mutating func add(_ times: UInt64, toBucketOf seconds: Double) {
        let index = bounds.firstIndex { seconds <= $0 } ?? bounds.count
        counts[index] += times
        count += times
    }

    package mutating func addToSum(milliseconds: Int64) {
        sumMilliseconds += milliseconds
    }

    package mutating func add(_ other: BucketCounts) {
        precondition(other.bounds == bounds, "histograms with different buckets")
        for index in counts.indices { counts[index] += other.counts[index] }
        sumMilliseconds += other.sumMilliseconds
        count += other.count
    }

    /// Cumulative counts per bound, `+Inf` last, as the exposition writes them.
    package var cumulative: [UInt64] {
        var running: UInt64 = 0
        return counts.map { count in
            running += count
            return running
        }
    }
}
