import Foundation
import Logging
import QueueClientCore

@testable import QueueSim

/// Running scenarios end to end in tests, and reading what they wrote.
enum VirtualRun {
    /// Loads `yaml`, runs it on the virtual clock into a fresh directory and returns the report
    /// and the directory. `pollShortcut` is the runner's internal switch (on by default).
    static func run(
        _ yaml: String, label: String = #function, pollShortcut: Bool = true
    ) throws -> (report: RunReport, directory: String) {
        let (report, directory, _) = try runCountingSkips(yaml, label: label, pollShortcut: pollShortcut)
        return (report, directory)
    }

    static func runCountingSkips(
        _ yaml: String, label: String = #function, pollShortcut: Bool = true
    ) throws -> (report: RunReport, directory: String, skippedPolls: Int) {
        let directory = try makeReportDirectory(label)
        let scenario = try ScenarioTestSupport.load(yaml)
        let prepared = try PreparedRun(
            scenario: scenario, options: RunOptions(outputDirectory: directory, clock: .virtual))
        var runner = VirtualClockRunner(
            run: prepared, progress: RunProgress(planned: prepared.summary.visitorCount), stopSignal: RunStopSignal())
        runner.pollShortcut = pollShortcut
        let (report, skipped) = try runner.executeCountingSkippedPolls()
        return (report, directory, skipped)
    }

    /// The same scenario on the wall clock against the embedded room on 127.0.0.1.
    static func runOnWallClock(_ yaml: String, label: String = #function) async throws -> (
        report: RunReport, directory: String
    ) {
        let directory = try makeReportDirectory(label)
        let scenario = try ScenarioTestSupport.load(yaml)
        let prepared = try PreparedRun(
            scenario: scenario, options: RunOptions(outputDirectory: directory, clock: .wall))
        var logger = Logger(label: "queuesim.test.room")
        logger.logLevel = .critical
        let runner = WallClockRunner(
            run: prepared, progress: RunProgress(planned: prepared.summary.visitorCount), stopSignal: RunStopSignal(),
            logger: logger)
        return (try await runner.execute(), directory)
    }

    static func bytes(_ directory: String, _ file: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: Recorder.path(directory, file)))
    }

    /// visitors.csv as rows of named cells.
    static func visitors(_ directory: String) throws -> [VisitorRow] {
        let lines = try readReport(directory, Recorder.visitorsFile).split(separator: "\n")
        let header = CSVLine.cells(lines[0])
        return lines.dropFirst().map { line in
            VisitorRow(cells: Dictionary(uniqueKeysWithValues: zip(header, CSVLine.cells(line))))
        }
    }
}

struct VisitorRow {
    var cells: [String: String]

    var outcome: String { cells["outcome"] ?? "" }
    var index: Int { Int(cells["visitor"] ?? "") ?? -1 }
    var arrivalMs: Int64 { Int64(cells["arrival_ms"] ?? "") ?? -1 }
    var waitMs: Int64 { Int64(cells["wait_ms"] ?? "") ?? -1 }
    var polls: Int { Int(cells["polls"] ?? "") ?? -1 }
    var group: String { cells["group"] ?? "" }
}

/// Splits one CSV line (RFC 4180 quoting) into its cells.
enum CSVLine {
    static func cells(_ line: Substring) -> [String] {
        var cells: [String] = []
        var current = ""
        var quoted = false
        var index = line.startIndex
        while index < line.endIndex {
            let character = line[index]
            index = line.index(after: index)
            if quoted {
                guard character == "\"" else {
                    current.append(character)
                    continue
                }
                if index < line.endIndex, line[index] == "\"" {
                    current.append("\"")
                    index = line.index(after: index)
                } else {
                    quoted = false
                }
            } else if character == "\"" {
                quoted = true
            } else if character == "," {
                cells.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        cells.append(current)
        return cells
    }
}

/// Order statistics by nearest rank, as the reports compute them.
enum Ranks {
    static func percentile(_ values: [Int64], _ percent: Int) -> Int64 {
        let sorted = values.sorted()
        let rank = max(1, (percent * sorted.count + 99) / 100)
        return sorted[rank - 1]
    }
}

/// Batch means: the mean of each of `count` consecutive batches, their grand mean and the
/// standard error of that mean (batches long enough to be close to independent).
struct BatchMeans {
    let means: [Double]

    init(_ values: [Double], batches count: Int) {
        let size = values.count / count
        means = (0..<count).map { batch in
            let slice = values[(batch * size)..<((batch + 1) * size)]
            return slice.reduce(0, +) / Double(slice.count)
        }
    }

    var mean: Double { means.reduce(0, +) / Double(means.count) }

    var standardError: Double {
        let grand = mean
        let variance = means.map { ($0 - grand) * ($0 - grand) }.reduce(0, +) / Double(means.count - 1)
        return (variance / Double(means.count)).squareRoot()
    }

    /// Student t quantile for 95 % two-sided with 19 degrees of freedom (20 batches).
    static let t95For19DegreesOfFreedom = 2.093

    /// True when `value` lies within the 95 % confidence interval or within 3 standard errors.
    func accepts(_ value: Double) -> Bool {
        abs(mean - value) <= max(Self.t95For19DegreesOfFreedom, 3) * standardError
    }
}
