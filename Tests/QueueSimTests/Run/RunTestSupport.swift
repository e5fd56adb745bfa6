import Foundation
import Logging
import QueueClientCore
import Synchronization
import Testing

@testable import QueueSim

/// The contract's column lists (docs/contract.md): visitors.csv may add columns after these,
/// summary.csv and timeline.csv are exactly these.
enum ContractHeaders {
    static let visitors = [
        "visitor", "group", "flow", "arrival_ms", "start_ms", "outcome", "redirect_type", "http_status", "error",
        "attempts", "polls", "restarts", "enqueue_ms", "wait_ms", "total_ms", "queue_id", "token",
    ]
    static let summary = [
        "group", "outcome", "count", "ratio", "enqueue_p50_ms", "enqueue_p90_ms", "enqueue_p95_ms",
        "enqueue_p99_ms", "enqueue_max_ms", "wait_p50_ms", "wait_p90_ms", "wait_p95_ms", "wait_p99_ms",
        "wait_max_ms",
    ]
    static let timeline = [
        "second", "arrivals", "started", "enqueued", "in_queue", "passed", "disabled", "queued", "unavailable",
        "error", "requests", "enqueue_p95_ms",
    ]
}

/// A CSV report read back: RFC 4180 (quoted fields with doubled quotes, LF line ends).
struct CSVTable {
    var header: [String]
    var rows: [[String: String]]

    init(text: String) {
        var records = CSVTable.records(text)
        let header = records.isEmpty ? [] : records.removeFirst()
        self.header = header
        rows = records.map { fields in
            Dictionary(zip(header, fields), uniquingKeysWith: { first, _ in first })
        }
    }

    init(directory: String, file: String) throws {
        self.init(text: try String(contentsOfFile: directory + "/" + file, encoding: .utf8))
    }

    func column(_ name: String) -> [String] { rows.map { $0[name] ?? "" } }

    /// How many rows hold each value of `column`.
    func counts(_ name: String) -> [String: Int] {
        column(name).reduce(into: [:]) { $0[$1, default: 0] += 1 }
    }

    private static func records(_ text: String) -> [[String]] {
        var records: [[String]] = []
        var fields: [String] = []
        var field = ""
        var inQuotes = false
        var characters = text.makeIterator()
        var pending: Character? = nil
        while let character = pending ?? characters.next() {
            pending = nil
            if inQuotes {
                if character == "\"" {
                    let following = characters.next()
                    if following == "\"" {
                        field.append("\"")
                    } else {
                        inQuotes = false
                        pending = following
                    }
                } else {
                    field.append(character)
                }
                continue
            }
            switch character {
            case "\"": inQuotes = true
            case ",":
                fields.append(field)
                field = ""
            case "\n":
                fields.append(field)
                records.append(fields)
                fields = []
                field = ""
            default: field.append(character)
            }
        }
        if !field.isEmpty || !fields.isEmpty {
            fields.append(field)
            records.append(fields)
        }
        return records
    }
}

/// The four report files of a finished run, read back.
struct RunReports {
    var report: RunReport
    var directory: String
    var visitors: CSVTable
    var summary: CSVTable
    var timeline: CSVTable
    var manifest: [String: Any]

    init(report: RunReport) throws {
        self.report = report
        directory = report.directory
        visitors = try CSVTable(directory: directory, file: Recorder.visitorsFile)
        summary = try CSVTable(directory: directory, file: Recorder.summaryFile)
        timeline = try CSVTable(directory: directory, file: Recorder.timelineFile)
        let data = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + Recorder.manifestFile))
        manifest = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// Outcome word → rows with it.
    var outcomes: [String: Int] { visitors.counts("outcome") }

    /// Checks what holds for every run: the contract's headers, one row per arrived visitor in
    /// arrival order (visitor numbers 1...n), every row with an outcome word, and the timeline's
    /// arrivals adding up to the rows.
    func expectContract(arrivals: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(Array(visitors.header.prefix(17)) == ContractHeaders.visitors, sourceLocation: sourceLocation)
        // The contract's columns first, in order; queuesim's own follow (extend, never rename).
        #expect(Array(summary.header.prefix(14)) == ContractHeaders.summary, sourceLocation: sourceLocation)
        #expect(Array(timeline.header.prefix(12)) == ContractHeaders.timeline, sourceLocation: sourceLocation)
        // Every outcome has a timeline column, so they add up to the visitors that arrived.
        let ended = timeline.rows.reduce(0) { sum, row in
            sum + VisitorOutcome.allCases.reduce(0) { $0 + (Int(row[$1.rawValue] ?? "") ?? 0) }
        }
        #expect(ended == arrivals, "timeline outcome columns add up to the visitors", sourceLocation: sourceLocation)
        #expect(visitors.rows.count == arrivals, "rows == arrivals", sourceLocation: sourceLocation)
        #expect(report.visitorCount == arrivals, sourceLocation: sourceLocation)
        #expect(manifest["visitors"] as? Int == arrivals, sourceLocation: sourceLocation)
        #expect(
            visitors.column("visitor") == (0..<arrivals).map { String($0 + 1) }, "rows in arrival order",
            sourceLocation: sourceLocation)
        let words = Set(VisitorOutcome.allCases.map(\.rawValue))
        #expect(visitors.column("outcome").allSatisfy(words.contains), sourceLocation: sourceLocation)
        let timelineArrivals = timeline.column("arrivals").compactMap(Int.init).reduce(0, +)
        #expect(timelineArrivals == arrivals, "timeline arrivals add up to the rows", sourceLocation: sourceLocation)
    }
}

/// Builds and runs scenarios written as YAML text, with reports in a fresh temporary folder.
enum RunFixture {
    /// A fresh folder for one test's scenario files and reports.
    static func makeFolder(_ label: String = #function) throws -> String {
        let name = "queuesim-run-\(label.filter { $0.isLetter || $0.isNumber })-\(UUID().uuidString.prefix(8))"
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(name).path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Loads `yaml` as if it were `<folder>/scenario.yaml` (CSV feeders resolve against `folder`).
    static func scenario(_ yaml: String, folder: String) throws -> Scenario {
        try ScenarioLoader.load(yaml: yaml, path: folder + "/scenario.yaml", environment: [:])
    }

    static func prepare(_ yaml: String, folder: String, options: RunOptions = RunOptions()) throws -> PreparedRun {
        var options = options
        options.outputDirectory = folder + "/reports"
        return try PreparedRun(scenario: try scenario(yaml, folder: folder), options: options)
    }

    /// Runs `yaml` on the virtual clock and reads the reports back.
    static func virtual(
        _ yaml: String, label: String = #function, stopSignal: RunStopSignal = RunStopSignal()
    ) throws -> RunReports {
        let run = try prepare(yaml, folder: try makeFolder(label), options: RunOptions(clock: .virtual))
        let status = RunProgress(planned: run.summary.visitorCount)
        let report = try VirtualClockRunner(run: run, progress: status, stopSignal: stopSignal).execute()
        return try RunReports(report: report)
    }

    /// Runs `yaml` on the wall clock (the embedded room on loopback, or the scenario's endpoint).
    /// `whileRunning` gets the stop signal and the live counters as the run starts.
    static func wall(
        _ yaml: String, label: String = #function,
        whileRunning: (@Sendable (RunStopSignal, RunProgress) async -> Void)? = nil
    ) async throws -> RunReports {
        let run = try prepare(yaml, folder: try makeFolder(label), options: RunOptions(clock: .wall))
        let status = RunProgress(planned: run.summary.visitorCount)
        let stopSignal = RunStopSignal()
        var logger = Logger(label: "queuesim.test.room")
        logger.logLevel = .error
        let runner = WallClockRunner(run: run, progress: status, stopSignal: stopSignal, logger: logger)
        let helper = whileRunning.map { body in Task { await body(stopSignal, status) } }
        defer { helper?.cancel() }
        let report = try await runner.execute()
        return try RunReports(report: report)
    }
}

extension Dictionary where Key == String, Value == String {
    /// A numeric cell; nil when empty.
    func int(_ column: String) -> Int? { self[column].flatMap { Int($0) } }
}

/// A value shared with a task the test starts (a `Mutex` cannot be captured by a closure).
final class LockedBox<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>
    init(_ value: Value) { storage = Mutex(value) }
    var value: Value { storage.withLock { $0 } }
    func set(_ value: Value) { storage.withLock { $0 = value } }
}
