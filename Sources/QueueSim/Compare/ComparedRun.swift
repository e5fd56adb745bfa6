import Foundation
import QueueClientCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

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
    /// Which part of the run the folder holds: `shard 1 of 2`, `the merge of 2 shards`, or
    /// nil for a run that was not sharded. A merged run carries its shards' run id, so the id
    /// alone does not tell a merge from one of its shards.
    package var part: String?
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
    /// The visitors in arrival-order batches: the noise band of a figure (NoiseBand.batchMeans).
    var batches: RunBatches
    /// What ran, as run.json records it (nil in a run.json from before it was recorded).
    var configuration: RunConfiguration?

    /// Why a folder cannot be compared, naming the folder, the file and the line.
    package typealias Failure = RunFolderCheck.Problem

    /// Reads and checks `folder` (RunFolderCheck): `visitors.csv` streams through the check
    /// a chunk at a time, so a run of millions of visitors is read in bounded memory.
    package init(folder: String) throws(Failure) {
        func path(_ file: String) -> String { Recorder.path(folder, file) }
        for file in [Recorder.manifestFile, Recorder.visitorsFile]
        where !FileManager.default.fileExists(atPath: path(file)) {
            throw Failure(description: ReportRebuild.Failure.notAReportFolder(folder, missing: file).description)
        }
        let manifestPath = path(Recorder.manifestFile)
        let manifest = try RunFolderCheck.manifest(
            try RunFolderCheck.contents(manifestPath, limit: RunFolderCheck.maxManifestBytes), file: manifestPath)
        var rows = try Self.rowsCheck(folder: folder, manifest)
        try RunFolderCheck.stream(path(Recorder.visitorsFile)) { bytes throws(Failure) in try rows.feed(bytes) }
        try rows.finish()
        try RunFolderCheck.agreement(rows, manifest, file: rows.file)
        self.init(folder: folder, manifest: manifest, rows: rows)
    }

    /// The same checks on bytes in memory (RunFolderCheck.check, tests, a fuzz target).
    package init(folder: String, runJSON: Data, visitorsCSV: Data) throws(Failure) {
        let manifest = try RunFolderCheck.manifest(runJSON, file: Recorder.path(folder, Recorder.manifestFile))
        var rows = try Self.rowsCheck(folder: folder, manifest)
        try rows.feed(visitorsCSV)
        try rows.finish()
        try RunFolderCheck.agreement(rows, manifest, file: rows.file)
        self.init(folder: folder, manifest: manifest, rows: rows)
    }

    /// A folder whose run is not whole is refused before its rows are read.
    private static func rowsCheck(folder: String, _ manifest: RunManifest) throws(Failure)
        -> VisitorRowsCheck
    {
        if let reason = RunFolderCheck.incompleteness(manifest) {
            throw Failure(
                description:
                    "\(folder) is not a whole run: \(reason); compare judges only finished runs (exit 0 or 1)")
        }
        return VisitorRowsCheck(
            file: Recorder.path(folder, Recorder.visitorsFile),
            groupNames: manifest.configuration?.groups.map(\.name) ?? [],
            expectedVisitors: manifest.visitors > 0
                ? manifest.visitors : manifest.configuration?.arrivals.plannedVisitors ?? 0)
    }

    private init(folder: String, manifest: RunManifest, rows: VisitorRowsCheck) {
        self.folder = folder
        scenario = manifest.scenario
        scenarioSHA256 = manifest.scenarioSHA256
        seed = manifest.seed
        clock = manifest.clock
        runId = manifest.runId ?? "unknown"
        if let shard = manifest.shard {
            part = "shard \(shard.index) of \(shard.count)"
        } else if let shards = manifest.shards {
            part = "the merge of \(shards.count) shards"
        }
        queuesimVersion = manifest.queuesimVersion
        exitCode = manifest.exitCode
        interrupted = manifest.interrupted
        incomplete = manifest.incomplete
        arrivalPhases = manifest.configuration?.arrivals.phases
        plannedVisitors = manifest.configuration?.arrivals.plannedVisitors
        recordedRules = manifest.compareRules ?? []
        let statistics = rows.statistics
        groupNames = statistics.reportGroupOrder.map { statistics.groupNames[$0] }
        measurements = RunMeasurements(statistics: statistics)
        measurements.waitCap = manifest.configuration.flatMap(Self.waitCap)
        batches = rows.batches
        configuration = manifest.configuration
    }

    /// The cap on waits the run judged with (`client.maxWait`, or `run.duration` when shorter):
    /// a wait figure at it is a lower bound. The longest of the groups' maxWait, so a figure
    /// is called capped only where every visitor's wait was.
    private static func waitCap(_ configuration: RunConfiguration) -> MeasurementCap? {
        guard let maxWaitMs = configuration.groups.map(\.maxWaitMs).max() else { return nil }
        return .wait(
            maxWait: .milliseconds(maxWaitMs), runDuration: configuration.run.durationMs.map { .milliseconds($0) })
    }

    /// Why `base` and `new` name one folder, or nil: the same path, or one reached through the
    /// other's link (`DIR` → `DIR.runs/<run id>`). Compared with itself, a run always passes.
    package static func sameFolder(_ base: String, _ new: String) -> String? {
        guard let before = realPath(base), let after = realPath(new), before == after else { return nil }
        return "the same folder (\(before))"
    }

    /// Why two folders read back are one run, or nil: a copied folder keeps its run id and its
    /// part. A merged run and one of its shards share the run id but not the part: comparable.
    package static func sameRun(_ base: ComparedRun, _ new: ComparedRun) -> String? {
        guard base.runId == new.runId, base.runId != "unknown", base.part == new.part else { return nil }
        return "the same run (both are run \(base.runId)\(base.part.map { ", \($0)" } ?? ""))"
    }

    /// The path with every link resolved, or nil when it does not resolve (the read that
    /// follows says why). `realpath(3)` rather than Foundation's path methods, which crashed on
    /// a one-character path.
    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Why two runs cannot be compared, or nil when they can: another scenario, another file,
    /// another arrival plan or the other clock measure different things. Two seeds of one
    /// Poisson plan draw different numbers of visitors: that is the plan, not another one.
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
        if let before = base.arrivalPhases, let after = new.arrivalPhases, before != after {
            return "their arrival plans differ (\(before.joined(separator: ", ")) and \(after.joined(separator: ", ")))"
        }
        if let before = base.plannedVisitors, let after = new.plannedVisitors, before != after,
            !drawnCounts(base, new)
        {
            return "their plans hold different numbers of visitors (\(before) and \(after))"
        }
        return nil
    }

    /// Whether two plans' visitor counts differ only by the draw: both Poisson, the same phases,
    /// the same `maxVisitors` and `--visitors`.
    private static func drawnCounts(_ base: ComparedRun, _ new: ComparedRun) -> Bool {
        guard let before = base.configuration?.arrivals, let after = new.configuration?.arrivals else { return false }
        return before.process == "poisson" && after.process == "poisson" && before.phases == after.phases
            && before.maxVisitors == after.maxVisitors && before.scale == after.scale
            && base.configuration?.overrides["visitors"] == new.configuration?.overrides["visitors"]
    }
}
