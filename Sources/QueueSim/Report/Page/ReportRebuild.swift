import Foundation
import QueueClientCore

/// `queuesim report DIR`: writes `report.html` again from a report folder's own files, so an
/// archived or copied folder (and, later, merged runs) get the page without the run.
///
/// The visitors come from `visitors.csv` (millisecond precision, as the summary was computed),
/// the requests per second from `timeline.csv`, the header and the threshold verdicts from
/// `run.json` as the run judged them. `run.json` is not rewritten.
package enum ReportRebuild {
    package enum Failure: Error, CustomStringConvertible, Equatable {
        case notAReportFolder(String, missing: String)
        case unreadable(String, reason: String)

        package var description: String {
            switch self {
            case .notAReportFolder(let folder, let missing):
                "\(folder) is not a report folder: it has no \(missing) (give the folder `queuesim run` wrote, e.g. reports/launch)"
            case .unreadable(let file, let reason): "cannot read \(file): \(reason)"
            }
        }
    }

    package struct Rebuilt: Sendable {
        package var pagePath: String
        package var visitors: Int
        package var outcomeCounts: [VisitorOutcome: Int]
        package var verdicts: [ThresholdVerdict]
        package var exitStatus: RunExitStatus
    }

    package static func rebuild(_ folder: String) throws -> Rebuilt {
        func path(_ file: String) -> String { Recorder.path(folder, file) }
        for file in [Recorder.manifestFile, Recorder.visitorsFile, Recorder.timelineFile, Recorder.summaryFile]
        where !FileManager.default.fileExists(atPath: path(file)) {
            throw Failure.notAReportFolder(folder, missing: file)
        }
        let manifest: RunManifest
        do {
            // The page's header needs these too (an older file may lack the rest).
            manifest = try RunManifest.read(
                Data(contentsOf: URL(fileURLWithPath: path(Recorder.manifestFile))),
                requiring: [.scenarioFile, .startedAt, .endedAt, .durationMs, .requests, .thresholds])
        } catch {
            throw Failure.unreadable(path(Recorder.manifestFile), reason: "it is not a run.json queuesim wrote")
        }
        let verdicts = manifest.thresholds.compactMap { entry -> ThresholdVerdict? in
            // A windowed threshold's source ends with its window (`unavailable < 5% over 30s`).
            var line = entry.threshold
            if let window = entry.window, line.hasSuffix(" " + window.span) { line.removeLast(window.span.count + 1) }
            guard var threshold = try? ThresholdParser.parse(line).get() else { return nil }
            var verdict = ThresholdVerdict(threshold: threshold, measured: entry.measured, passed: entry.passed)
            if let window = entry.window {
                threshold.source = entry.threshold
                threshold.window = ThresholdWindow(
                    words: window.span, abortOnFail: window.abortOnFail, minVisitors: window.minVisitors)
                verdict.threshold = threshold
                var windows = WindowedVerdict()
                windows.judgedWindows = window.judgedWindows
                windows.failedWindows = window.failedWindows
                windows.firstFailure = window.firstFailure?.window
                windows.worst = window.worst?.window
                verdict.windows = windows
            }
            // The run judged it capped at the measured value, the cap's own bucket.
            verdict.capped = entry.cappedBy.flatMap { source in
                entry.measured.map { MeasurementCap(milliseconds: UInt64(max(0, $0)), source: source) }
            }
            verdict.notJudged = entry.notJudged
            return verdict
        }
        var description = RunDescription(
            scenarioName: manifest.scenario, scenarioPath: manifest.scenarioFile,
            scenarioSHA256: manifest.scenarioSHA256, seed: manifest.seed,
            clock: ClockKind(rawValue: manifest.clock) ?? .wall, groupNames: try groupNames(path(Recorder.summaryFile)),
            thresholds: verdicts.map(\.threshold), runId: manifest.runId ?? "unknown",
            endpoint: manifest.endpoint, timelineMarks: manifest.timelineMarks)
        description.configuration = manifest.configuration

        var statistics = OutcomeStatistics(groupNames: description.groupNames)
        var timeline = Timeline()
        var picture = LaunchPicture()
        let rows = try bytes(path(Recorder.visitorsFile))
        let body = rows.firstIndex(of: UInt8(ascii: "\n")).map { rows[($0 + 1)...] } ?? []
        for row in VisitorRowFormat.completeRows(Array(body)) {
            guard let record = VisitorRowFormat.decode(row) else {
                throw Failure.unreadable(path(Recorder.visitorsFile), reason: "a row is not one queuesim wrote")
            }
            statistics.add(record)
            timeline.add(record)
            picture.add(record)
        }
        try addRequests(from: path(Recorder.timelineFile), to: &timeline)
        let exitStatus = RunExitStatus(rawValue: manifest.exitCode) ?? .aborted
        let page = ReportPage(
            description: description,
            header: ReportPage.Header(
                startedAt: manifest.startedAt, endedAt: manifest.endedAt, durationMs: manifest.durationMs,
                exitStatus: exitStatus, requests: manifest.requests, incomplete: manifest.incomplete,
                merged: manifest.shards.map { shards in
                    MergedShardsSummary(
                        count: shards.count,
                        shards: shards.starts.map {
                            .init(index: $0.index, startLagMs: $0.startLagMs, saturatedSeconds: $0.saturatedSeconds)
                        }, missing: shards.missing)
                },
                startInstant: description.clock == .wall ? Self.instant(manifest.startedAt) : nil),
            verdicts: verdicts, statistics: statistics,
            series: timeline.series(end: .origin + .milliseconds(manifest.durationMs)), picture: picture,
            generator: manifest.generator, endpoints: manifest.requestsByEndpoint,
            queuePageLatency: manifest.queuePageLatency)
        try AtomicFileWriter.write(page.render(), to: path(Recorder.pageFile))
        return Rebuilt(
            pagePath: path(Recorder.pageFile), visitors: statistics.visitorCount,
            outcomeCounts: Dictionary(
                uniqueKeysWithValues: VisitorOutcome.allCases.map { ($0, statistics.count(of: $0)) }),
            verdicts: verdicts, exitStatus: exitStatus)
    }

    /// `run.json`'s `started_at` (ISO 8601 with milliseconds) as an instant.
    static func instant(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }

    private static func bytes(_ path: String) throws -> [UInt8] {
        do {
            return try RegularFileReader.contents(path: path, limit: Int.max)
        } catch {
            throw Failure.unreadable(path, reason: error.description)
        }
    }

    /// Group names in `summary.csv` order (the scenario's), without `all`.
    private static func groupNames(_ path: String) throws -> [String] {
        let text = String(decoding: try bytes(path), as: UTF8.self)
        guard let rows = try? CSVColumnReader.parse(text, path: path) else {
            throw Failure.unreadable(path, reason: "it is not a summary.csv queuesim wrote")
        }
        var names: [String] = []
        for row in rows.dropFirst() where !row.isEmpty && row[0] != SummaryReport.allGroups && !names.contains(row[0]) {
            names.append(row[0])
        }
        return names
    }

    /// The `requests` column of `timeline.csv`, second by second, and the wall clock's
    /// `connections_opened` and the answers by endpoint when the file has them (empty cells:
    /// not counted, as in a recovered run or one written before issue 29).
    private static func addRequests(from path: String, to timeline: inout Timeline) throws {
        let text = String(decoding: try bytes(path), as: UTF8.self)
        var lines = text.split(separator: "\n").makeIterator()
        guard let header = lines.next()?.split(separator: ",", omittingEmptySubsequences: false),
            let column = header.firstIndex(of: "requests"), let secondColumn = header.firstIndex(of: "second")
        else { throw Failure.unreadable(path, reason: "it has no `second` and `requests` columns") }
        let connectionsColumn = header.firstIndex(of: "connections_opened")
        let answerColumns = Timeline.answerColumns.compactMap { name in header.firstIndex { $0 == name } }
        var connections: PerSecondCounts?
        var answers: [PerSecondCounts]?
        while let line = lines.next() {
            let cells = line.split(separator: ",", omittingEmptySubsequences: false)
            guard cells.count > max(column, secondColumn), let second = Int(cells[secondColumn]),
                let count = Int(cells[column])
            else { continue }
            if count > 0 { timeline.addRequests(count, inSecond: second) }
            if let connectionsColumn, connectionsColumn < cells.count, let opened = Int(cells[connectionsColumn]) {
                connections = connections ?? PerSecondCounts()
                if opened > 0 { connections!.add(at: second, opened) }
            }
            if answerColumns.count == Timeline.answerColumns.count, let last = answerColumns.last, last < cells.count {
                let values = answerColumns.map { Int(cells[$0]) }
                guard values.allSatisfy({ $0 != nil }) else { continue }
                answers = answers ?? Array(repeating: PerSecondCounts(), count: values.count)
                for (index, value) in values.enumerated() where value! > 0 { answers![index].add(at: second, value!) }
            }
        }
        if let connections { timeline.addConnections(connections) }
        if let answers { timeline.addAnswers(answers) }
    }
}
