import Foundation
import QueueClientCore

/// `queuesim merge`: the report folder of a single run, made from the folders of its shards.
///
/// - `visitors.csv`: every shard's rows, in visitor order (each shard's file is in visitor
///   order already, so the merge interleaves them), bytes as the shards wrote them;
/// - `summary.csv` and the thresholds: from histograms rebuilt from the shards' rows (whole
///   milliseconds, as a recorder fills them), which are the histograms one process would have
///   filled; each shard's `shard.json` and `run.json` must agree with its rows (`ShardCheck`),
///   or the shard is refused;
/// - `timeline.csv`: from the merged rows, second by second (so per-second percentiles are
///   exact too), with each second's requests summed over the shards;
/// - `run.json` and `report.html` as a run writes them, with the shards merged and missing.
package enum ShardMerge {
    package struct Result: Sendable {
        package var visitors: Int
        package var plannedVisitors: Int
        package var verdicts: [ThresholdVerdict]
        package var exitStatus: RunExitStatus
        package var missing: [Int]
        package var shardCount: Int
        /// The shards merged, their start lag and generator health, in words.
        package var merged: MergedShardsSummary
        /// The merged run as `run` reports one (for `--junit`).
        package var report: RunReport
        package var description: RunDescription
        /// The windowed thresholds the merge left out (each shard judged its own windows as it
        /// ran), by source, so the command says so instead of dropping them unnoticed.
        package var windowedThresholds: [String] = []
        package var thresholdTable: String { ThresholdTable.render(verdicts) }
    }

    /// Writes the merged files into `directory` (which must exist). Throws `ShardSet.Failure`,
    /// before writing anything, when a shard's rows, `shard.json` and `run.json` disagree.
    package static func write(_ shards: ShardSet, into directory: String, runId: String, commandLine: [String])
        throws -> Result
    {
        // Every figure comes from the rows, read and checked before anything is written.
        let read = try Self.read(shards)
        let judged = judge(shards, read)
        let run = describe(shards, read, judged, runId: runId, commandLine: commandLine)
        let written = try writeFiles(shards, read, judged, run, into: directory)
        try writeManifest(shards, read, judged, run, written, into: directory)
        return Result(
            visitors: read.statistics.visitorCount, plannedVisitors: shards.first.plannedVisitors,
            verdicts: judged.verdicts, exitStatus: judged.exitStatus, missing: shards.missing,
            shardCount: shards.count, merged: run.merged,
            report: runReport(read, judged, run, directory: directory), description: run.description,
            windowedThresholds: shards.first.thresholds.filter { (try? ThresholdParser.parse($0).get()) == nil })
    }

    /// The merged run's verdicts, judged as the run judges them.
    private struct Judged {
        var measurements: RunMeasurements
        var verdicts: [ThresholdVerdict]
        var exitStatus: RunExitStatus
        var interrupted: Bool
        var terminated: Bool
        var trip: GuardrailTrip?
    }

    private static func judge(_ shards: ShardSet, _ read: ReadShards) -> Judged {
        let reports = shards.members.map(\.report)
        let interrupted = reports.contains(where: \.interrupted)
        let terminated = reports.contains(where: \.terminated)
        // Windowed thresholds are each shard's own (judged on its visitors as it ran): left out here.
        let thresholds = shards.first.thresholds.compactMap { try? ThresholdParser.parse($0).get() }
        // A shard a guardrail stopped stops the merged run's verdict too, at the earliest stop.
        let trip = reports.compactMap(\.guardrailStop).min { $0.atMs < $1.atMs }?.trip
        // Judged as the run judges: a wait at client.maxWait (or run.duration) is a lower bound.
        var measurements = RunMeasurements(statistics: read.statistics)
        measurements.waitCap = Self.configuration(of: reports, plannedVisitors: shards.first.plannedVisitors)?.waitCap
        let verdicts = measurements.judge(
            thresholds, interrupted: interrupted, guardrails: trip.map { GuardrailResults(trip: $0) })
        var exitStatus = RunExitStatus.afterRun(
            interrupted: interrupted, terminated: terminated, guardrailStopped: trip != nil, verdicts: verdicts)
        // A merge without some shards is never a pass: the thresholds judged part of the run.
        // An interruption or a guardrail's stop still wins, as they do over threshold verdicts.
        if !shards.missing.isEmpty, !interrupted, trip == nil { exitStatus = .partial }
        return Judged(
            measurements: measurements, verdicts: verdicts, exitStatus: exitStatus, interrupted: interrupted,
            terminated: terminated, trip: trip)
    }

    /// What the merged run was and how it ended, as a run describes itself.
    private struct MergedRun {
        var description: RunDescription
        var ending: RunEnding
        var merged: MergedShardsSummary
        var series: TimelineSeries
        var queuePageLatency: QueuePageLatencyFigures?
    }

    private static func describe(
        _ shards: ShardSet, _ read: ReadShards, _ judged: Judged, runId: String, commandLine: [String]
    ) -> MergedRun {
        let (first, reports) = (shards.first, shards.members.map(\.report))
        let merged = MergedShardsSummary(
            count: shards.count,
            shards: reports.map {
                MergedShardsSummary.Shard(
                    index: $0.shardIndex, startLagMs: $0.startLagMs, saturatedSeconds: $0.generator?.saturatedSeconds)
            }, missing: shards.missing)
        let startedAt = reports.compactMap { Self.date($0.startedAt) }.min() ?? Date()
        let endedAt = reports.compactMap { Self.date($0.endedAt) }.max() ?? Date()
        let end = RunInstant.origin + .milliseconds(reports.map(\.durationMs).max() ?? 0)
        let incomplete =
            shards.missing.isEmpty
            ? nil
            : "merged without shard(s) \(shards.missing.map(String.init).joined(separator: ", ")) of \(shards.count): their visitors are not in this report"
        var description = RunDescription(
            scenarioName: first.scenario, scenarioPath: first.scenarioFile, scenarioSHA256: first.scenarioSHA256,
            seed: first.seed, clock: ClockKind(rawValue: first.clock) ?? .wall, groupNames: read.statistics.groupNames,
            thresholds: first.thresholds.compactMap { try? ThresholdParser.parse($0).get() }, runId: runId,
            endpoint: first.endpoint, timelineMarks: first.timelineMarks)
        description.commandLine = commandLine.map(SecretRedaction.redact)
        description.startAt = first.startAt.flatMap(StartInstant.parse)
        description.configuration = Self.configuration(of: reports, plannedVisitors: first.plannedVisitors)
        description.waitCap = judged.measurements.waitCap
        description.compareRules = first.compareRules ?? []
        let ending = RunEnding(
            end: end, startedAt: startedAt, endedAt: endedAt, interrupted: judged.interrupted,
            terminated: judged.terminated, incomplete: incomplete)
        let series = read.timeline.series(end: end)
        return MergedRun(
            description: description, ending: ending, merged: merged, series: series,
            queuePageLatency: read.answers.map {
                QueuePageLatencyFigures($0.queuePageLatency, bucketSeconds: series.bucketSeconds)
            })
    }

    /// Every file but `run.json`, which records them: the rows, summary, timeline, metrics and page.
    private static func writeFiles(
        _ shards: ShardSet, _ read: ReadShards, _ judged: Judged, _ run: MergedRun, into directory: String
    ) throws -> [String: RunManifest.WrittenFile] {
        let (end, startedAt) = (run.ending.end, run.ending.startedAt)
        var files: [String: RunManifest.WrittenFile] = [:]
        files[Recorder.visitorsFile] = try AtomicFileWriter.write(to: Recorder.path(directory, Recorder.visitorsFile)) {
            file in try interleave(read.rows, into: file)
        }
        files[Recorder.summaryFile] = try AtomicFileWriter.write(
            SummaryReport.render(read.statistics), to: Recorder.path(directory, Recorder.summaryFile))
        files[Recorder.timelineFile] = try AtomicFileWriter.write(
            to: Recorder.path(directory, Recorder.timelineFile)
        ) { file in
            try read.timeline.write(end: end, wallStart: run.description.startAt ?? startedAt) { try file.write($0) }
        }
        // Shards of a build before metrics.prom have none: the merge then writes none either.
        let shardMetrics = shards.members.compactMap {
            try? String(contentsOfFile: Recorder.path($0.folder, Recorder.metricsFile), encoding: .utf8)
        }
        if shardMetrics.count == shards.members.count {
            files[Recorder.metricsFile] = try AtomicFileWriter.write(
                MergedMetricsFile.merge(shardMetrics, runId: run.description.runId),
                to: Recorder.path(directory, Recorder.metricsFile))
        }
        let page = ReportPage(
            description: run.description,
            header: ReportPage.Header(
                startedAt: RunManifest.timestamp(startedAt), endedAt: RunManifest.timestamp(run.ending.endedAt),
                durationMs: max(0, end.milliseconds), exitStatus: judged.exitStatus,
                requests: read.timeline.requestCount, incomplete: run.ending.incomplete, merged: run.merged,
                startInstant: run.description.startAt ?? startedAt),
            verdicts: judged.verdicts, statistics: read.statistics, series: run.series, picture: read.picture,
            generator: nil, endpoints: read.answers?.table, queuePageLatency: run.queuePageLatency)
        files[Recorder.pageFile] = try AtomicFileWriter.write(
            page.render(), to: Recorder.path(directory, Recorder.pageFile))
        return files
    }

    /// `run.json` as a run writes it, with the shards merged and missing.
    private static func writeManifest(
        _ shards: ShardSet, _ read: ReadShards, _ judged: Judged, _ run: MergedRun,
        _ files: [String: RunManifest.WrittenFile], into directory: String
    ) throws {
        let statistics = read.statistics
        var manifest = RunManifest(
            description: run.description, ending: run.ending, visitors: statistics.visitorCount,
            outcomes: Dictionary(uniqueKeysWithValues: VisitorOutcome.allCases.map { ($0, statistics.count(of: $0)) }),
            requests: read.timeline.requestCount, verdicts: judged.verdicts, exitStatus: judged.exitStatus,
            files: files, statistics: statistics)
        manifest.shards = RunManifest.MergedShards(
            count: shards.count, merged: shards.members.map(\.index), missing: shards.missing,
            starts: shards.members.map(\.report).map {
                RunManifest.ShardStart(
                    index: $0.shardIndex, startedAt: $0.startedAt, startLagMs: $0.startLagMs,
                    saturatedSeconds: $0.generator?.saturatedSeconds)
            })
        manifest.mergedFrom = shards.members.count
        manifest.behaviour = Self.behaviour(timeline: read.timeline, statistics: statistics, comebacks: read.comebacks)
        if let trip = judged.trip {
            manifest.guardrailStop = .some(
                RunManifest.GuardrailStopEntry(
                    threshold: trip.threshold, window: RunManifest.JudgedWindowEntry(trip.window),
                    atMs: trip.at.milliseconds))
        }
        manifest.requestsByEndpoint = read.answers?.table
        manifest.queuePageLatency = run.queuePageLatency
        try AtomicFileWriter.write(try manifest.json(), to: Recorder.path(directory, Recorder.manifestFile))
    }

    /// The merged run as `run` reports one (for `--junit` and the end screen).
    private static func runReport(_ read: ReadShards, _ judged: Judged, _ run: MergedRun, directory: String)
        -> RunReport
    {
        let (statistics, end) = (read.statistics, run.ending.end)
        var report = RunReport(
            directory: directory, visitorCount: statistics.visitorCount,
            outcomeCounts: judged.measurements.outcomeCounts, requestCount: read.timeline.requestCount,
            verdicts: judged.verdicts, exitStatus: judged.exitStatus, measurements: judged.measurements)
        report.pagePath = Recorder.path(directory, Recorder.pageFile)
        report.durationMs = max(0, end.milliseconds)
        report.startedAt = run.ending.startedAt
        report.wallSeconds = max(0, run.ending.endedAt.timeIntervalSince(run.ending.startedAt))
        report.failureCauses = GroupFailureCauses.top(statistics: statistics, picture: read.picture)
        report.guardrailTrip = judged.trip
        return report
    }

    /// What the merge writes from, read from every shard and checked against its `shard.json`
    /// and `run.json` (throws `ShardSet.Failure` on the first disagreement). Separate from the
    /// writing so that nothing is written for a refused shard, and so the fuzz target
    /// (fuzz/Sources/ShardFolderFuzz) reaches every reader of a shard folder without writing.
    struct ReadShards {
        var rows: [ShardRows]
        var timeline: Timeline
        var picture: LaunchPicture
        var comebacks: Int
        var statistics: OutcomeStatistics
        var answers: RequestStatistics?
    }

    static func read(_ shards: ShardSet) throws -> ReadShards {
        let first = shards.first
        var timeline = Timeline()
        var picture = LaunchPicture()
        let rows = try shards.members.map { try ShardRows(member: $0) }
        var figures = shards.members.map { _ in ShardRowFigures(groupNames: first.groupNames) }
        var comebacks = 0
        try ShardRows.inVisitorOrder(rows) { shard, row in
            guard let record = VisitorRowFormat.decode(rows[shard].rows[row]) else {
                throw ShardSet.Failure.mismatched(
                    rows[shard].folder, reason: "visitors.csv has a row queuesim did not write")
            }
            comebacks += record.comebacks ?? 0
            figures[shard].add(record)
            timeline.add(record)
            picture.add(record)
        }
        let statistics = try ShardCheck.mergedStatistics(
            shards.members, figures: figures, groupNames: first.groupNames)
        for member in shards.members {
            for pair in member.report.requestsPerSecond where pair.count == 2 {
                timeline.addRequests(pair[1], inSecond: pair[0])
            }
            if let afterPass = member.report.afterPassRequestsPerSecond {
                var counts = PerSecondCounts()
                for pair in afterPass where pair.count == 2 && pair[0] >= 0 { counts.add(at: pair[0], pair[1]) }
                timeline.addAfterPassRequests(counts)
            }
        }
        let answers = try Self.answers(of: shards.members, into: &timeline)
        return ReadShards(
            rows: rows, timeline: timeline, picture: picture, comebacks: comebacks, statistics: statistics,
            answers: answers)
    }

    /// run.json's `after_pass`, `abandoned_share` and `comebacks` of the merged run, as a
    /// recorder of every visitor works them out.
    private static func behaviour(timeline: Timeline, statistics: OutcomeStatistics, comebacks: Int)
        -> BehaviourFigures
    {
        var behaviour = BehaviourFigures()
        let afterPass = timeline.afterPassFigures
        behaviour.afterPassRequests = afterPass.total
        behaviour.afterPassPeakPerSecond = afterPass.peakPerSecond
        behaviour.afterPassPeakSecond = afterPass.peakSecond
        behaviour.afterPassCounted = timeline.countsAfterPass
        behaviour.comebacks = comebacks
        behaviour.abandonedShare =
            statistics.visitorCount > 0
            ? Double(statistics.count(of: .abandoned)) / Double(statistics.visitorCount) : 0
        return behaviour
    }

    /// Writes the header and every shard's rows, in visitor order, as the shards wrote them.
    private static func interleave(_ shards: [ShardRows], into file: ReportFile) throws {
        var out: [UInt8] = Array((shards.first?.header ?? VisitorRowFormat.header).utf8)
        try ShardRows.inVisitorOrder(shards) { shard, row in
            out.append(contentsOf: shards[shard].rows[row])
            out.append(UInt8(ascii: "\n"))
            if out.count >= 1 << 18 {
                try file.write(out)
                out.removeAll(keepingCapacity: true)
            }
        }
        try file.write(out)
    }

    private static func date(_ text: String) -> Date? {
        StartInstant.parse(text)
    }

    /// The shards rehearsed one configuration, each with its share of `run.concurrency` and of
    /// the plan: the merged run's is the first shard's with the whole's concurrency and plan.
    /// Nil when a shard's `shard.json` predates the configuration.
    static func configuration(of reports: [ShardReport], plannedVisitors: Int) -> RunConfiguration? {
        let configurations = reports.compactMap(\.configuration)
        guard var configuration = configurations.first, configurations.count == reports.count else { return nil }
        configuration.run.concurrency = configurations.reduce(0) { $0 + $1.run.concurrency }
        configuration.arrivals.plannedVisitors = plannedVisitors
        // The merged run is the whole plan, not the first shard's part of it.
        configuration.overrides["shard"] = nil
        return configuration
    }

    /// The shards' answers put together, and their answers and connections per second added to
    /// the merged timeline; nil (the page and `run.json` say "not recorded") when a shard's
    /// `shard.json` predates them, since a part of the answers would read as all of them.
    static func answers(of members: [ShardSet.Member], into timeline: inout Timeline) throws -> RequestStatistics? {
        let all = members.compactMap(\.report.answers)
        guard all.count == members.count, !all.isEmpty else { return nil }
        var merged = RequestStatistics()
        for (member, shard) in zip(members, all) {
            do {
                merged.merge(try shard.statistics())
            } catch {
                // A broken histogram is broken input (exit 2), never "cannot write".
                throw ShardSet.Failure.mismatched(member.folder, reason: "shard.json's answers: \(error)")
            }
        }
        timeline.addAnswers(merged.perSecond)
        let connections = all.compactMap(\.connections)
        if connections.count == all.count { for counts in connections { timeline.addConnections(counts) } }
        return merged
    }
}
