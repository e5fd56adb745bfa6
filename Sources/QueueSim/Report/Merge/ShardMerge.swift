import Foundation
import QueueClientCore

/// `queuesim merge`: the report folder of a single run, made from the folders of its shards.
///
/// - `visitors.csv`: every shard's rows, in visitor order (each shard's file is in visitor
///   order already, so the merge interleaves them), bytes as the shards wrote them;
/// - `summary.csv` and the thresholds: from the sum of the shards' histograms (`shard.json`),
///   which is the histogram one process would have filled: exact to its precision;
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

    /// Writes the merged files into `directory` (which must exist). Throws `ShardSet.Failure`
    /// when a shard's rows and histograms disagree (nothing of the merge is trusted then).
    package static func write(_ shards: ShardSet, into directory: String, runId: String, commandLine: [String])
        throws -> Result
    {
        let first = shards.first
        var statistics = OutcomeStatistics(groupNames: first.groupNames)
        var timeline = Timeline()
        var picture = LaunchPicture()
        var rowStatistics = OutcomeStatistics(groupNames: first.groupNames)
        for member in shards.members {
            for (group, outcome, cell) in try member.report.cells() {
                statistics.merge(cell, group: group, outcome: outcome)
            }
            for pair in member.report.requestsPerSecond where pair.count == 2 {
                timeline.addRequests(pair[1], inSecond: pair[0])
            }
            if let afterPass = member.report.afterPassRequestsPerSecond {
                var counts = PerSecondCounts()
                for pair in afterPass where pair.count == 2 && pair[0] >= 0 { counts.add(at: pair[0], pair[1]) }
                timeline.addAfterPassRequests(counts)
            }
        }
        var comebacks = 0
        let rows = try shards.members.map { try ShardRows(member: $0) }
        let visitorsFile = try AtomicFileWriter.write(to: Recorder.path(directory, Recorder.visitorsFile)) { file in
            try interleave(rows, into: file) { record in
                comebacks += record.comebacks ?? 0
                rowStatistics.add(record)
                timeline.add(record)
                picture.add(record)
            }
        }
        try checkAgreement(rows: rowStatistics, histograms: statistics, folders: shards.members.map(\.folder))

        let reports = shards.members.map(\.report)
        let answers = try Self.answers(of: reports, into: &timeline)
        let interrupted = reports.contains(where: \.interrupted)
        let terminated = reports.contains(where: \.terminated)
        // Windowed thresholds are each shard's own (judged on its visitors as it ran): left out here.
        let thresholds = first.thresholds.compactMap { try? ThresholdParser.parse($0).get() }
        // A shard a guardrail stopped stops the merged run's verdict too, at the earliest stop.
        let trip = reports.compactMap(\.guardrailStop).min { $0.atMs < $1.atMs }?.trip
        let verdicts = RunMeasurements(statistics: statistics).judge(
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
        let measurements = RunMeasurements(statistics: statistics)
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

    /// One shard's `visitors.csv`, its rows checked to be this shard's and in visitor order.
    private struct ShardRows {
        let folder: String
        let rows: [ArraySlice<UInt8>]
        let visitorNumbers: [Int]
        /// With or without the `platform` column: the shards of one scenario agree.
        let header: String

        init(member: ShardSet.Member) throws {
            folder = member.folder
            let path = Recorder.path(member.folder, Recorder.visitorsFile)
            let bytes: [UInt8]
            do {
                bytes = try RegularFileReader.contents(path: path, limit: Int.max)
            } catch {
                throw ShardSet.Failure.unreadable(path, reason: error.description)
            }
            guard let newline = bytes.firstIndex(of: UInt8(ascii: "\n")),
                case let line = String(decoding: bytes[...newline], as: UTF8.self),
                [false, true].contains(where: { comebacks in
                    line == VisitorRowFormat.header(platform: false, comebacks: comebacks)
                        || line == VisitorRowFormat.header(platform: true, comebacks: comebacks)
                })
            else { throw ShardSet.Failure.mismatched(folder, reason: "its visitors.csv has not queuesim's header") }
            header = line
            rows = VisitorRowFormat.completeRows(Array(bytes[(newline + 1)...]))
            var numbers: [Int] = []
            numbers.reserveCapacity(rows.count)
            let shard = PlanShard(index: member.report.shardIndex, count: member.report.shardCount)!
            for row in rows {
                let number = Int(String(decoding: row.prefix(while: { $0 != UInt8(ascii: ",") }), as: UTF8.self))
                guard let number, number >= 1, shard.owns(number - 1), number > (numbers.last ?? 0) else {
                    throw ShardSet.Failure.mismatched(
                        folder, reason: "visitors.csv has a row that is not shard \(shard)'s, or out of visitor order")
                }
                numbers.append(number)
            }
            visitorNumbers = numbers
            guard rows.count == member.report.recordedVisitors else {
                throw ShardSet.Failure.mismatched(
                    folder,
                    reason:
                        "visitors.csv has \(rows.count) rows but shard.json counts \(member.report.recordedVisitors)")
            }
        }
    }

    /// Writes the header and every row in visitor order, handing each decoded row to `visit`.
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

    private static func interleave(
        _ shards: [ShardRows], into file: ReportFile, visit: (VisitorRecord) -> Void
    ) throws {
        var out: [UInt8] = Array((shards.first?.header ?? VisitorRowFormat.header).utf8)
        var positions = Array(repeating: 0, count: shards.count)
        while true {
            var next: Int?
            for shard in shards.indices where positions[shard] < shards[shard].rows.count {
                if let best = next,
                    shards[best].visitorNumbers[positions[best]] < shards[shard].visitorNumbers[positions[shard]]
                {
                    continue
                }
                next = shard
            }
            guard let shard = next else { break }
            let row = shards[shard].rows[positions[shard]]
            positions[shard] += 1
            guard let record = VisitorRowFormat.decode(row) else {
                throw ShardSet.Failure.mismatched(
                    shards[shard].folder, reason: "visitors.csv has a row queuesim did not write")
            }
            visit(record)
            out.append(contentsOf: row)
            out.append(UInt8(ascii: "\n"))
            if out.count >= 1 << 18 {
                try file.write(out)
                out.removeAll(keepingCapacity: true)
            }
        }
        try file.write(out)
    }

    /// The rows and the histograms are two records of the same visitors: they must count the
    /// same visitors in every group and outcome.
    private static func checkAgreement(rows: OutcomeStatistics, histograms: OutcomeStatistics, folders: [String])
        throws
    {
        let fromRows = Dictionary(
            uniqueKeysWithValues: rows.occupiedCells.map { ("\($0.group)/\($0.outcome.rawValue)", $0.cell.count) })
        let fromHistograms = Dictionary(
            uniqueKeysWithValues: histograms.occupiedCells.map {
                ("\($0.group)/\($0.outcome.rawValue)", $0.cell.count)
            })
        guard fromRows == fromHistograms else {
            throw ShardSet.Failure.mismatched(
                folders.joined(separator: ", "),
                reason: "visitors.csv and shard.json count different visitors (a folder was edited or mixed up)")
        }
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
    static func answers(of reports: [ShardReport], into timeline: inout Timeline) throws -> RequestStatistics? {
        let all = reports.compactMap(\.answers)
        guard all.count == reports.count, !all.isEmpty else { return nil }
        var merged = RequestStatistics()
        for shard in all { merged.merge(try shard.statistics()) }
        timeline.addAnswers(merged.perSecond)
        let connections = all.compactMap(\.connections)
        if connections.count == all.count { for counts in connections { timeline.addConnections(counts) } }
        return merged
    }
}
