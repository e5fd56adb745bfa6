import Histogram

/// A timing histogram as shard reports store it: sparse JSON that rebuilds the very histogram
/// it was written from, so merged percentiles are those of one histogram fed every visitor.
///
/// Documented equivalent of HdrHistogram's interchange encoding (hdrhistogram-swift offers
/// `Codable` over its whole counts array, tens of kilobytes of zeros per histogram, and no V2
/// encoder): `digits` (significant value digits, 3), `count` (total), `min` and `max` (the
/// exact lowest and highest values recorded), and `buckets`, `[value, count]` pairs in value
/// order, one per non-empty bucket, `value` being the bucket's lowest equivalent value.
/// Recording each pair again lands every count in its own bucket; the buckets holding `min` and
/// `max` are recorded at those exact values, because percentiles are clamped to them.
struct EncodedHistogram: Codable, Equatable {
    var digits: Int
    var count: UInt64
    var min: UInt64
    var max: UInt64
    var buckets: [[UInt64]]

    init(_ histogram: Histogram<UInt64>) {
        digits = Int(histogram.numberOfSignificantValueDigits.rawValue)
        count = histogram.totalCount
        min = count > 0 ? histogram.min : 0
        max = count > 0 ? histogram.maxRecorded : 0
        buckets = histogram.recordedValues().map { [histogram.lowestEquivalentForValue($0.value), UInt64($0.count)] }
    }

    enum Failure: Error, CustomStringConvertible {
        case inconsistent(String)

        var description: String {
            switch self {
            case .inconsistent(let why): "a histogram in the shard report is inconsistent: \(why)"
            }
        }
    }

    /// The histogram this was made from (equal in every bucket, count, min and max).
    func histogram() throws -> Histogram<UInt64> {
        guard digits == 3 else { throw Failure.inconsistent("\(digits) significant digits, queuesim writes 3") }
        var histogram = TimingHistograms.makeHistogram()
        var total: UInt64 = 0
        for pair in buckets {
            guard pair.count == 2, pair[1] > 0 else { throw Failure.inconsistent("a bucket is not [value, count]") }
            var (value, remaining) = (pair[0], pair[1])
            total += remaining
            // The extremes first, at their exact values; the rest of the bucket at its lowest value.
            if histogram.valuesAreEquivalent(value, min) {
                histogram.record(min)
                remaining -= 1
            }
            if remaining > 0, histogram.valuesAreEquivalent(value, max), max != min {
                histogram.record(max)
                remaining -= 1
            }
            if remaining > 0 {
                if histogram.valuesAreEquivalent(value, min) { value = min }
                if histogram.valuesAreEquivalent(value, max) { value = max }
                histogram.record(value, count: remaining)
            }
        }
        guard total == count else { throw Failure.inconsistent("its buckets hold \(total) values, not \(count)") }
        guard count == 0 || (histogram.min == min && histogram.maxRecorded == max) else {
            throw Failure.inconsistent("its min or max is outside its buckets")
        }
        return histogram
    }
}
