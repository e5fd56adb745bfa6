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
        let first = shards.first
        // Every figure comes from the rows, read and checked before anything is written.
        let read = try Self.read(shards)
        let timeline = read.timeline
        let (rows, picture, comebacks, statistics, answers) = (
            read.rows, read.picture, read.comebacks, read.statistics, read.answers
        )
        let reports = shards.members.map(\.report)
        let visitorsFile = try AtomicFileWriter.write(to: Recorder.path(directory, Recorder.visitorsFile)) { file in
            try interleave(rows, into: file)
        }
        let interrupted = reports.contains(where: \.interrupted)
        let terminated = reports.contains(where: \.terminated)
        // Windowed thresholds are each shard's own (judged on its visitors as it ran): left out here.
        let thresholds = first.thresholds.compactMap { try? ThresholdParser.parse($0).get() }
        // A shard a guardrail stopped stops the merged run's verdict too, at the earliest stop.
        let trip = reports.compactMap(\.guardrailStop).min { $0.atMs < $1.atMs }?.trip
        // Judged as the run judges: a wait at client.maxWait (or run.duration) is a lower bound.
        var measurements = RunMeasurements(statistics: statistics)
        measurements.waitCap = Self.configuration(of: reports, plannedVisitors: first.plannedVisitors)?.waitCap
        let verdicts = measurements.judge(
            thresholds, interrupted: interrupted, guardrails: trip.map { GuardrailResults(trip: $0) })
        var exitStatus = RunExitStatus.afterRun(
            interrupted: interrupted, terminated: terminated, guardrailStopped: trip != nil, verdicts: verdicts)
        // A merge without some shards is never a pass: the thresholds judged part of the run.
        // An interruption or a guardrail's stop still wins, as they do over threshold verdicts.
        if !shards.missing.isEmpty, !interrupted, trip == nil { exitStatus = .partial }
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
            seed: first.seed, clock: ClockKind(rawValue: first.clock) ?? .wall, groupNames: statistics.groupNames,
            thresholds: thresholds, runId: runId, endpoint: first.endpoint, timelineMarks: first.timelineMarks)
        description.commandLine = commandLine.map(SecretRedaction.redact)
        description.startAt = first.startAt.flatMap(StartInstant.parse)
        description.configuration = Self.configuration(of: reports, plannedVisitors: first.plannedVisitors)
        description.waitCap = measurements.waitCap
        description.compareRules = first.compareRules ?? []
        let ending = RunEnding(
            end: end, startedAt: startedAt, endedAt: endedAt, interrupted: interrupted, terminated: terminated,
            incomplete: incomplete)

        let series = timeline.series(end: end)
        let queuePageLatency = answers.map {
            QueuePageLatencyFigures($0.queuePageLatency, bucketSeconds: series.bucketSeconds)
        }
        var files: [String: RunManifest.WrittenFile] = [Recorder.visitorsFile: visitorsFile]
        files[Recorder.summaryFile] = try AtomicFileWriter.write(
            SummaryReport.render(statistics), to: Recorder.path(directory, Recorder.summaryFile))
        files[Recorder.timelineFile] = try AtomicFileWriter.write(
            to: Recorder.path(directory, Recorder.timelineFile)
        ) { file in
            try timeline.write(end: end, wallStart: description.startAt ?? startedAt) { try file.write($0) }
        }
        // Shards of a build before metrics.prom have none: the merge then writes none either.
        let shardMetrics = shards.members.compactMap {
            try? String(contentsOfFile: Recorder.path($0.folder, Recorder.metricsFile), encoding: .utf8)
        }
        if shardMetrics.count == shards.members.count {
            files[Recorder.metricsFile] = try AtomicFileWriter.write(
                MergedMetricsFile.merge(shardMetrics, runId: runId), to: Recorder.path(directory, Recorder.metricsFile))
        }
        let page = ReportPage(
            description: description,
            header: ReportPage.Header(
                startedAt: RunManifest.timestamp(startedAt), endedAt: RunManifest.timestamp(endedAt),
                durationMs: max(0, end.milliseconds), exitStatus: exitStatus, requests: timeline.requestCount,
                incomplete: incomplete, merged: merged, startInstant: description.startAt ?? startedAt),
            verdicts: verdicts, statistics: statistics, series: series, picture: picture,
            generator: nil, endpoints: answers?.table, queuePageLatency: queuePageLatency)
        files[Recorder.pageFile] = try AtomicFileWriter.write(
            page.render(), to: Recorder.path(directory, Recorder.pageFile))
        var manifest = RunManifest(
            description: description, ending: ending, visitors: statistics.visitorCount,
            outcomes: Dictionary(uniqueKeysWithValues: VisitorOutcome.allCases.map { ($0, statistics.count(of: $0)) }),
            requests: timeline.requestCount, verdicts: verdicts, exitStatus: exitStatus, files: files,
            statistics: statistics)
        manifest.shards = RunManifest.MergedShards(
            count: shards.count, merged: shards.members.map(\.index), missing: shards.missing,
            starts: reports.map {
                RunManifest.ShardStart(
                    index: $0.shardIndex, startedAt: $0.startedAt, startLagMs: $0.startLagMs,
                    saturatedSeconds: $0.generator?.saturatedSeconds)
            })
        manifest.mergedFrom = shards.members.count
        manifest.behaviour = Self.behaviour(timeline: timeline, statistics: statistics, comebacks: comebacks)
        if let trip {
            manifest.guardrailStop = .some(
                RunManifest.GuardrailStopEntry(
                    threshold: trip.threshold, window: RunManifest.JudgedWindowEntry(trip.window),
                    atMs: trip.at.milliseconds))
        }
        manifest.requestsByEndpoint = answers?.table
        manifest.queuePageLatency = queuePageLatency
        try AtomicFileWriter.write(try manifest.json(), to: Recorder.path(directory, Recorder.manifestFile))
        var report = RunReport(
            directory: directory, visitorCount: statistics.visitorCount, outcomeCounts: measurements.outcomeCounts,
            requestCount: timeline.requestCount, verdicts: verdicts, exitStatus: exitStatus,
            measurements: measurements)
        report.pagePath = Recorder.path(directory, Recorder.pageFile)
        report.durationMs = max(0, end.milliseconds)
        report.startedAt = startedAt
        report.wallSeconds = max(0, endedAt.timeIntervalSince(startedAt))
        report.failureCauses = GroupFailureCauses.top(statistics: statistics, picture: picture)
        report.guardrailTrip = trip
        return Result(
            visitors: statistics.visitorCount, plannedVisitors: first.plannedVisitors, verdicts: verdicts,
            exitStatus: exitStatus, missing: shards.missing, shardCount: shards.count, merged: merged, report: report,
            description: description,
            windowedThresholds: first.thresholds.filter { (try? ThresholdParser.parse($0).get()) == nil })
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
