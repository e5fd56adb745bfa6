import Foundation
import QueueClientCore
import QueueSim
import Testing

/// The issue's acceptance run: one `queuesim serve` on loopback, three `queuesim run --shard
/// auto/3` processes told apart only by `JOB_COMPLETION_INDEX` (as the pods of a Kubernetes
/// Indexed Job are), then `queuesim merge`.
@Suite("sharded runs: three shard processes against one queuesim serve, then merge", .serialized)
struct ShardedRunCommandTests {
    static let room = """
        version: 1
        name: shared-room
        seed: 3
        target: { customerId: acme, waitingRoomId: launch }
        arrivals: { phases: [ { burst: 1 } ] }
        waitingRoom:
          mode: queue
          outflow: 3000/min
          latency: { enqueue: 5ms, queuePage: 5ms, jitter: 4ms }
          faults:
            - { endpoint: enqueue, status: 503, rate: 25% }
        """

    static func load(port: Int) -> String {
        """
        version: 1
        name: sharded
        seed: 42
        target: { customerId: acme, waitingRoomId: launch, endpoint: "http://127.0.0.1:\(port)" }
        client: { pollInterval: 200ms, maxWait: 30s, requestTimeout: 5s }
        arrivals:
          phases:
            - { duration: 1s, rate: 15 }
            - { burst: 30 }
        visitors:
          - { name: app, weight: 3 }
          - { name: invited, weight: 1, enqueueKey: { csv: keys.csv, column: key, order: unique } }
        run: { concurrency: 300 }
        thresholds:
          - visitors == 45
          - enqueue.p99 < 60s
        """
    }

    /// A folder with the room, the load scenario for `port` and its feeder.
    private func files(port: Int, in folder: URL) throws -> String {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let keys = "key\n" + (1...100).map { "key-\($0)" }.joined(separator: "\n") + "\n"
        try keys.write(to: folder.appendingPathComponent("keys.csv"), atomically: true, encoding: .utf8)
        let path = folder.appendingPathComponent("load.yaml").path
        try Self.load(port: port).write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    private typealias Row = [String: String]

    private func rows(_ csv: String) -> [Row] {
        let lines = csv.split(separator: "\n").map {
            $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
        guard let header = lines.first else { return [] }
        return lines.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(header, $0)) }
    }

    @Test(.timeLimit(.minutes(3)))
    func threeShardsMergeIntoTheSingleProcessPlan() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "queuesim-shards-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let roomFile = try TemporaryScenario(Self.room)

        // A common start a few seconds ahead, as a Job's pods are given one; the room's second 0
        // too (shards refuse a room whose timeline starts elsewhere, issue 52).
        let formatter = ISO8601DateFormatter()
        let startAt = formatter.string(from: Date().addingTimeInterval(4))
        // Sharded: three processes against one room.
        let sharedRoom = try ServeProcess(arguments: ["serve", roomFile.path, "--port", "0", "--start-at", startAt])
        defer { sharedRoom.kill() }
        let scenario = try files(port: try sharedRoom.waitForPort(), in: folder.appendingPathComponent("sharded"))
        let shards = try (0..<3).map { index in
            try ServeProcess(
                arguments: [
                    "run", scenario, "--shard", "auto/3", "--start-at", startAt, "--out",
                    folder.appendingPathComponent("shard-\(index)").path,
                    "--quiet",
                ],
                environment: ["JOB_COMPLETION_INDEX": String(index)])
        }
        defer { for shard in shards { shard.kill() } }
        for (index, shard) in shards.enumerated() {
            let exit = try shard.wait(limit: .seconds(60))
            // A shard's share is not judged (15 visitors would fail `visitors == 45`, and a pod
            // that exits 1 fails the Job, which stops the other shards): it exits 0 when it finished.
            #expect(exit.status == 0, "shard \(index): \(exit.stderr)")
        }
        _ = try sharedRoom.interruptAndWait(limit: .seconds(10))
        for index in 0..<3 {
            let shardManifest = try String(
                contentsOfFile: folder.appendingPathComponent("shard-\(index)/run.json").path, encoding: .utf8)
            #expect(shardManifest.contains(#""start_at" : "\#(startAt.dropLast()).000Z""#), "\(shardManifest)")
            #expect(shardManifest.contains(#""start_lag_ms" : "#))
            let manifestObject = try JSONSerialization.jsonObject(with: Data(shardManifest.utf8)) as? [String: Any]
            #expect((manifestObject?["thresholds"] as? [Any])?.isEmpty == true, "a shard judges no threshold")
            #expect(manifestObject?["exit_code"] as? Int == 0)
        }
        let merged = folder.appendingPathComponent("merged").path
        let merge = try QueueSimProcess.run(
            // What `queuesim merge DIR/shard-*` gets from the shell: the report folders and
            // their run stores (shard-0.runs, …), as the merge Job's command line has it.
            ["merge"]
                + (try FileManager.default.contentsOfDirectory(atPath: folder.path)).filter { $0.hasPrefix("shard-") }
                .sorted().map { folder.appendingPathComponent($0).path }
                + ["--out", merged, "--junit", folder.appendingPathComponent("merged.xml").path],
            limit: .seconds(30))
        // On the merged data every threshold holds.
        #expect(merge.status == 0, "\(merge.stdout)\(merge.stderr)")
        // Its screen and exit line read as run's do: the outcome table, `exit N: …`, the verdict.
        #expect(merge.stdout.contains("outcome      count   share\npassed          45    100%\n"), "\(merge.stdout)")
        #expect(merge.stdout.contains("\nexit 0: the run finished and every threshold held\n"), "\(merge.stdout)")
        #expect(merge.stderr.hasSuffix("queuesim merge: PASS (exit 0): all 2 thresholds held\n"), "\(merge.stderr)")
        let junit = try String(contentsOf: folder.appendingPathComponent("merged.xml"), encoding: .utf8)
        #expect(junit.contains(#"tests="4" failures="0""#), "\(junit)")
        #expect(junit.contains(#"name="visitors == 45""#) && junit.contains(#"<property name="exit_code" value="0"/>"#))

        // Every planned visitor exactly once, with the single-process plan's number, group and arrival.
        let loaded = try ScenarioLoader.load(path: scenario)
        var plan = try PreparedRun(scenario: loaded, options: RunOptions()).makePlan()
        var planned: [PlannedVisitor] = []
        while let visitor = try plan.next() { planned.append(visitor) }
        #expect(planned.count == 45)
        let mergedRows = rows(try String(contentsOfFile: merged + "/visitors.csv", encoding: .utf8))
        #expect(mergedRows.map { $0["visitor"] } == planned.map { String($0.index + 1) })
        #expect(mergedRows.map { $0["group"] } == planned.map { loaded.groups[$0.groupIndex].name })
        #expect(mergedRows.map { $0["arrival_ms"] } == planned.map { String($0.arrival.milliseconds) })
        // The invited visitors' keys are distinct rows of the feeder (each shard drew the same plan).
        let keys = planned.compactMap(\.enqueueKey)
        #expect(Set(keys).count == keys.count && keys.count == planned.filter { $0.groupIndex == 1 }.count)
        #expect(mergedRows.allSatisfy { $0["outcome"] == "passed" })

        // Merged percentiles are those of the merged rows (nearest rank), within HdrHistogram's 0.1 %.
        let summary = rows(try String(contentsOfFile: merged + "/summary.csv", encoding: .utf8))
        let all = try #require(summary.first { $0["group"] == "all" && $0["outcome"] == "passed" })
        for metric in ["enqueue", "total"] {
            let values = mergedRows.compactMap { Int($0["\(metric)_ms"] ?? "") }.sorted()
            for percentile in [50, 90, 95, 99] {
                let exact = values[(percentile * values.count + 99) / 100 - 1]
                let reported = try #require(Int(all["\(metric)_p\(percentile)_ms"] ?? ""))
                #expect(abs(reported - exact) <= max(1, exact / 1000), "\(metric) p\(percentile)")
            }
            #expect(all["\(metric)_max_ms"] == String(values.last!))
        }
        let manifest = try String(contentsOfFile: merged + "/run.json", encoding: .utf8)
        // Second 0 of the merged timeline is the common start.
        let timeline = try String(contentsOfFile: merged + "/timeline.csv", encoding: .utf8)
        #expect(timeline.split(separator: "\n")[1].contains(",\(startAt),"), "\(timeline.prefix(400))")
        #expect(manifest.contains(#""missing" : ["#) && manifest.contains(#""merged" : ["#))

        // The same plan in one process against a fresh room: every visitor met the same faults.
        let freshRoom = try ServeProcess(arguments: ["serve", roomFile.path, "--port", "0"])
        defer { freshRoom.kill() }
        let single = try files(port: try freshRoom.waitForPort(), in: folder.appendingPathComponent("single"))
        let whole = try QueueSimProcess.run(
            ["run", single, "--out", folder.appendingPathComponent("whole").path, "--quiet"], limit: .seconds(60))
        #expect(whole.status == 0, "\(whole.stderr)")
        _ = try freshRoom.interruptAndWait(limit: .seconds(10))
        let wholeRows = rows(
            try String(contentsOfFile: folder.appendingPathComponent("whole/visitors.csv").path, encoding: .utf8))
        #expect(wholeRows.map { $0["attempts"] } == mergedRows.map { $0["attempts"] })
        #expect(wholeRows.map { $0["outcome"] } == mergedRows.map { $0["outcome"] })
        // The fault fired for some visitors and not for others, so the comparison means something.
        #expect(Set(mergedRows.compactMap { $0["attempts"] }).count > 1)
    }

    @Test("a sharded virtual run, or one on the embedded room, is refused at the scenario's place")
    func whatCannotBeSharded() throws {
        let virtual = try TemporaryScenario(
            """
            version: 1
            clock: virtual
            target: { customerId: acme, waitingRoomId: launch }
            arrivals: { phases: [ { burst: 10 } ] }
            """)
        let refused = try QueueSimProcess.run([
            "run", virtual.path, "--shard", "0/2", "--out", NSTemporaryDirectory() + "/never",
        ])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("\(virtual.path):2:1:"), "\(refused.stderr)")
        #expect(refused.stderr.contains("cannot be sharded"))
        let embedded = try QueueSimProcess.run(["validate", virtual.path, "--clock", "wall", "--shard", "1/2"])
        #expect(embedded.status == 2)
        #expect(embedded.stderr.contains("\(virtual.path):3:1:"), "\(embedded.stderr)")
        #expect(embedded.stderr.contains("queuesim serve"))
        // A common start is for the wall clock, and must name its zone.
        let virtualStart = try QueueSimProcess.run(["validate", virtual.path, "--start-at", "2026-12-01T18:00:00Z"])
        #expect(virtualStart.status == 2)
        #expect(virtualStart.stderr.contains("virtual-clock run has no wall-clock start"), "\(virtualStart.stderr)")
        let badStart = try TemporaryScenario(
            """
            version: 1
            target: { customerId: acme, waitingRoomId: launch }
            arrivals: { phases: [ { burst: 10 } ] }
            run: { startAt: "2026-12-01 18:00" }
            """)
        let refusedStart = try QueueSimProcess.run(["validate", badStart.path])
        #expect(refusedStart.status == 2)
        #expect(refusedStart.stderr.contains("\(badStart.path):4:"), "\(refusedStart.stderr)")
        #expect(refusedStart.stderr.contains("`run.startAt` must be an ISO 8601 time with its zone"))
        let noIndex = try QueueSimProcess.run(["validate", virtual.path, "--shard", "auto/2"])
        #expect(noIndex.status == 2)
        #expect(noIndex.stderr.contains("JOB_COMPLETION_INDEX"))
    }
}
