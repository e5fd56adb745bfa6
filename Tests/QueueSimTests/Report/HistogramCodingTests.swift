import Foundation
import Histogram
import Testing

@testable import QueueSim

@Suite("Shard histograms: the encoding rebuilds the histogram")
struct HistogramCodingTests {
    @Test("percentiles, count, min and max survive a JSON round trip", arguments: [1, 7, 1000])
    func roundTrip(seed: UInt64) throws {
        var random = SeededRandom(seed: seed, purpose: .latency)
        var histogram = TimingHistograms.makeHistogram()
        for _ in 0..<5000 {
            // Milliseconds from 0 to ~20 minutes, heavy-tailed, with exact extremes.
            let value = UInt64(pow(random.nextUnit(), 4) * 1_200_000)
            histogram.record(value)
        }
        histogram.record(1_234_567)
        histogram.record(3)
        let encoded = EncodedHistogram(histogram)
        let json = try JSONEncoder().encode(encoded)
        let decoded = try JSONDecoder().decode(EncodedHistogram.self, from: json).histogram()
        #expect(decoded.totalCount == histogram.totalCount)
        #expect(decoded.min == histogram.min)
        #expect(decoded.maxRecorded == histogram.maxRecorded)
        for percentile in stride(from: 0.0, through: 100.0, by: 0.5) {
            #expect(decoded.valueAtPercentile(percentile) == histogram.valueAtPercentile(percentile), "p\(percentile)")
        }
        // The sparse form is far smaller than the counts array.
        #expect(json.count < 40_000)
    }

    @Test("an empty histogram, and a tampered one is refused")
    func edges() throws {
        let empty = try EncodedHistogram(TimingHistograms.makeHistogram()).histogram()
        #expect(empty.totalCount == 0)
        var histogram = TimingHistograms.makeHistogram()
        histogram.record(10)
        var tampered = EncodedHistogram(histogram)
        tampered.count = 2
        #expect(throws: EncodedHistogram.Failure.self) { try tampered.histogram() }
    }
}
