import Foundation
import QueueClientCore
import Testing

@testable import QueueSim

/// Issue 51 item 8: metrics.prom wrote one sample per group series per second (143 MB for
/// launch.yaml's 1,900 visitors over 2,000 groups). A group's series now has a sample at the
/// run's first and last second, every second its value changed and the second before, and at
/// least every 15 s: fewer samples, and every second's value still in the file.
@Suite("Metrics: a group's series in metrics.prom are sparse and lossless")
struct SparseGroupSeriesTests {
    static let identity = MetricsSnapshot.Identity(runId: "sparse-test", scenario: "sparse", shard: "0/1")

    /// Visitors of two groups over `seconds` seconds, some queued, some not; a third group
    /// declared without visitors.
    static func records(seconds: Int) -> [VisitorRecord] {
        var records: [VisitorRecord] = []
        for index in 0..<150 {
            let group = index % 3 == 0 ? "partner" : "app"
            // Arrivals bunched in bursts with quiet stretches between, so sparse stretches exist.
            let arrival = (index / 10) * 11_000 + (index % 10) * 137
            let wait = (index * 7_919) % 95_000
            let record =
                index % 5 == 4
                ? directVisitor(index, group: group, arrival: arrival, enqueueMs: 40, outcome: .error)
                : queuedVisitor(index, group: group, arrival: arrival, enqueueMs: 30, waitMs: wait)
            precondition(Timeline.second(of: record.ended) < seconds)
            records.append(record)
        }
        return records
    }

    /// metrics.prom's text for `records` on a run of `seconds` seconds, as `run` writes it
    /// (second s stamped 1,000 + s).
    static func file(_ records: [VisitorRecord], groups: [String], seconds: Int) -> String {
        var series = RunMetricsSeries(groupNames: groups)
        for record in records { series.add(record) }
        var text = ""
        MetricsFile.write(
            series, seconds: seconds, timestampBase: 999, identity: identity, answers: RequestStatistics()
        ) { text += $0 }
        return text
    }

    /// Each series' value at every second, read as Prometheus reads a step: the latest sample
    /// at or before it (nil before the first). Keyed by name and labels other than the identity's.
    static func valuesPerSecond(_ text: String, seconds: Int) throws -> [String: [Double?]] {
        var result: [String: [Double?]] = [:]
        for one in try MetricsFileSeries.series(text) {
            let key = one.labels.filter { !["run_id", "scenario", "shard"].contains($0.name) }
                .map { "\($0.name)=\($0.value)" }.joined(separator: ",")
            var values = [Double?](repeating: nil, count: seconds)
            var samples = one.samples.makeIterator()
            var next = samples.next()
            var current: Double?
            for second in 0..<seconds {
                while let sample = next, sample.milliseconds / 1000 - 1_000 <= Int64(second) {
                    current = sample.value
                    next = samples.next()
                }
                values[second] = current
            }
            result[key] = values
        }
        return result
    }

    /// What a sample every second would say, computed from the rows alone.
    static func expected(_ records: [VisitorRecord], group: String, second: Int) -> [String: Double] {
        let mine = records.filter { $0.group == group }
        func by(_ instant: RunInstant) -> Bool { Timeline.second(of: instant) <= second }
        var values: [String: Double] = [
            "__name__=queuesim_arrivals_total,group=\(group)": Double(mine.count { by($0.arrival) }),
            "__name__=queuesim_in_queue,group=\(group)": Double(
                mine.count { record in
                    guard let entered = record.queueEntered else { return false }
                    return Timeline.second(of: entered) <= second && second < Timeline.second(of: record.ended)
                }),
        ]
        let waited = mine.filter { $0.queueEntered != nil && by($0.ended) }
        values["__name__=queuesim_wait_seconds_count,group=\(group)"] = Double(waited.count)
        values["__name__=queuesim_wait_seconds_sum,group=\(group)"] =
            Double(waited.reduce(0) { $0 + $1.waitMilliseconds }) / 1000
        for bound in MetricCatalog.waitBuckets {
            let key = "__name__=queuesim_wait_seconds_bucket,group=\(group),le=\(MetricsExposition.number(bound))"
            values[key] = Double(waited.count { Double($0.waitMilliseconds) <= bound * 1000 })
        }
        for outcome in VisitorOutcome.allCases {
            let count = mine.count { $0.outcome == outcome && by($0.ended) }
            // A visitors series starts with its first visitor, as it always did.
            if count > 0 {
                values["__name__=queuesim_visitors_total,group=\(group),outcome=\(outcome.rawValue)"] = Double(count)
            }
        }
        return values
    }

    @Test("every second's value of every group series is the one the rows give, from fewer samples")
    func sparseSeriesReconstructTheDenseValues() throws {
        let seconds = 300
        let records = Self.records(seconds: seconds)
        let groups = ["app", "partner", "idle"]
        let text = Self.file(records, groups: groups, seconds: seconds)
        let values = try Self.valuesPerSecond(text, seconds: seconds)
        for group in groups {
            for second in 0..<seconds {
                for (key, value) in Self.expected(records, group: group, second: second) {
                    #expect(values[key]?[second] == value, "\(key) at second \(second)")
                }
            }
        }
        // Sparse: the group series hold far fewer samples than one a second, never 15 s apart,
        // and each has the run's last second; the run-wide in_flight keeps one a second.
        let series = try MetricsFileSeries.series(text)
        var groupSamples = 0
        var groupSeries = 0
        for one in series {
            let name = one.labels.first { $0.name == "__name__" }!.value
            let stamps = one.samples.map { $0.milliseconds / 1000 - 1_000 }
            #expect(stamps.last == Int64(seconds - 1), "\(one.labels)")
            guard one.labels.contains(where: { $0.name == "group" }) else {
                if name == "queuesim_in_flight" { #expect(stamps == (0..<Int64(seconds)).map { $0 }) }
                continue
            }
            groupSeries += 1
            groupSamples += stamps.count
            for (earlier, later) in zip(stamps, stamps.dropFirst()) {
                #expect(later - earlier <= Int64(SampleSchedule.maxGap), "\(one.labels): \(earlier) → \(later)")
            }
        }
        #expect(groupSeries > 0)
        #expect(groupSamples * 2 < groupSeries * seconds, "\(groupSamples) samples in \(groupSeries) series")
        // The idle group's series read 0 from the first second to the last, every 15 s.
        #expect(values["__name__=queuesim_arrivals_total,group=idle"]?.allSatisfy { $0 == 0 } == true)
    }

    @Test("2,000 groups of one visitor each: metrics.prom holds under a sixth of the samples it did")
    func twoThousandGroupsFileIsBounded() throws {
        let seconds = 51
        let groups = (1...2000).map { "g\($0)" }
        // launch.yaml's shape: arrivals over the first 15 s, waits up to half a minute.
        let records = groups.enumerated().map { index, group in
            queuedVisitor(
                index, group: group, arrival: index * 7 % 15_000, enqueueMs: 25, waitMs: index * 7_919 % 30_000)
        }
        let text = Self.file(records, groups: groups, seconds: seconds)
        let samples = text.split(separator: "\n").count { !$0.hasPrefix("#") }
        // One a second: 2,000 groups × 51 s × (arrivals, in_queue, visitors, 17 wait lines)
        // = 2,040,000 sample lines, 143 MB with launch.yaml's labels. Now about 7 seconds of 51
        // per series (the first, a change or two with the second before each, every 15 s, the
        // last): 244,922 lines when written.
        #expect(samples < 300_000, "\(samples) sample lines")
        #expect(samples > 2000 * 20 * 4, "\(samples) sample lines")
        let values = try Self.valuesPerSecond(text, seconds: seconds)
        for group in ["g1", "g777", "g2000"] {
            for second in 0..<seconds {
                for (key, value) in Self.expected(records, group: group, second: second) {
                    #expect(values[key]?[second] == value, "\(key) at second \(second)")
                }
            }
        }
    }

    @Test("the schedule: first and last second, each change and the second before it, and every 15 s")
    func schedule() {
        var schedule = SampleSchedule(changes: [40, 5, 41, 5, 90], seconds: 100)
        let taken = (0..<100).filter { schedule.samples($0) }
        #expect(taken == [0, 4, 5, 20, 35, 39, 40, 41, 56, 71, 86, 89, 90, 99])
    }
}
