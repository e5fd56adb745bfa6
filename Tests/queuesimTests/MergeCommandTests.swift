import Foundation
import QueueClientCore
import QueueSim
import Testing

/// `queuesim merge` from the command line: a tampered shard is invalid input (exit 2), `--out`
/// is never one of the folders it reads (those stay as they were), and a folder that cannot be
/// written is found before any work.
@Suite("queuesim merge: tampered shards and the folder it writes", .serialized)
struct MergeCommandTests {
    /// Two shards of 40 visitors as `run --shard K/2 --out base/shard-K` leaves them (report
    /// folders: links into `shard-K.runs/`), written by the recorder a shard uses, every
    /// visitor waiting 2 s, so the scenario's `wait.p95 < 1s` fails on the merged run.
    /// `runIds`: each shard's run id (default: its folder's own, as shards started apart have).
    static func shardFolders(runIds: [String]? = nil) throws -> (base: String, shards: [String]) {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("queuesim-merge-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        let shards = try (0..<2).map { index in
            let pointer = base + "/shard-\(index)"
            let shard = PlanShard(index: index, count: 2)!
            let folder = try ReportFolder(pointer: pointer)
            try folder.createRunDirectory()
            var description = RunDescription(
                scenarioName: "launch", scenarioPath: "launch.yaml", scenarioSHA256: String(repeating: "ab", count: 32),
                seed: 42, clock: .wall, groupNames: ["app"],
                thresholds: [try ThresholdParser.parse("wait.p95 < 1s").get()], runId: runIds?[index] ?? folder.runId,
                endpoint: "http://127.0.0.1:9")
            description.shard = ShardIdentity(
                shard: shard, visitorsOverride: nil, plannedVisitors: 40, shardVisitors: 20)
            let recorder = try Recorder(directory: folder.runDirectory, description: description)
            for index in (0..<40).filter(shard.owns) {
                let arrival = RunInstant.origin + .milliseconds(Int64(index * 50))
                let decided = arrival + .milliseconds(Int64(30 + index))
                try recorder.record(
                    VisitorRecord(
                        index: index, group: "app", flow: "run", arrival: arrival, start: arrival, outcome: .passed,
                        redirectType: "queue", httpStatus: 200, attempts: 1, polls: 1, requests: 3,
                        enqueueDecided: decided, queueEntered: decided, ended: decided + .seconds(2),
                        queueId: "q-\(index)", token: .present))
            }
            _ = try recorder.finish(
                RunEnding(end: .origin + .seconds(5), startedAt: Date(), endedAt: Date().addingTimeInterval(5)))
            try folder.publish()
            folder.release()
            return pointer
        }
        return (base, shards)
    }

    /// Every file under `folder` (links followed) and its bytes: what must not change.
    static func snapshot(_ folder: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        let root = try FileManager.default.destinationOfSymbolicLink(atPath: folder)
        let runFolder = PathText.appending(root, to: PathText.parent(folder))
        for name in try FileManager.default.contentsOfDirectory(atPath: runFolder) {
            files[root + "/" + name] = try Data(contentsOf: URL(fileURLWithPath: runFolder + "/" + name))
        }
        return files
    }

    @Test("merge of honest shards judges the rows: exit 1, wait.p95 2 s")
    func honest() throws {
        let (base, shards) = try Self.shardFolders()
        defer { try? FileManager.default.removeItem(atPath: base) }
        let merge = try QueueSimProcess.run(["merge"] + shards + ["--out", base + "/merged", "--quiet"])
        #expect(merge.status == 1, "\(merge.stderr)")
        #expect(merge.stderr.contains("FAIL (exit 1): wait.p95 < 1s was "), "\(merge.stderr)")
    }

    @Test("wait buckets divided by 10 in shard.json: exit 2 naming the shard, never a PASS, nothing written")
    func tamperedHistogramIsInvalidInput() throws {
        let (base, shards) = try Self.shardFolders()
        defer { try? FileManager.default.removeItem(atPath: base) }
        let path = shards[1] + "/shard.json"
        var text = try String(contentsOfFile: path, encoding: .utf8)
        // Every wait is 2000 ms: one bucket, min and max; the shard's figures become 200 ms.
        let before = text
        text = text.replacingOccurrences(
            of: #""buckets":[[2000,20]],"count":20,"digits":3,"max":2000,"min":2000"#,
            with: #""buckets":[[200,20]],"count":20,"digits":3,"max":200,"min":200"#)
        #expect(text != before, "\(before)")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let merge = try QueueSimProcess.run(["merge"] + shards + ["--out", base + "/merged"])
        #expect(merge.status == 2, "\(merge.stderr)")
        #expect(
            merge.stderr.contains(
                "queuesim merge: \(shards[1]): shard.json's wait histogram (group app, outcome passed) does not match the waits in visitors.csv"
            ), "\(merge.stderr)")
        #expect(!FileManager.default.fileExists(atPath: base + "/merged"))
        let store = (try? FileManager.default.contentsOfDirectory(atPath: base + "/merged.runs")) ?? []
        #expect(store.filter { !$0.hasPrefix(".") }.isEmpty, "\(store)")
    }

    @Test("--out an input (itself, a link to it, its run folder's store, inside it): exit 2, every input intact")
    func outputIsAnInput() throws {
        let (base, shards) = try Self.shardFolders()
        defer { try? FileManager.default.removeItem(atPath: base) }
        let before = try shards.map(Self.snapshot)
        let runId = try FileManager.default.destinationOfSymbolicLink(atPath: shards[0])
        try FileManager.default.createSymbolicLink(atPath: base + "/alias", withDestinationPath: "shard-0")
        let cases: [(inputs: [String], out: String)] = [
            (shards, shards[0]),
            (shards, shards[1] + "/"),
            (shards, base + "/alias"),
            ([base + "/" + runId, shards[1]], shards[0]),
            (shards, shards[0] + "/merged"),
            (shards, base + "/shard-1.runs"),
        ]
        for (inputs, out) in cases {
            let merge = try QueueSimProcess.run(["merge"] + inputs + ["--out", out])
            #expect(merge.status == 2, "--out \(out): \(merge.stderr)")
            #expect(
                merge.stderr.contains("queuesim merge: --out \(out) is one of the folders this command reads ("),
                "--out \(out): \(merge.stderr)")
            #expect(merge.stderr.contains("choose another --out"))
        }
        #expect(try shards.map(Self.snapshot) == before)
        // Nothing was written beside them either: no run folder, no lock taken.
        for shard in shards {
            let store = try FileManager.default.contentsOfDirectory(atPath: shard + ".runs")
            #expect(store.filter { !$0.hasPrefix(".") }.count == 1, "\(store)")
        }
        // The same shards still merge elsewhere.
        let merge = try QueueSimProcess.run(["merge"] + shards + ["--out", base + "/merged", "--quiet"])
        #expect(merge.status == 1, "\(merge.stderr)")
    }

    /// Whether this process can give a child a read-only file system: root, in a mount namespace
    /// of its own (`unshare -m`); otherwise a folder without write permission stands for it.
    static let readOnlyByMount: Bool = geteuid() == 0
    static let canMakeReadOnly: Bool = {
        guard geteuid() == 0 else { return true }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else { return false }
        let probe = FileManager.default.temporaryDirectory.appendingPathComponent("queuesim-ro-\(UUID().uuidString)")
            .path
        try? FileManager.default.createDirectory(atPath: probe, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: probe) }
        let result = try? QueueSimProcess.run(
            ["-m", "sh", "-c", "mount -t tmpfs -o ro none \"$0\" && ! mkdir \"$0/x\" 2>/dev/null", probe],
            program: "/usr/bin/unshare")
        return result?.status == 0
    }()

    /// `queuesim ARGUMENTS` with `folder` read-only: a read-only tmpfs mounted on it (root), or
    /// its write permission taken away (anyone else).
    static func runWithReadOnly(_ folder: String, _ arguments: [String]) throws -> QueueSimProcess.Result {
        let binary = try QueueSimProcess.executable()
        guard readOnlyByMount else {
            chmod(folder, 0o555)
            defer { chmod(folder, 0o755) }
            return try QueueSimProcess.run(arguments, limit: .seconds(30))
        }
        return try QueueSimProcess.run(
            ["-m", "sh", "-c", "mount -t tmpfs -o ro none \"$0\" && exec \"$@\"", folder, binary] + arguments,
            limit: .seconds(30), program: "/usr/bin/unshare")
    }

    @Test(
        "--out on a read-only file system, or an existing read-only --out: exit 3 in those words, before any work",
        .enabled(if: canMakeReadOnly))
    func readOnlyOutput() throws {
        let (base, shards) = try Self.shardFolders()
        defer { try? FileManager.default.removeItem(atPath: base) }
        let readOnly = base + "/ro"
        try FileManager.default.createDirectory(atPath: readOnly, withIntermediateDirectories: true)
        let reason = Self.readOnlyByMount ? "read-only file system (EROFS)" : "Permission denied"

        let inside = try Self.runWithReadOnly(readOnly, ["merge"] + shards + ["--out", readOnly + "/merged"])
        #expect(inside.status == 3, "\(inside.stderr)")
        #expect(
            inside.stderr.contains(
                "queuesim merge: cannot write reports into \(readOnly): \(reason); choose another --out"),
            "\(inside.stderr)")
        // The read-only folder itself as --out: its parent is writable, but publishing moves it.
        let itself = try Self.runWithReadOnly(readOnly, ["merge"] + shards + ["--out", readOnly])
        #expect(itself.status == 3, "\(itself.stderr)")
        #expect(
            itself.stderr.contains("queuesim merge: cannot write reports into \(readOnly): \(reason)"),
            "\(itself.stderr)")
        // Before any work: not even the run store beside it was made.
        #expect(!FileManager.default.fileExists(atPath: readOnly + ".runs"))

        // run checks the same before it starts: no visitor ran, nothing written.
        let scenario = base + "/s.yaml"
        try """
        version: 1
        clock: virtual
        target: { customerId: acme, waitingRoomId: launch }
        arrivals: { phases: [ { burst: 5 } ] }
        """.write(toFile: scenario, atomically: true, encoding: .utf8)
        let run = try Self.runWithReadOnly(readOnly, ["run", scenario, "--out", readOnly + "/launch"])
        #expect(run.status == 3, "\(run.stderr)")
        #expect(run.stderr.contains("queuesim run: cannot write reports into \(readOnly): \(reason)"), "\(run.stderr)")
        #expect(run.stdout.isEmpty, "\(run.stdout)")
    }
}
