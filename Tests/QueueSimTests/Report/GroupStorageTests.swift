import Foundation
import Histogram
import QueueClientCore
import Testing

@testable import QueueSim

/// Issue 51: a scenario's cost grew with its groups, not its visitors (16-64 KiB histograms and
/// 8 KiB per-second blocks per group, made whether or not a group had visitors).
@Suite("a group costs what its visitors cost")
struct GroupStorageTests {
    private static let groups = (1...2000).map { "g\($0)" }

    @Test("2,000 groups with visitors in five: storage only for those five, histograms only past the list")
    func storageOnlyForGroupsThatRecorded() throws {
        let directory = try makeReportDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let recorder = try Recorder(directory: directory, description: describeRun(groups: Self.groups))
        #expect(recorder.groupStorage == .init(cells: 0, histograms: 0, seriesGroups: 0))

        var index = 0
        // Three groups with more waits than a list keeps, two with a single visitor.
        for group in ["g1", "g1000", "g2000"] {
            for visitor in 0..<(TimingValues.listLimit + 44) {
                try recorder.record(
                    queuedVisitor(
                        index, group: group, arrival: index * 10, enqueueMs: 20 + visitor, waitMs: 1000 + visitor))
                index += 1
            }
        }
        for group in ["g5", "g6"] {
            try recorder.record(queuedVisitor(index, group: group, arrival: index * 10, enqueueMs: 20, waitMs: 900))
            index += 1
        }

        // Three histograms (enqueue, wait, total) in each big group's `passed` cell and one wait
        // curve per big group; connect and TLS never recorded; the small groups' values are lists.
        #expect(recorder.groupStorage == .init(cells: 5, histograms: 3 * 3 + 3, seriesGroups: 5))

        let report = try recorder.finish(ending(at: index * 10 + 3000))
        #expect(report.visitorCount == index)
        let summary = try readReport(directory, Recorder.summaryFile)
        // A listed group's percentiles are a histogram's: the one visitor's 20 ms and 900 ms.
        #expect(summary.contains("\ng5,passed,1,1.0000,20,20,20,20,20,900,900,900,900,900,920,920,920,920,920,"))
        // A group without visitors still has its metrics.prom series (zeros).
        let metrics = try readReport(directory, Recorder.metricsFile)
        #expect(
            metrics.contains(
                "queuesim_arrivals_total{run_id=\"20250301T120000Z-0000\",scenario=\"launch\",shard=\"0/1\",group=\"g1999\"} 0 "
            ))
    }

    @Test("a timing kept as a list reads as the histogram fed the same values, before and after it grows")
    func listReadsAsHistogram() {
        var direct = TimingHistograms.makeHistogram()
        var lazy = TimingValues()
        var merged = TimingValues()
        for value in 0..<UInt64(600) {
            let milliseconds = value * value * 7 % 150_000
            direct.record(milliseconds)
            lazy.record(milliseconds)
            var one = TimingValues()
            one.record(milliseconds)
            merged.add(one)
            if value == 10 || value == UInt64(TimingValues.listLimit) - 1 {
                #expect(!lazy.holdsHistogram)
                #expect(lazy.histogram == direct)
            }
        }
        #expect(lazy.holdsHistogram && merged.holdsHistogram)
        #expect(lazy.histogram == direct)
        #expect(merged.histogram == direct)
        #expect(lazy.histogram.maxRecorded == direct.maxRecorded && lazy.histogram.min == direct.min)
        #expect(TimingValues().histogram == TimingHistograms.makeHistogram())
    }

    @Test("a short list's percentiles are the histogram's, at every percentile the reports read")
    func listPercentilesAreTheHistogramsOnes() {
        let samples: [[UInt64]] = [
            [0], [7], [0, 0, 5], [2047, 2048, 2049], [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
            (0..<255).map { $0 * $0 * 13 % 200_000 }, [120_000, 119_999, 3, 65_537],
        ]
        for values in samples {
            var histogram = TimingHistograms.makeHistogram()
            var list = TimingValues()
            for value in values {
                histogram.record(value)
                list.record(value)
            }
            let reading = list.reading
            guard case .sorted = reading else {
                Issue.record("\(values.count) values should stay a list")
                continue
            }
            #expect(reading.totalCount == histogram.totalCount)
            #expect(reading.maxRecorded == histogram.maxRecorded)
            for percentile in stride(from: 0.0, through: 100, by: 2) + [50, 90, 95, 99, 99.9, 33.3, 100.5, -1] {
                #expect(
                    reading.valueAtPercentile(percentile) == histogram.valueAtPercentile(percentile),
                    "p\(percentile) of \(values)")
            }
        }
    }

    @Test("a column of few seconds stays a list, and reads the same once it needs blocks")
    func sparseColumn() {
        var counts = PerSecondCounts()
        counts.add(at: 5)
        counts.add(at: 5, 2)
        counts.add(at: 3_000, -1)
        #expect(counts[5] == 3 && counts[3_000] == -1 && counts[4] == 0)
        #expect(counts.nonZero.map(\.second) == [5, 3_000])
        #expect(counts.total == 2 && counts.count == 3_001)
        for second in 100..<200 { counts.add(at: second) }
        #expect(counts[5] == 3 && counts[3_000] == -1 && counts[150] == 1)
        #expect(counts.nonZero.count == 102)
        #expect(counts.total == 102 && counts.count == 3_001)
        counts.addProgression(firstNanoseconds: 5_500_000_000, periodNanoseconds: 1_000_000_000, count: 2)
        #expect(counts[5] == 4 && counts[6] == 1)
    }
}
