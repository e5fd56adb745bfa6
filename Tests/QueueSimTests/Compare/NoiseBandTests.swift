import Foundation
import QueueClientCore
import Testing

@testable import QueueSim

/// compare's noise band (issue 52 item 7): from batch means over a run or from several base
/// runs, not from order statistics of one run, which treat autocorrelated waits as
/// independent and come out far too narrow.
@Suite("compare: the noise band from batches or from several runs")
struct NoiseBandTests {
    /// A run of `count` visitors whose waits grow with arrival (visitor i waits i × `step` ms,
    /// as in a queue that grows all the way), its rows written last visitor first.
    static func run(seed: Int, count: Int, step: Double) throws -> ComparedRun {
        let manifest = Data(
            #"""
            {"scenario": "s", "scenario_sha256": "ab", "seed": \#(seed), "clock": "virtual", "exit_code": 0,
             "run_id": "run-\#(seed)", "visitors": \#(count), "outcomes": {"passed": \#(count)}}
            """#.utf8)
        var csv = VisitorRowFormat.header
        for visitor in (1...count).reversed() {
            let wait = Int((Double(visitor) * step).rounded())
            csv +=
                "\(visitor),app,run,\(visitor),\(visitor),passed,queue,302,,1,1,0,20,\(wait),\(wait + 30),,present,2,,\n"
        }
        return try ComparedRun(folder: "run-\(seed)", runJSON: manifest, visitorsCSV: Data(csv.utf8))
    }

    @Test func batchesFollowArrivalOrderWhateverTheRowOrder() throws {
        let run = try Self.run(seed: 1, count: 400, step: 1000)
        let medians = run.batches.figures(.timing(.wait, .percentile(50)), group: nil)
        #expect(medians.count == 20)
        #expect(medians == medians.sorted(), "\(medians)")
        #expect(medians.first! < 20_000 && medians.last! > 380_000)
        #expect(run.batches.figures(.timing(.wait, .percentile(50)), group: "app").count == 20)
        #expect(run.batches.figures(.timing(.wait, .percentile(50)), group: "web").isEmpty)
    }

    @Test func spreadsFromBatchesAndFromRuns() throws {
        let batch = try #require(NoiseBand.batchMeans((1...20).map(Double.init)))
        #expect(abs(batch.standardError - 5.9161 / 20.0.squareRoot()) < 1e-3)
        #expect(batch.degreesOfFreedom == 19)
        #expect(NoiseBand.batchMeans([1, 2, 3, 4, 5, 6, 7]) == nil)
        let runs = try #require(NoiseBand.acrossRuns([600, 630, 621]))
        #expect(abs(runs.standardError - 15.3948 * (4.0 / 3).squareRoot()) < 1e-3)
        #expect(NoiseBand.acrossRuns([600]) == nil)
        // Two runs' spreads: t(0.975, 2) × √(a² + b²).
        let band = NoiseBand.differenceBand([
            NoiseBand.Spread(standardError: 3, degreesOfFreedom: 2),
            NoiseBand.Spread(standardError: 4, degreesOfFreedom: 19),
        ])
        #expect(abs(band - 4.3027 * 5) < 1e-3)
    }

    /// Waits 3 % longer in a run whose waits trend: order statistics of one run call it a
    /// change (their intervals do not overlap), batch means call it noise.
    @Test func aTrendingWaitIsNoiseByBatchesWhereOrderStatisticsCalledItAChange() throws {
        let base = try Self.run(seed: 1, count: 4000, step: 1000)
        let new = try Self.run(seed: 2, count: 4000, step: 1030)
        let p95 = Threshold.Metric.timing(.wait, .percentile(95))
        let before = try #require(RunComparison.interval(p95, of: base.measurements))
        let after = try #require(RunComparison.interval(p95, of: new.measurements))
        #expect(!before.overlaps(after), "order statistics: \(before) and \(after)")
        let comparison = RunComparison(base: base, new: new, rules: [try CompareRule(parsing: "wait.p95: +0%")])
        let row = try #require(comparison.rows.first { $0.metric == p95 })
        #expect(row.verdict == .noise, "\(row)")
        #expect((row.band ?? 0) > 100_000, "\(String(describing: row.band))")
        // One group: its rows would repeat every figure of `all`.
        #expect(comparison.rows.allSatisfy { $0.scope == "all" })
    }

    @Test func aCappedFigureIsNeverAnImprovement() throws {
        let rule = try CompareRule(parsing: "wait.p95: +10%")
        var row = RunComparison.Row(
            scope: "all", metric: .timing(.wait, .percentile(95)), base: 1_800_000, new: 600_000, rule: rule,
            withinNoise: false, verdict: .missing)
        #expect(RunComparison.verdict(row) == .improved)
        row.capped = true
        #expect(RunComparison.verdict(row) == .ok)
        row.new = 2_400_000
        #expect(RunComparison.verdict(row) == .regression)
    }
}
