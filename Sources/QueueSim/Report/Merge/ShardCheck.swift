import Foundation
import QueueClientCore

/// A shard folder's three records of one run checked against each other before `merge` uses
/// it: its rows (`visitors.csv`, what the merge rebuilds every figure from), its `shard.json`
/// and its `run.json`. Any disagreement means a file was edited or folders were mixed up, and
/// the shard is refused (exit 2) naming the folder, the file and what disagrees.
enum ShardCheck {
    /// The merged statistics (summary.csv, thresholds): every shard's cells rebuilt from its
    /// rows, once each shard's `run.json` and `shard.json` agree with them.
    static func mergedStatistics(
        _ members: [ShardSet.Member], figures: [ShardRowFigures], groupNames: [String]
    ) throws -> OutcomeStatistics {
        var merged = OutcomeStatistics(groupNames: groupNames)
        for (member, figures) in zip(members, figures) {
            try checkCounts(member.report, folder: member.folder, rows: figures.rows)
            try checkManifest(member, figures: figures)
            for (group, outcome, cell) in try cells(member, figures: figures) {
                merged.merge(cell, group: group, outcome: outcome)
            }
        }
        return merged
    }

    private static func refuse(_ folder: String, _ reason: String) -> ShardSet.Failure {
        .mismatched(folder, reason: reason)
    }

    /// `shard.json`'s visitor counts against the rows. A shard stopped early (a signal, a
    /// guardrail) may have fewer rows than its share; never more.
    private static func checkCounts(_ report: ShardReport, folder: String, rows: Int) throws {
        let stopped = report.interrupted || report.terminated || report.guardrailStop != nil
        if rows > report.shardVisitors || (!stopped && rows != report.shardVisitors) {
            throw refuse(folder, "shard.json says \(report.shardVisitors) visitors, visitors.csv has \(rows) rows")
        }
        if rows != report.recordedVisitors {
            throw refuse(
                folder, "shard.json says \(report.recordedVisitors) recorded visitors, visitors.csv has \(rows) rows")
        }
    }

    private static func checkManifest(_ member: ShardSet.Member, figures: ShardRowFigures) throws {
        let (folder, report) = (member.folder, member.report)
        let path = Recorder.path(folder, Recorder.manifestFile)
        let manifest: RunManifest
        do {
            manifest = try RunManifest.read(Data(RegularFileReader.contents(path: path, limit: 64 << 20)))
        } catch {
            throw ShardSet.Failure.unreadable(path, reason: "it is not a \(Recorder.manifestFile) queuesim wrote")
        }
        if manifest.seed != report.seed {
            throw refuse(folder, "run.json seed \(manifest.seed), shard.json seed \(report.seed)")
        }
        guard let shard = manifest.shard else {
            throw refuse(folder, "run.json names no shard, shard.json shard \(report.shardIndex)/\(report.shardCount)")
        }
        if shard.index != report.shardIndex || shard.count != report.shardCount {
            throw refuse(
                folder,
                "run.json says shard \(shard.index)/\(shard.count), shard.json shard \(report.shardIndex)/\(report.shardCount)"
            )
        }
        if shard.visitors != report.shardVisitors {
            throw refuse(
                folder, "run.json says \(shard.visitors) shard visitors, shard.json \(report.shardVisitors)")
        }
        if manifest.visitors != figures.rows {
            throw refuse(folder, "run.json counts \(manifest.visitors) visitors, visitors.csv has \(figures.rows) rows")
        }
        for outcome in VisitorOutcome.allCases {
            let (said, rows) = (manifest.outcomes[outcome.rawValue] ?? 0, figures.outcomes[outcome] ?? 0)
            if said != rows {
                throw refuse(folder, "run.json counts \(said) \(outcome.rawValue), visitors.csv has \(rows) such rows")
            }
        }
    }

    /// One stored group × outcome of `shard.json`: its visitors and histograms by metric.
    private struct StoredCell {
        var visitors: Int
        var histograms: [String: EncodedHistogram] = [:]
    }

    /// The shard's cells from its rows, each checked against `shard.json`'s: the same visitors
    /// in every group and outcome, and every histogram equal to the one the rows fill.
    private static func cells(_ member: ShardSet.Member, figures: ShardRowFigures) throws -> [(
        group: String, outcome: VisitorOutcome, cell: OutcomeStatistics.Cell
    )] {
        let folder = member.folder
        var stored: [String: StoredCell] = [:]
        for entry in member.report.histograms {
            guard let outcome = VisitorOutcome(rawValue: entry.outcome),
                ShardReport.metrics.contains(where: { $0.name == entry.metric })
            else {
                throw refuse(
                    folder,
                    "shard.json has a histogram of an unknown outcome or metric (\(entry.outcome) \(entry.metric))")
            }
            let key = ShardRowFigures.key(group: entry.group, outcome: outcome)
            var cell = stored[key] ?? StoredCell(visitors: entry.visitors)
            guard cell.visitors == entry.visitors, cell.histograms[entry.metric] == nil else {
                throw refuse(folder, "shard.json describes \(entry.group)/\(entry.outcome) twice")
            }
            cell.histograms[entry.metric] = entry.histogram
            stored[key] = cell
        }
        var cells: [(group: String, outcome: VisitorOutcome, cell: OutcomeStatistics.Cell)] = []
        for (group, outcome, fromRows) in figures.statistics.occupiedCells {
            let key = ShardRowFigures.key(group: group, outcome: outcome)
            let what = "group \(group), outcome \(outcome.rawValue)"
            guard let cell = stored.removeValue(forKey: key), cell.visitors == fromRows.count else {
                let said = member.report.histograms.first { $0.group == group && $0.outcome == outcome.rawValue }
                throw refuse(
                    folder,
                    "shard.json counts \(said?.visitors ?? 0) visitors in \(what), visitors.csv has \(fromRows.count)")
            }
            var rebuilt = fromRows
            try addZeroWaits(
                to: &rebuilt, stored: cell.histograms["wait_ms"], rows: figures.zeroWaits[key] ?? 0,
                folder: folder, what: what)
            for (name, timing) in ShardReport.metrics {
                guard let histogram = cell.histograms[name] else { continue }
                if EncodedHistogram(rebuilt.timings.histogram(for: timing)) != histogram {
                    let metric = String(name.dropLast(3))
                    throw refuse(
                        folder,
                        "shard.json's \(metric) histogram (\(what)) does not match the \(metric)s in visitors.csv (\(name))"
                    )
                }
            }
            cells.append((group, outcome, rebuilt))
        }
        if let (key, cell) = stored.first(where: { $0.value.visitors > 0 }) {
            let name = key.replacingOccurrences(of: "\u{0}", with: ", outcome ")
            throw refuse(folder, "shard.json counts \(cell.visitors) visitors in group \(name), visitors.csv has none")
        }
        return cells
    }

    /// The waits of 0 ms the shard recorded (see `ShardRowFigures`): at most the rows' 0 ms waits.
    private static func addZeroWaits(
        to cell: inout OutcomeStatistics.Cell, stored: EncodedHistogram?, rows: Int, folder: String, what: String
    ) throws {
        let bucket = stored?.buckets.first { $0.count == 2 && $0[0] == 0 }
        let zeros = bucket.map { Int(clamping: $0[1]) } ?? 0
        guard zeros <= rows else {
            throw refuse(
                folder,
                "shard.json's wait histogram (\(what)) has \(zeros) waits of 0 ms, visitors.csv has \(rows) (wait_ms)")
        }
        if zeros > 0 { _ = cell.timings.wait.record(0, count: UInt64(zeros)) }
    }
}
