import Foundation
import Testing

/// `queuesim merge` and the run id: shards of one live run share one run id (`RunId.shared`),
/// and the merged run carries it, so the dashboard, `compare` and the reports name one run;
/// shards with different ids give the merge its own, with a warning. A merged run and one of
/// its shards share the id but are still two folders `compare` can put side by side.
@Suite("queuesim merge: the merged run carries the shards' run id", .serialized)
struct MergeRunIdCommandTests {
    static let shared = "20261129T100000Z-5a7e"

    static func runJSON(_ folder: String) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: folder + "/run.json"))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test("shards sharing a run id: the merged run.json carries it, no warning")
    func sharedIdIsCarried() throws {
        let (base, shards) = try MergeCommandTests.shardFolders(runIds: [Self.shared, Self.shared])
        defer { try? FileManager.default.removeItem(atPath: base) }
        let out = base + "/merged"
        let result = try QueueSimProcess.run(["merge"] + shards + ["--out", out, "--quiet"])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(try Self.runJSON(out)["run_id"] as? String == Self.shared)
        #expect(!result.stderr.contains("different run ids"), "\(result.stderr)")
        // The folder keeps an id of its own in DIR.runs/ (a second merge does not collide).
        let target = try FileManager.default.destinationOfSymbolicLink(atPath: out)
        #expect(!target.hasSuffix(Self.shared), "\(target)")
        if let metrics = try? String(contentsOfFile: out + "/metrics.prom", encoding: .utf8) {
            #expect(metrics.contains("run_id=\"\(Self.shared)\""), "\(metrics.prefix(400))")
        }
    }

    @Test("shards with different run ids: the merge gets its own and says why")
    func differentIdsWarn() throws {
        let ids = ["20261129T100000Z-0001", "20261129T100001Z-0002"]
        let (base, shards) = try MergeCommandTests.shardFolders(runIds: ids)
        defer { try? FileManager.default.removeItem(atPath: base) }
        let out = base + "/merged"
        let result = try QueueSimProcess.run(["merge"] + shards + ["--out", out, "--quiet"])
        #expect(result.status == 1, "\(result.stderr)")
        let merged = try #require(try Self.runJSON(out)["run_id"] as? String)
        #expect(!ids.contains(merged))
        #expect(
            result.stderr.contains(
                "queuesim merge: warning: the shards have different run ids (\(ids[0]), \(ids[1])): they were not started with one --start-at; the merged run gets its own, \(merged)"
            ), "\(result.stderr)")
    }

    @Test("compare: a merged run and one of its shards are two runs; a copy of the merge is the same run")
    func compareTellsTheMergeFromItsShard() throws {
        let (base, shards) = try MergeCommandTests.shardFolders(runIds: [Self.shared, Self.shared])
        defer { try? FileManager.default.removeItem(atPath: base) }
        let out = base + "/merged"
        #expect(try QueueSimProcess.run(["merge"] + shards + ["--out", out, "--quiet"]).status == 1)
        let beside = try QueueSimProcess.run(["compare", shards[0], out, "--force"])
        #expect(!beside.stderr.contains("the same run"), "\(beside.stderr)")
        #expect(beside.status == 0 || beside.status == 1, "\(beside.stdout)\(beside.stderr)")
        // A copy of the merged folder is the same run, named with its part.
        let copy = base + "/copy"
        try FileManager.default.copyItem(
            atPath: try FileManager.default.destinationOfSymbolicLink(atPath: out).hasPrefix("/")
                ? FileManager.default.destinationOfSymbolicLink(atPath: out)
                : base + "/" + FileManager.default.destinationOfSymbolicLink(atPath: out), toPath: copy)
        let again = try QueueSimProcess.run(["compare", out, copy])
        #expect(again.status == 2, "\(again.stderr)")
        #expect(
            again.stderr.contains("are the same run (both are run \(Self.shared), the merge of 2 shards)"),
            "\(again.stderr)")
    }
}
