import Foundation
import QueueClientCore

#if canImport(Glibc)
    import Glibc
#endif

/// What a run's folder holds while the run goes on (`.run.pending.json`): enough to finish its
/// reports if the process dies first.
struct PendingRun: Codable, Equatable {
    var runId: String
    var scenario: String
    var scenarioFile: String
    var scenarioSHA256: String
    var seed: UInt64
    var clock: String
    var groups: [String]
    /// Threshold lines as written in the scenario, parsed again on recovery.
    var thresholds: [String]
    /// Seconds since 1970 (UTC).
    var startedAt: Double
    /// Optional: folders of runs killed before these were kept still recover.
    var endpoint: String?
    var timelineMarks: [TimelineMark]?
    /// What the run rehearsed: a recovered report names it as the run would have (issue 29).
    var configuration: RunConfiguration?
    /// The visitors the whole plan numbers (a shard's visitors are numbered among them):
    /// recovery keeps no row of a visitor beyond it and invents none (issue 51). Nil in
    /// files from before it was written, and when the run did not say.
    var plannedVisitors: Int?
    /// A shard's place in its plan (`run --shard K/N`): recovery invents `interrupted` rows only
    /// for this shard's visitors, never for the other shards'. Nil for a whole run.
    var shardIndex: Int?
    var shardCount: Int?
    var shardVisitors: Int?
    var visitorsOverride: Int?

    init(description: RunDescription, startedAt: Date) {
        runId = description.runId
        scenario = description.scenarioName
        scenarioFile = description.scenarioPath
        scenarioSHA256 = description.scenarioSHA256
        seed = description.seed
        clock = description.clock.rawValue
        groups = description.groupNames
        thresholds = description.thresholds.map(\.source)
        self.startedAt = startedAt.timeIntervalSince1970
        endpoint = description.endpoint
        timelineMarks = description.timelineMarks
        configuration = description.configuration
        plannedVisitors = description.shard?.plannedVisitors ?? description.configuration?.arrivals.plannedVisitors
        shardIndex = description.shard?.shard.index
        shardCount = description.shard?.shard.count
        shardVisitors = description.shard?.shardVisitors
        visitorsOverride = description.shard?.visitorsOverride
    }

    /// The shard the run was, when it was one.
    var shard: PlanShard? {
        guard let shardIndex, let shardCount else { return nil }
        return PlanShard(index: shardIndex, count: shardCount)
    }

    /// Compact, keys sorted, slashes unescaped: `JSONEncoder`'s bytes with `[.sortedKeys,
    /// .withoutEscapingSlashes]` (`SortedJSONEncoder`). Written at the start of every run, it
    /// holds each group's configuration, and `JSONEncoder` spent 5 % of a 2,000-group run on it.
    func json() throws -> String {
        String(decoding: try jsonBytes(), as: UTF8.self)
    }

    func jsonBytes() throws -> [UInt8] {
        var bytes = try SortedJSONEncoder(pretty: false).encode(self)
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }

    var description: RunDescription {
        var description = RunDescription(
            scenarioName: scenario, scenarioPath: scenarioFile, scenarioSHA256: scenarioSHA256, seed: seed,
            clock: ClockKind(rawValue: clock) ?? .wall, groupNames: groups,
            thresholds: thresholds.compactMap { try? ThresholdParser.parse($0).get() }, runId: runId,
            endpoint: endpoint ?? "unknown", timelineMarks: timelineMarks ?? [])
        description.configuration = configuration
        if let shard, let plannedVisitors, let shardVisitors {
            description.shard = ShardIdentity(
                shard: shard, visitorsOverride: visitorsOverride, plannedVisitors: plannedVisitors,
                shardVisitors: shardVisitors)
        }
        return description
    }
}

/// Turns the folder of a run that died (`kill -9`, an OOM kill, a CI timeout) into a complete,
/// valid report marked incomplete: every row that reached the spool file, in visitor order; a
/// row for each visitor below the highest recorded one that has none (outcome `interrupted`);
/// the summary and timeline recomputed from the rows; `run.json` with `incomplete` saying why.
///
/// The plan's visitor count (`.run.pending.json`), not a row, says how many visitors there can
/// be: a row beyond it, a line that is no row, a second row for a visitor are dropped and
/// named (`Recovered.dropped`), so a corrupt spool costs neither unbounded rows nor silence.
/// A pending file from before the count was written bounds the visitors by the spool's own
/// rows instead (`bySpoolRows`), and the report says so.
///
/// Rows reach the spool within about a second of their visitor finishing (the row writer
/// flushes whenever it is idle), so a kill loses at most that much. Recomputed figures have the
/// rows' millisecond precision, and the timeline counts each visitor's requests in the second
/// it ended (the request times themselves died with the process).
package enum ReportRecovery {
    package enum Failure: Error, CustomStringConvertible {
        case notARunFolder(String)
        package var description: String {
            switch self {
            case .notARunFolder(let path): "\(path) holds no unfinished run (no \(Recorder.pendingFile))"
            }
        }
    }

    package struct Recovered: Sendable {
        package var directory: String
        package var runId: String
        package var rows: Int
        package var filledIn: Int
        /// The first dropped lines, each `PATH:LINE: dropped: why`, in line order (at most
        /// `RecoveredRows.Dropped.namedLimit`); `droppedCount` counts them all.
        package var dropped: [String] = []
        package var droppedCount = 0
        /// Set when the pending file held no planned count: how the visitors were bounded.
        package var boundNote: String?
    }

    /// Without the plan's count, each row kept may vouch for one visitor without a row, and
    /// at least this many: a run killed with its queue full has many visitors unfinished.
    static let unplannedSlack = 10_000

    /// Finishes the reports in `directory`, the folder of one run.
    package static func recover(_ directory: String) throws -> Recovered {
        let pendingPath = Recorder.path(directory, Recorder.pendingFile)
        guard let data = FileManager.default.contents(atPath: pendingPath),
            let pending = try? JSONDecoder().decode(PendingRun.self, from: data)
        else { throw Failure.notARunFolder(directory) }
        let description = pending.description

        // The rows: from the spool, or from visitors.csv when the run died after writing it.
        let spoolPath = Recorder.path(directory, Recorder.spoolFile)
        let visitorsPath = Recorder.path(directory, Recorder.visitorsFile)
        var found: RecoveredRows?
        var modified = Date(timeIntervalSince1970: pending.startedAt)
        for (path, skipHeader) in [(spoolPath, false), (visitorsPath, true)]
        where FileManager.default.fileExists(atPath: path) {
            found = try RecoveredRows(path: path, skipHeader: skipHeader, plannedVisitors: pending.plannedVisitors)
            if let attributes = try? FileManager.default.attributesOfItem(atPath: path),
                let date = attributes[.modificationDate] as? Date
            {
                modified = max(modified, date)
            }
            break
        }
        var boundNote: String?
        if var rows = found, pending.plannedVisitors == nil {
            let bound = rows.records.count + max(rows.records.count, unplannedSlack)
            boundNote =
                "\(Recorder.pendingFile) holds no planned visitor count (a run from before it was recorded): "
                + "visitors were bounded by the spool's own \(rows.records.count) row(s), at most \(bound)"
            rows.dropRows(from: bound) { "visitor \($0) is beyond what the spool's rows vouch for (\(bound))" }
            found = rows
        }
        let records = found?.records.mapValues(\.record) ?? [:]
        let dropped = found?.dropped ?? RecoveredRows.Dropped()
        let end = records.values.map(\.ended).max() ?? .origin

        // The spool is read; a new recorder writes the reports over it.
        unlink(spoolPath)
        let recorder = try Recorder(
            directory: directory, description: description,
            startedAt: Date(timeIntervalSince1970: pending.startedAt))
        let filledIn = try record(
            records, into: recorder, end: end, group: description.groupNames.first ?? "", shard: pending.shard)
        var reason =
            "the run was killed before it finished (no end recorded); recovered \(records.count) row(s) "
            + "written up to \(RunManifest.timestamp(modified))"
            + (filledIn > 0 ? ", \(filledIn) visitor(s) without a row marked interrupted" : "")
        if dropped.count > 0 {
            reason += ", \(dropped.count) line(s) of the spool dropped (not a row, a second row, or beyond the plan)"
        }
        if let boundNote { reason += "; \(boundNote)" }
        _ = try recorder.finish(
            RunEnding(
                end: end, startedAt: Date(timeIntervalSince1970: pending.startedAt), endedAt: modified,
                interrupted: true, incomplete: reason))
        return Recovered(
            directory: directory, runId: pending.runId, rows: records.count, filledIn: filledIn,
            dropped: dropped.lines, droppedCount: dropped.count, boundNote: boundNote)
    }

    /// Records every row in visitor order, and an `interrupted` row for each visitor below
    /// the highest without one (of a shard's, only its own visitors); returns how many were
    /// filled in.
    private static func record(
        _ records: [Int: VisitorRecord], into recorder: Recorder, end: RunInstant, group: String, shard: PlanShard?
    ) throws -> Int {
        guard let highest = records.keys.max() else { return 0 }
        var filledIn = 0
        // A run whose rows say the platform gives its filled-in rows an empty one: same columns.
        let platformColumn = records.values.contains { $0.platform != nil }
        let protocolColumn = records.values.contains { $0.spokenProtocols != nil }
        for index in 0...highest {
            if let record = records[index] {
                try recorder.record(record)
                recorder.recordRequests(record.requests, inSecond: Timeline.second(of: record.ended))
            } else if shard?.owns(index) ?? true {
                filledIn += 1
                var missing = VisitorRecord(
                    index: index, group: group, flow: "", arrival: end, start: end, outcome: .interrupted,
                    error: "no row: the run was killed before this visitor's row reached the disk", ended: end)
                if platformColumn { missing.platform = "" }
                if protocolColumn { missing.spokenProtocols = "" }
                try recorder.record(missing)
            }
        }
        return filledIn
    }
}
