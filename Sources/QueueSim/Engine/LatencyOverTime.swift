/// Answer times by the second they came, for a percentile chart over time, in bounded
/// memory however long the run: at most `maxBins` bins of time, each `binSeconds` wide (a
/// power of two that doubles when the run outgrows the bins), each bin a small log-linear
/// histogram (16 steps per doubling, so a percentile is known within about 6 %).
///
/// A per-request key (`second << 32 | ms`, as the enqueue chart keeps per decision) would cost
/// 8 bytes per poll, and a launch polls tens of millions of times.
struct LatencyOverTime: Sendable {
    static let maxBins = 600
    private(set) var binSeconds = 1
    /// Counts per bucket index, per bin; an empty array for a bin without answers.
    private var bins: [[UInt32]] = []

    mutating func record(_ milliseconds: UInt64, inSecond second: Int, count: UInt32 = 1) {
        let second = max(0, second)
        while second / binSeconds >= Self.maxBins { coarsen() }
        let bin = second / binSeconds
        if bin >= bins.count { bins.append(contentsOf: repeatElement([], count: bin + 1 - bins.count)) }
        let bucket = Self.bucket(of: milliseconds)
        if bucket >= bins[bin].count {
            bins[bin].append(contentsOf: repeatElement(0, count: bucket + 1 - bins[bin].count))
        }
        bins[bin][bucket] &+= count
    }

    init() {}

    /// Bins written as `sparseBins` (a shard's), `binSeconds` wide.
    init(binSeconds: Int, sparseBins: [[Int]]) {
        self.binSeconds = max(1, binSeconds)
        for triple in sparseBins where triple.count == 3 && triple[0] >= 0 && triple[1] >= 0 && triple[2] > 0 {
            let (bin, bucket) = (triple[0], triple[1])
            if bin >= bins.count { bins.append(contentsOf: repeatElement([], count: bin + 1 - bins.count)) }
            if bucket >= bins[bin].count {
                bins[bin].append(contentsOf: repeatElement(0, count: bucket + 1 - bins[bin].count))
            }
            bins[bin][bucket] &+= UInt32(clamping: triple[2])
        }
        while bins.count > Self.maxBins { coarsen() }
    }

    /// `[bin, bucket, count]` for every non-empty bucket, bins and buckets ascending.
    var sparseBins: [[Int]] {
        bins.enumerated().flatMap { bin, counts in
            counts.enumerated().compactMap { bucket, count in count > 0 ? [bin, bucket, Int(count)] : nil }
        }
    }

    mutating func merge(_ other: LatencyOverTime) {
        var other = other
        while binSeconds < other.binSeconds { coarsen() }
        while other.binSeconds < binSeconds { other.coarsen() }
        if other.bins.count > bins.count {
            bins.append(contentsOf: repeatElement([], count: other.bins.count - bins.count))
        }
        for (bin, counts) in other.bins.enumerated() {
            for (bucket, count) in counts.enumerated() where count > 0 {
                if bucket >= bins[bin].count {
                    bins[bin].append(contentsOf: repeatElement(0, count: bucket + 1 - bins[bin].count))
                }
                bins[bin][bucket] &+= count
            }
        }
    }

    /// The given percentiles of each bin with answers, merged into bins at least
    /// `minimumSeconds` wide: `(first second, width in seconds, values in ms)`.
    func percentiles(_ percents: [Double], minimumSeconds: Int = 1) -> [(second: Int, width: Int, values: [UInt64])] {
        var width = binSeconds
        while width < minimumSeconds { width *= 2 }
        let group = width / binSeconds
        var result: [(second: Int, width: Int, values: [UInt64])] = []
        for start in stride(from: 0, to: bins.count, by: group) {
            var counts: [UInt64] = []
            for bin in start..<min(bins.count, start + group) {
                for (bucket, count) in bins[bin].enumerated() where count > 0 {
                    if bucket >= counts.count {
                        counts.append(contentsOf: repeatElement(0, count: bucket + 1 - counts.count))
                    }
                    counts[bucket] += UInt64(count)
                }
            }
            let total = counts.reduce(0, +)
            guard total > 0 else { continue }
            let values = percents.map { percent -> UInt64 in
                // Nearest rank: the bucket holding the ⌈p·n⌉-th answer.
                let rank = max(1, UInt64((percent / 100 * Double(total)).rounded(.up)))
                var seen: UInt64 = 0
                for (bucket, count) in counts.enumerated() {
                    seen += count
                    if seen >= rank { return Self.value(ofBucket: bucket) }
                }
                return Self.value(ofBucket: counts.count - 1)
            }
            result.append((start * binSeconds, width, values))
        }
        return result
    }

    private mutating func coarsen() {
        var merged: [[UInt32]] = []
        merged.reserveCapacity((bins.count + 1) / 2)
        for start in stride(from: 0, to: bins.count, by: 2) {
            var counts = bins[start]
            if start + 1 < bins.count {
                let next = bins[start + 1]
                if next.count > counts.count {
                    counts.append(contentsOf: repeatElement(0, count: next.count - counts.count))
                }
                for (bucket, count) in next.enumerated() { counts[bucket] &+= count }
            }
            merged.append(counts)
        }
        bins = merged
        binSeconds *= 2
    }

    /// Values below 32 ms have a bucket each; above, 16 buckets per doubling.
    static func bucket(of value: UInt64) -> Int {
        let value = min(value, 1 << 40)
        guard value >= 32 else { return Int(value) }
        let shift = (64 - value.leadingZeroBitCount) - 5
        return 32 + (shift - 1) * 16 + Int(value >> UInt64(shift)) - 16
    }

    /// The middle of a bucket's values (its only value below 32 ms).
    static func value(ofBucket bucket: Int) -> UInt64 {
        guard bucket >= 32 else { return UInt64(bucket) }
        let shift = (bucket - 32) / 16 + 1
        let mantissa = UInt64((bucket - 32) % 16 + 16)
        let low = mantissa << UInt64(shift)
        return low + (UInt64(1) << UInt64(shift)) / 2
    }
}
