import Foundation
import QueueClientCore

@testable import QueueSim

/// An instant `milliseconds` after the run's origin.
func at(_ milliseconds: Int) -> RunInstant {
    RunInstant(sinceOrigin: .milliseconds(milliseconds))
}

/// A fresh, empty directory under the system temporary directory.
func makeReportDirectory(_ label: String = #function) throws -> String {
    let name = "queuesim-report-\(label.filter { $0.isLetter || $0.isNumber })-\(UUID().uuidString)"
    let path = FileManager.default.temporaryDirectory.appendingPathComponent(name).path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

func readReport(_ directory: String, _ file: String) throws -> String {
    try String(contentsOfFile: Recorder.path(directory, file), encoding: .utf8)
}

func describeRun(
    groups: [String] = ["app", "invited"], thresholds: [Threshold] = [], seed: UInt64 = 42,
    runId: String = "20250301T120000Z-0000"
)
    -> RunDescription
{
    RunDescription(
        scenarioName: "launch", scenarioPath: "scenarios/launch.yaml",
        scenarioSHA256: String(repeating: "ab", count: 32), seed: seed, clock: .virtual,
        groupNames: groups, thresholds: thresholds, runId: runId)
}

func ending(at milliseconds: Int, interrupted: Bool = false) -> RunEnding {
    RunEnding(
        end: at(milliseconds), startedAt: Date(timeIntervalSince1970: 1_700_000_000),
        endedAt: Date(timeIntervalSince1970: 1_700_000_060.25), interrupted: interrupted)
}

/// A visitor that went through the queue: decided `enqueueMs` after starting, then waited
/// `waitMs` in the queue page.
func queuedVisitor(
    _ index: Int, group: String = "app", arrival: Int = 0, start: Int? = nil, enqueueMs: Int,
    waitMs: Int, outcome: VisitorOutcome = .passed
) -> VisitorRecord {
    let started = start ?? arrival
    let decided = started + enqueueMs
    return VisitorRecord(
        index: index, group: group, flow: "run", arrival: at(arrival), start: at(started),
        outcome: outcome, redirectType: "queue", httpStatus: 200, attempts: 1, polls: 1,
        requests: 3, enqueueDecided: at(decided), queueEntered: at(decided),
        ended: at(decided + waitMs), queueId: "q-\(index)",
        token: outcome == .passed ? .present : .absent)
}

/// A visitor whose enqueue was decided but that never entered the queue.
func directVisitor(
    _ index: Int, group: String = "app", arrival: Int = 0, enqueueMs: Int, outcome: VisitorOutcome,
    status: Int = 200
) -> VisitorRecord {
    VisitorRecord(
        index: index, group: group, flow: "run", arrival: at(arrival), start: at(arrival),
        outcome: outcome, redirectType: outcome == .error ? nil : outcome.rawValue, httpStatus: status,
        attempts: 1, requests: 1, enqueueDecided: at(arrival + enqueueMs),
        ended: at(arrival + enqueueMs))
}
