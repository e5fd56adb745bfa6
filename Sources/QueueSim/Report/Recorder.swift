import Foundation
import QueueClientCore

/// Collects every finished visitor and every HTTP request of one run, then writes the reports.
///
/// Owned by one thread at a time: the `RowWriter` thread while a run goes on, the runner after.
/// Rows stream to a spool file in the report directory as visitors finish; memory holds only
/// twelve bytes per visitor, histograms and per-second counters. `finish` writes
/// `visitors.csv` (in arrival order), `summary.csv`, `timeline.csv` and `run.json`, each
/// through a `.tmp` file and a rename.
package final class Recorder {
    package static let visitorsFile = "visitors.csv"
    package static let summaryFile = "summary.csv"
    package static let timelineFile = "timeline.csv"
    package static let manifestFile = "run.json"
    package static let pageFile = "report.html"
    package static let metricsFile = "metrics.prom"
    static let spoolFile = ".visitors.unordered.tmp"
    /// Written when the run starts, removed once `run.json` is: its presence marks a run that
    /// never finished, and it holds what `ReportRecovery` needs to finish the reports.
    static let pendingFile = ".run.pending.json"

    package let directory: String
    package let run: RunDescription
    /// Nil when the recorder keeps figures only (`init(figuresOnlyFor:)`): no rows, no files.
    private let spool: VisitorRowSpool?
    private var statistics: OutcomeStatistics
    private var timeline = Timeline()
    private var picture = LaunchPicture()
    /// The run's metrics second by second, for `metrics.prom` (nil when only figures are kept).
    private var metricsSeries: RunMetricsSeries?
    private var roomSeries: RoomSeries?
    /// The run's minutes under Queue-it's statistics names (`minutes.csv`; nil when only figures are kept).
    private var minutes: RunMinutesTally?
    private var generatorLag: [Duration]?
    private var answers = RequestStatistics()
    /// Whether a runner handed over its answers (a recovered run's are lost).
    private var answersRecorded = false
    private var row = CSVRowBuilder()
    private var finished = false
    /// Whether the rows carry a platform (a group mixes platforms): the header says so too.
    private var rowsHavePlatform = false
    private var rowsHaveComebacks = false
    private var rowsHaveProtocols = false
    /// Comebacks over every recorded row (run.json's `comebacks`).
    private var comebacks = 0
    /// Outcomes by platform, when the rows carry one (`RunReport.platformOutcomes`).
    private var platformOutcomes: [String: [VisitorOutcome: Int]] = [:]
    /// The first entry into the queue and the last exit from it, for `RunReport.queue`.
    private var queueSpan = QueueSpan()
    /// run.json's `configuration` and report.html's groups table, rendered on a thread of their
    /// own once the pending file is written: both are known from the start, and with 2,000
    /// groups they were a sixth of run.json's work and a third of the page's at the end, when
    /// every core is busy (issue 51). Started with the run, they competed with its setup; at
    /// the first finished visitor (late in a launch), with the end's own work.
    private var renderedConfiguration: BackgroundValue<RenderedConfiguration>?
    /// The pending file being written (then the configuration's rendering started); nil once
    /// it is on disk.
    private var pendingWrite: BackgroundJob<BackgroundValue<RenderedConfiguration>?>?

    /// Creates `directory` (and parents) if needed and opens the row spool in it, so that the
    /// final rename of `visitors.csv` stays on one file system.
    package init(directory: String, description: RunDescription, startedAt: Date = Date()) throws {
        self.directory = directory
        self.run = description
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // The pending file is written on a thread of its own while the run starts (with 2,000
        // groups it was a tenth of the time before the first visitor, issue 51); no row reaches
        // the spool before it is on disk (`pendingWritten`), so `recover` always finds it.
        let pending = PendingRun(description: description, startedAt: startedAt)
        let pendingPath = Self.path(directory, Self.pendingFile)
        let configuration = description.configuration
        pendingWrite = BackgroundJob {
            try AtomicFileWriter.writeUnlisted(try pending.jsonBytes(), to: pendingPath)
            return configuration.map { configuration in
                BackgroundValue {
                    RenderedConfiguration(
                        json: try? RunManifest.renderConfiguration(configuration),
                        groupsTable: ConfigurationSection.groupsTable(configuration.groups))
                }
            }
        }
        spool = try VisitorRowSpool(
            spoolPath: Self.path(directory, Self.spoolFile), shard: description.shard?.shard ?? .whole)
        statistics = OutcomeStatistics(groupNames: description.groupNames)
        metricsSeries = RunMetricsSeries(groupNames: description.groupNames)
        minutes = RunMinutesTally()
    }

    /// A recorder that keeps the figures of a run (`RunReport`: outcomes, timings, thresholds,
    /// the queue) and writes nothing: a sweep's point needs its numbers, not a report folder,
    /// and skipping the rows, the spool and the files is most of what a sweep saves.
    package init(figuresOnlyFor description: RunDescription) {
        directory = ""
        run = description
        spool = nil
        statistics = OutcomeStatistics(groupNames: description.groupNames)
    }

    /// Writes the rows recorded so far to the spool file, so a killed run loses only the rows
    /// recorded since (the row writer calls it whenever it has nothing else to do).
    package func flushRows() throws {
        try pendingWritten()
        try spool?.flush()
    }

    /// A recorder given up before its first row still leaves no write behind it.
    deinit {
        _ = try? pendingWrite?.join()
    }

    /// Waits for the pending file (once): rows go to the spool only after it.
    private func pendingWritten() throws {
        guard let job = pendingWrite else { return }
        pendingWrite = nil
        renderedConfiguration = try job.join()
    }

    /// Visitors recorded so far.
    package var recordedCount: Int { spool?.recordedCount ?? statistics.visitorCount }

    /// Records one finished visitor, in any order. Every visitor that arrived must be recorded
    /// exactly once, whatever its outcome.
    package func record(_ record: VisitorRecord) throws {
        guard !finished else { throw Failure.alreadyFinished }
        try pendingWritten()
        if let platform = record.platform {
            rowsHavePlatform = true
            // A recovered run's filled-in rows have an empty platform: no platform to count.
            if !platform.isEmpty { platformOutcomes[platform, default: [:]][record.outcome, default: 0] += 1 }
        }
        if let count = record.comebacks {
            rowsHaveComebacks = true
            comebacks += count
        }
        if record.spokenProtocols != nil { rowsHaveProtocols = true }
        if let spool {
            VisitorRowFormat.encode(record, into: &row)
            do {
                try spool.append(row: row.bytes, index: record.index)
            } catch VisitorRowSpool.Failure.duplicate(let index) {
                throw Failure.duplicateVisitor(index: index)
            } catch VisitorRowSpool.Failure.negativeIndex(let index) {
                throw Failure.negativeVisitorIndex(index)
            } catch VisitorRowSpool.Failure.notThisShard(let index) {
                throw Failure.visitorOfAnotherShard(index: index)
            }
        }
        queueSpan.add(record)
        statistics.add(record)
        timeline.add(record)
        picture.add(record)
        metricsSeries?.add(record)
        minutes?.add(record)
    }

    /// Counts one HTTP request sent at `instant` (the timeline's `requests` column).
    package func recordRequest(at instant: RunInstant) {
        timeline.addRequest(at: instant)
    }

    /// Counts `count` HTTP requests sent in timeline second `second` (`Timeline.second(of:)`).
    package func recordRequests(_ count: Int, inSecond second: Int) {
        timeline.addRequests(count, inSecond: second)
    }

    /// Adds an engine's after-pass calls per second (`afterPass`: the load behind the queue).
    func recordAfterPassRequests(_ counts: PerSecondCounts) {
        timeline.addAfterPassRequests(counts)
    }

    /// Adds an engine's answers by endpoint and status (each runner once per engine, at the end).
    func recordAnswers(_ statistics: RequestStatistics) {
        answers.merge(statistics)
        answersRecorded = true
    }

    /// The embedded room's queue, second by second (metrics.prom's room series).
    func recordRoomSeries(_ series: RoomSeries) {
        roomSeries = series
    }

    /// The generator's largest event-loop lag in each second (metrics.prom's
    /// `queuesim_generator_lag_seconds`; wall clock only).
    func recordGeneratorLag(_ perSecond: [Duration]) {
        generatorLag = perSecond
    }

    /// Adds the connections a wall-clock engine opened, per second (`connections_opened`).
    func recordConnections(_ counts: PerSecondCounts) {
        timeline.addConnections(counts)
    }

    package var groupStorage: GroupStorage {
        let cells = statistics.storage
        return GroupStorage(
            cells: cells.cells, histograms: cells.histograms + picture.waitHistogramCount,
            seriesGroups: metricsSeries?.groupsWithColumns ?? 0)
    }

    /// Threshold measurements over what has been recorded so far.
    package var measurements: RunMeasurements { RunMeasurements(statistics: statistics) }

    /// Writes every report and returns what the command line shows and exits with.
    package func finish(_ ending: RunEnding) throws -> RunReport {
        guard !finished else { throw Failure.alreadyFinished }
        try pendingWritten()
        do {
            try spool?.checkComplete()
        } catch VisitorRowSpool.Failure.unrecorded(let count, let first) {
            throw Failure.unrecordedVisitors(count: count, firstIndex: first, spoolPath: spool?.spoolPath ?? "")
        }
        finished = true
        guard let spool else { return judged(ending) }
        // metrics.prom (the largest file) and report.html are written on threads of their own
        // while this one judges the run, writes the tables and makes run.json's figures; both
        // are done before run.json, which lists their sizes and SHA-256. metrics.prom needs
        // nothing judged, so it starts first (with 2,000 groups it is the longest of the
        // three, issue 51). A failure is reported in the order the files were once written one
        // after the other: tables, metrics.prom, report.html, shard.json.
        let metricsJob = startMetricsFile(ending)
        // Settled first, the thresholds read the `all` cells rather than every group's again.
        statistics.settle()
        let report = judged(ending)
        if answersRecorded { timeline.addAnswers(answers.perSecond) }
        let series = timeline.series(end: ending.end)
        let endpoints = answersRecorded ? answers.table : nil
        let queuePageLatency =
            answersRecorded
            ? QueuePageLatencyFigures(answers.queuePageLatency, bucketSeconds: series.bucketSeconds) : nil
        // run.json's figures and largest members are made on a third thread while this one
        // writes the tables (with 2,000 groups they were a third of this thread's work). Started
        // before the page: run.json comes last and waits for it, the page does not.
        let manifestJob = startManifest(
            report, ending, endpoints: endpoints, queuePageLatency: queuePageLatency)
        let page = page(report, ending, series: series, endpoints: endpoints, queuePageLatency: queuePageLatency)
        let pagePath = Self.path(directory, Self.pageFile)
        let pageJob = BackgroundJob {
            try AtomicFileWriter.write(to: pagePath) { file in try page.render { try file.write(Array($0.utf8)) } }
        }
        var files: [String: RunManifest.WrittenFile]
        do {
            files = try writeTables(spool, ending)
        } catch {
            // Nothing is written after finish returns.
            _ = try? metricsJob?.join()
            _ = try? pageJob.join()
            _ = try? manifestJob.join()
            throw error
        }
        let shardFile = Result { try writeShard(ending) }
        let metricsFile = Result { try metricsJob?.join() }
        let pageFile = Result { try pageJob.join() }
        let rendered = Result { try manifestJob.join() }
        files[Self.metricsFile] = try metricsFile.get()
        files[Self.pageFile] = try pageFile.get()
        if let shardFile = try shardFile.get() { files[ShardReport.file] = shardFile }
        try AtomicFileWriter.writeUnlisted(
            try RunManifest.bytes(files: files, around: rendered.get()), to: Self.path(directory, Self.manifestFile))
        unlink(Self.path(directory, Self.pendingFile))
        return report
    }

    /// run.json's bytes but its `files`, the parts either side of them, made on a thread of its
    /// own from copies of what it needs.
    private func startManifest(
        _ report: RunReport, _ ending: RunEnding, endpoints: [EndpointFigures]?,
        queuePageLatency: QueuePageLatencyFigures?
    ) -> BackgroundJob<(before: ArraySlice<UInt8>, after: ArraySlice<UInt8>)> {
        let (run, statistics) = (run, statistics)
        let (visitors, outcomes, requests) = (report.visitorCount, report.outcomeCounts, report.requestCount)
        let (verdicts, exitStatus, behaviour) = (report.verdicts, report.exitStatus, report.behaviour)
        let queuedOnScriptPage = report.queuedOnScriptPage > 0 ? report.queuedOnScriptPage : nil
        let renderedConfiguration = renderedConfiguration
        return BackgroundJob {
            var manifest = RunManifest(
                description: run, ending: ending, visitors: visitors, outcomes: outcomes, requests: requests,
                verdicts: verdicts, exitStatus: exitStatus, files: [:], statistics: statistics)
            manifest.requestsByEndpoint = endpoints
            manifest.queuePageLatency = queuePageLatency
            manifest.behaviour = behaviour
            manifest.queuedOnScriptPage = queuedOnScriptPage
            try manifest.renderLargeMembers(configuration: renderedConfiguration?.value.json)
            return try manifest.renderedAroundFiles()
        }
    }

    /// The run judged: verdicts, exit status and the figures the end screen shows.
    private func judged(_ ending: RunEnding) -> RunReport {
        var measurements = self.measurements
        measurements.waitCap = run.waitCap
        // A shard's share is not the run: `visitors == 45000` fails in every shard, and a shard
        // that exits 1 fails its Kubernetes Job, which stops the other shards mid-run. The
        // thresholds are judged once, by `queuesim merge`, on the whole run's data.
        let verdicts =
            run.shard == nil
            ? measurements.judge(run.thresholds, interrupted: ending.interrupted, guardrails: ending.guardrails) : []
        let exitStatus = RunExitStatus.afterRun(
            interrupted: ending.interrupted, terminated: ending.terminated,
            guardrailStopped: ending.guardrails?.trip != nil, verdicts: verdicts)
        var report = RunReport(
            directory: directory, visitorCount: statistics.visitorCount,
            outcomeCounts: measurements.outcomeCounts, requestCount: timeline.requestCount,
            verdicts: verdicts, exitStatus: exitStatus, measurements: measurements, generator: ending.generator)
        report.shard = run.shard?.shard
        report.guardrailTrip = ending.guardrails?.trip
        report.platformOutcomes = platformOutcomes
        let afterPass = timeline.afterPassFigures
        report.behaviour.afterPassRequests = afterPass.total
        report.behaviour.afterPassPeakPerSecond = afterPass.peakPerSecond
        report.behaviour.afterPassPeakSecond = afterPass.peakSecond
        report.behaviour.afterPassCounted = timeline.countsAfterPass
        report.behaviour.comebacks = comebacks
        report.behaviour.abandonedShare =
            statistics.visitorCount > 0
            ? Double(measurements.outcomeCounts[.abandoned] ?? 0) / Double(statistics.visitorCount) : 0
        report.pagePath = Self.path(directory, Self.pageFile)
        report.durationMs = max(0, ending.end.milliseconds)
        report.startedAt = ending.startedAt
        report.wallSeconds = max(0, ending.endedAt.timeIntervalSince(ending.startedAt))
        report.failureCauses = GroupFailureCauses.top(statistics: statistics, picture: picture)
        report.queuedOnScriptPage = picture.queuedOnScriptPage
        report.queue = QueueFigures(lengthPeak: timeline.queueLengthPeak(end: ending.end), span: queueSpan)
        return report
    }

    /// `visitors.csv` (from the spool, which is then discarded), `minutes.csv`, `summary.csv` and
    /// `timeline.csv`.
    private func writeTables(_ spool: VisitorRowSpool, _ ending: RunEnding) throws -> [String: RunManifest.WrittenFile]
    {
        var files: [String: RunManifest.WrittenFile] = [:]
        files[Self.visitorsFile] = try AtomicFileWriter.write(to: Self.path(directory, Self.visitorsFile)) { file in
            try spool.copyOrdered(
                header: VisitorRowFormat.header(
                    platform: rowsHavePlatform, comebacks: rowsHaveComebacks, protocols: rowsHaveProtocols),
                into: file)
        }
        spool.discard()
        // Not in run.json's files: a file added since, so run.json's bytes stay as they were.
        if let minutes {
            try AtomicFileWriter.write(
                minutes.minutes(end: ending.end.sinceOrigin).csv, to: Self.path(directory, RunMinutes.file))
        }
        files[Self.summaryFile] = try AtomicFileWriter.write(
            SummaryReport.render(statistics), to: Self.path(directory, Self.summaryFile))
        files[Self.timelineFile] = try AtomicFileWriter.write(to: Self.path(directory, Self.timelineFile)) { file in
            try timeline.write(end: ending.end, wallStart: run.clock == .wall ? ending.startedAt : nil) {
                try file.write($0)
            }
        }
        return files
    }

    /// `metrics.prom`, written on a thread of its own from copies of what it needs.
    private func startMetricsFile(_ ending: RunEnding) -> BackgroundJob<RunManifest.WrittenFile>? {
        guard let metricsSeries else { return nil }
        let (run, answers, room, lag) = (run, answers, roomSeries, generatorLag)
        let path = Self.path(directory, Self.metricsFile)
        return BackgroundJob {
            try AtomicFileWriter.write(to: path) { file in
                try MetricsFile.render(
                    metricsSeries, run: run, ending: ending, answers: answers, room: room, generatorLag: lag,
                    emitBytes: { try file.write(UnsafeRawBufferPointer($0)) })
            }
        }
    }

    /// A shard's `shard.json` (nil for a whole run).
    private func writeShard(_ ending: RunEnding) throws -> RunManifest.WrittenFile? {
        guard let identity = run.shard else { return nil }
        let shardReport = ShardReport(
            description: run, identity: identity, ending: ending, statistics: statistics,
            requestsPerSecond: timeline.requestsPerSecond,
            answers: answersRecorded ? ShardAnswers(answers, connections: timeline.connectionCounts) : nil,
            afterPassRequestsPerSecond: timeline.afterPassRequestsPerSecond)
        return try AtomicFileWriter.write(try shardReport.json(), to: Self.path(directory, ShardReport.file))
    }

    /// `report.html`'s content.
    private func page(
        _ report: RunReport, _ ending: RunEnding, series: TimelineSeries, endpoints: [EndpointFigures]?,
        queuePageLatency: QueuePageLatencyFigures?
    ) -> ReportPage {
        ReportPage(
            description: run,
            header: ReportPage.Header(
                startedAt: RunManifest.timestamp(ending.startedAt), endedAt: RunManifest.timestamp(ending.endedAt),
                durationMs: max(0, ending.end.milliseconds), exitStatus: report.exitStatus,
                requests: report.requestCount, incomplete: ending.incomplete,
                // As run.json writes it (milliseconds), so `queuesim report` draws the same axes.
                startInstant: run.clock == .wall
                    ? ReportRebuild.instant(RunManifest.timestamp(ending.startedAt)) : nil),
            verdicts: report.verdicts, statistics: statistics, series: series, picture: picture,
            generator: ending.generator, endpoints: endpoints, queuePageLatency: queuePageLatency,
            groupsTable: renderedConfiguration?.value.groupsTable)
    }

    package static func path(_ directory: String, _ file: String) -> String {
        directory.hasSuffix("/") ? directory + file : directory + "/" + file
    }
}
