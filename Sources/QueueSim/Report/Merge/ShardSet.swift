import Foundation

/// The shard report folders given to `queuesim merge`, read and checked: one plan (scenario,
/// seed, `--visitors`, N), each shard once, none missing unless the caller allows it.
package struct ShardSet: Sendable {
    /// Why shards cannot be merged (exit 2: the command line named the wrong folders).
    package enum Failure: Error, Equatable, CustomStringConvertible {
        case notAShardFolder(String, reason: String)
        case unreadable(String, reason: String)
        case differentScenario(String, String, String, String)
        case differentSeed(String, UInt64, String, UInt64)
        case differentShardCount(String, Int, String, Int)
        case differentVisitorCount(String, String, String, String)
        case duplicate(shard: Int, count: Int, String, String)
        case missing([Int], count: Int)
        case mismatched(String, reason: String)

        package var description: String {
            switch self {
            case .notAShardFolder(let folder, let reason):
                "\(folder) is not the report of a sharded run: \(reason) (give the folders of `queuesim run --shard K/N`)"
            case .unreadable(let file, let reason): "cannot read \(file): \(reason)"
            case .differentScenario(let first, let firstHash, let other, let otherHash):
                "\(other) ran a different scenario than \(first) (scenario SHA-256 \(otherHash.prefix(12))… vs \(firstHash.prefix(12))…); shards of one run share one scenario file"
            case .differentSeed(let first, let firstSeed, let other, let otherSeed):
                "\(other) was planned with seed \(otherSeed), \(first) with seed \(firstSeed); shards of one run share one seed"
            case .differentShardCount(let first, let firstCount, let other, let otherCount):
                "\(other) is a shard of \(otherCount), \(first) a shard of \(firstCount); shards of one run share one N"
            case .differentVisitorCount(let first, let firstValue, let other, let otherValue):
                "\(other) was planned with --visitors \(otherValue), \(first) with --visitors \(firstValue); shards of one run share one plan"
            case .duplicate(let shard, let count, let first, let other):
                "shard \(shard) of \(count) is given twice: \(first) and \(other)"
            case .missing(let shards, let count):
                (shards.count == 1
                    ? "shard \(shards[0]) of \(count) missing"
                    : "shards \(shards.map(String.init).joined(separator: ", ")) of \(count) missing")
                    + " (shards are 0-based, as --shard K/N names them); --allow-partial merges the others and marks the report incomplete"
            case .mismatched(let folder, let reason): "\(folder): \(reason)"
            }
        }
    }

    package struct Member: Sendable {
        package var folder: String
        var report: ShardReport
        /// The `run_id` of the shard's `run.json` (nil when it has none to read).
        package var runId: String?
        package var index: Int { report.shardIndex }
    }

    /// In shard order.
    package let members: [Member]
    package let count: Int
    package let missing: [Int]

    /// `folders` without the run stores of the report folders among them: a report folder
    /// `DIR` is a link into `DIR.runs/` (docs/reports.md), so `reports/shard-*` names both;
    /// the store is skipped when its report folder is given too.
    static func reportFolders(_ folders: [String]) -> [String] {
        let given = Set(folders.map(Self.withoutTrailingSlashes))
        return folders.filter { folder in
            let path = Self.withoutTrailingSlashes(folder)
            guard path.hasSuffix(ReportFolder.runsSuffix) else { return true }
            return !given.contains(String(path.dropLast(ReportFolder.runsSuffix.count)))
        }
    }

    private static func withoutTrailingSlashes(_ path: String) -> String {
        var path = Substring(path)
        while path.count > 1, path.hasSuffix("/") { path = path.dropLast() }
        return String(path)
    }

    package init(folders: [String], allowPartial: Bool) throws {
        var members: [Member] = []
        for folder in Self.reportFolders(folders) {
            members.append(Member(folder: folder, report: try Self.read(folder), runId: Self.runId(of: folder)))
        }
        guard let first = members.first else { throw Failure.missing([], count: 0) }
        var byIndex: [Int: Member] = [:]
        for member in members {
            let (a, b) = (first.report, member.report)
            if a.scenarioSHA256 != b.scenarioSHA256 {
                throw Failure.differentScenario(first.folder, a.scenarioSHA256, member.folder, b.scenarioSHA256)
            }
            if a.seed != b.seed { throw Failure.differentSeed(first.folder, a.seed, member.folder, b.seed) }
            if a.shardCount != b.shardCount {
                throw Failure.differentShardCount(first.folder, a.shardCount, member.folder, b.shardCount)
            }
            if a.visitorsOverride != b.visitorsOverride || a.plannedVisitors != b.plannedVisitors {
                func words(_ report: ShardReport) -> String {
                    report.visitorsOverride.map(String.init) ?? "(none: the scenario's \(report.plannedVisitors))"
                }
                throw Failure.differentVisitorCount(first.folder, words(a), member.folder, words(b))
            }
            if let earlier = byIndex[b.shardIndex] {
                throw Failure.duplicate(shard: b.shardIndex, count: b.shardCount, earlier.folder, member.folder)
            }
            byIndex[b.shardIndex] = member
        }
        count = first.report.shardCount
        missing = (0..<count).filter { byIndex[$0] == nil }
        if !missing.isEmpty && !allowPartial { throw Failure.missing(missing, count: count) }
        self.members = byIndex.keys.sorted().map { byIndex[$0]! }
    }

    var first: ShardReport { members[0].report }

    /// The run id the merged run carries: the shards' own when they all share one (live shards
    /// with a common start derive it alike, `RunId.shared`), so the dashboard, `compare` and the
    /// reports name one run; nil when they do not agree (each shard started on its own).
    package var sharedRunId: String? {
        let ids = Set(members.map { $0.runId ?? "" })
        guard ids.count == 1, let id = ids.first, !id.isEmpty else { return nil }
        return id
    }

    /// The shards' run ids in shard order, for the warning when they differ.
    package var runIds: [String] { members.map { $0.runId ?? "none" } }

    /// `run.json`'s `run_id`; nil for a file without one. Its other fields are checked with the
    /// rows later (`ShardCheck`), before anything is written.
    private static func runId(of folder: String) -> String? {
        let path = Recorder.path(folder, Recorder.manifestFile)
        guard let bytes = try? RegularFileReader.contents(path: path, limit: 64 << 20) else { return nil }
        return (try? RunManifest.read(Data(bytes)))?.runId
    }

    private static func read(_ folder: String) throws -> ShardReport {
        let path = Recorder.path(folder, ShardReport.file)
        guard FileManager.default.fileExists(atPath: path) else {
            if !FileManager.default.fileExists(atPath: Recorder.path(folder, Recorder.manifestFile)) {
                throw Failure.notAShardFolder(folder, reason: "it has no \(Recorder.manifestFile)")
            }
            throw Failure.notAShardFolder(folder, reason: "it has no \(ShardReport.file)")
        }
        let report: ShardReport
        do {
            report = try JSONDecoder().decode(
                ShardReport.self, from: Data(RegularFileReader.contents(path: path, limit: 256 << 20)))
        } catch {
            throw Failure.unreadable(path, reason: "it is not a \(ShardReport.file) queuesim wrote")
        }
        guard report.format == ShardReport.formatName else {
            throw Failure.unreadable(
                path, reason: "format \(report.format), this queuesim reads \(ShardReport.formatName)")
        }
        guard PlanShard(index: report.shardIndex, count: report.shardCount) != nil else {
            throw Failure.unreadable(path, reason: "shard \(report.shardIndex) of \(report.shardCount) is not a shard")
        }
        return report
    }
}
