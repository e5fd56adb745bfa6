import Foundation
import QueueClientCore

/// One side of `queuesim compare`: a report folder read back — `run.json` for what ran, and
/// `visitors.csv` for the figures, so shares and percentiles (with their noise bands) are
/// computed from every visitor's row exactly as the run's own summary was. A merged folder of
/// shards is read the same way.
package struct ComparedRun: Sendable {
    package var folder: String
    package var scenario: String
    package var scenarioSHA256: String
    package var seed: UInt64
    package var clock: String
    package var runId: String
    package var queuesimVersion: String
    package var exitCode: Int32
    package var interrupted: Bool
    package var incomplete: String?
    /// The arrival plan in words and the visitors it held, when run.json records them.
    package var arrivalPhases: [String]?
    package var plannedVisitors: Int?
    /// The scenario's `compare:` block as the run recorded it.
    package var recordedRules: [String]
    /// Group names in the scenario's order.
    package var groupNames: [String]
    package var measurements: RunMeasurements

    /// The same failures, in the same words, as `queuesim report` reading a folder.
    package typealias Failure = ReportRebuild.Failure

    private struct ManifestView: Decodable {
        var scenario: String
        var scenarioSHA256: String
        var seed: UInt64
        var clock: String
        var runId: String?
        var queuesimVersion: String?
        var exitCode: Int32
        var interrupted: Bool?
        var incomplete: String?
        var configuration: RunConfiguration?
        var compareRules: [String]?

        enum CodingKeys: String, CodingKey {
            case scenario, seed, clock, interrupted, incomplete, configuration
            case scenarioSHA256 = "scenario_sha256"
            case runId = "run_id"
            case queuesimVersion = "queuesim_version"
            case exitCode = "exit_code"
            case compareRules = "compare_rules"
        }
    }

    package init(folder: String) throws(Failure) {
        func path(_ file: String) -> String { Recorder.path(folder, file) }
        for file in [Recorder.manifestFile, Recorder.visitorsFile]
        where !FileManager.default.fileExists(atPath: path(file)) {
            throw Failure.notAReportFolder(folder, missing: file)
        }
        let manifest: ManifestView
        do {
            manifest = try JSONDecoder().decode(
                ManifestView.self, from: Data(try Self.bytes(path(Recorder.manifestFile))))
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure.unreadable(path(Recorder.manifestFile), reason: "it is not a run.json queuesim wrote")
        }
        self.folder = folder
        scenario = manifest.scenario
        scenarioSHA256 = manifest.scenarioSHA256
        seed = manifest.seed
        clock = manifest.clock
        runId = manifest.runId ?? "unknown"
        queuesimVersion = manifest.queuesimVersion ?? "unknown"
        exitCode = manifest.exitCode
        interrupted = manifest.interrupted ?? false
        incomplete = manifest.incomplete
        arrivalPhases = manifest.configuration?.arrivals.phases
        plannedVisitors = manifest.configuration?.arrivals.plannedVisitors
        recordedRules = manifest.compareRules ?? []
        groupNames = manifest.configuration?.groups.map(\.name) ?? []

        var statistics = OutcomeStatistics(groupNames: groupNames)
        let rows = try Self.bytes(path(Recorder.visitorsFile))
        let body = rows.firstIndex(of: UInt8(ascii: "\n")).map { rows[($0 + 1)...] } ?? []
        for row in VisitorRowFormat.completeRows(Array(body)) {
            guard let record = VisitorRowFormat.decode(row) else {
                throw Failure.unreadable(path(Recorder.visitorsFile), reason: "a row is not one queuesim wrote")
            }
            statistics.add(record)
        }
        groupNames = statistics.reportGroupOrder.map { statistics.groupNames[$0] }
        measurements = RunMeasurements(statistics: statistics)
    }

    private static func bytes(_ path: String) throws(Failure) -> [UInt8] {
        do {
            return try RegularFileReader.contents(path: path, limit: Int.max)
        } catch {
            throw Failure.unreadable(path, reason: error.description)
        }
    }

    /// Why two runs cannot be compared, or nil when they can: another scenario, another file,
    /// another arrival plan or the other clock measure different things.
    package static func incomparability(_ base: ComparedRun, _ new: ComparedRun) -> String? {
        if base.scenario != new.scenario {
            return "they ran different scenarios (`\(base.scenario)` and `\(new.scenario)`)"
        }
        if base.scenarioSHA256 != new.scenarioSHA256 {
            return
                "the scenario file changed between them (SHA-256 \(base.scenarioSHA256.prefix(12))… and \(new.scenarioSHA256.prefix(12))…)"
        }
        if base.clock != new.clock {
            return "one ran on the \(base.clock) clock, the other on the \(new.clock) clock"
        }
        if let before = base.plannedVisitors, let after = new.plannedVisitors, before != after {
            return "their plans hold different numbers of visitors (\(before) and \(after))"
        }
        if let before = base.arrivalPhases, let after = new.arrivalPhases, before != after {
            return "their arrival plans differ (\(before.joined(separator: ", ")) and \(after.joined(separator: ", ")))"
        }
        return nil
    }
}
