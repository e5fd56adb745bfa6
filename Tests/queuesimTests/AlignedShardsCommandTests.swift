import Foundation
import Testing

/// Issue 29, item 1: ONE scenario file that `queuesim serve --start-at T` serves and three
/// `queuesim run --shard K/3 --endpoint URL --start-at T` shards load, merged, agrees with the
/// same file run in one process. The room's event start falls 2 s into the run: a room whose
/// timeline started when `serve` did (seconds before T) would have let the burst straight into
/// a moving queue instead of the pre-queue, and the waits would not be the single run's.
@Suite("aligned shards: serve --start-at + 3 shards with --endpoint + merge agree with one process", .serialized)
struct AlignedShardsCommandTests {
    static let scenario = """
        version: 1
        name: aligned
        seed: 11
        target: { customerId: acme, waitingRoomId: launch, endpoint: embedded }
        client: { pollInterval: 200ms, maxWait: 60s, requestTimeout: 5s }
        arrivals:
          phases:
            - { duration: 2s, rate: 30 }
            - { burst: 90 }
            - { duration: 1s, rate: 30 }
        visitors:
          - { name: app, weight: 3 }
          - { name: invited, weight: 1, enqueueKey: { csv: keys.csv, column: key, order: unique } }
        waitingRoom:
          mode: queue
          eventStart: 2s
          outflow: 1200/min
          latency: { enqueue: 5ms, queuePage: 5ms }
        run: { concurrency: 300, duration: 40s }
        thresholds:
          - passed >= 90%
        """

    /// The scenario and its feeder (a path relative to the scenario file) in a fresh folder.
    private func scenarioFile(in folder: URL) throws -> String {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let keys = "key\n" + (1...200).map { "key-\($0)" }.joined(separator: "\n") + "\n"
        try keys.write(to: folder.appendingPathComponent("keys.csv"), atomically: true, encoding: .utf8)
        let path = folder.appendingPathComponent("aligned.yaml").path
        try Self.scenario.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// `summary.csv`'s figure for every visitor that passed.
    private func passedFigure(_ directory: String, _ column: String) throws -> Int {
        let (header, rows) = try RunCommandProcess.rows(directory, "summary.csv")
        let all = try #require(rows.first { $0[header.firstIndex(of: "group")!] == "all" && $0[1] == "passed" })
        let index = try #require(header.firstIndex(of: column))
        return try #require(Int(all[index]))
    }

    @Test(.timeLimit(.minutes(3)))
    func mergedWaitsMatchTheSingleProcessRun() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "queuesim-aligned-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let scenario = try scenarioFile(in: folder)

        // The same file in one process, against its embedded room.
        let single = folder.appendingPathComponent("single").path
        let whole = try QueueSimProcess.run(["run", scenario, "--out", single, "--quiet"], limit: .seconds(60))
        #expect(whole.status == 0, "\(whole.stderr)")

        // The room first, its second 0 well ahead: serve is up seconds before the shards' start.
        let startAt = ISO8601DateFormatter().string(from: Date().addingTimeInterval(8))
        let room = try ServeProcess(arguments: ["serve", scenario, "--port", "0", "--start-at", startAt])
        defer { room.kill() }
        let port = try room.waitForPort()
        let banner = try String(contentsOf: room.stdout, encoding: .utf8)
        #expect(
            banner.contains("second 0:") && banner.contains("\(startAt.dropLast()).000Z (the common start"), "\(banner)"
        )
        let shards = try (0..<3).map { index in
            try ServeProcess(arguments: [
                "run", scenario, "--shard", "\(index)/3", "--endpoint", "http://127.0.0.1:\(port)", "--start-at",
                startAt, "--out", folder.appendingPathComponent("shard-\(index)").path, "--quiet",
            ])
        }
        defer { for shard in shards { shard.kill() } }
        for (index, shard) in shards.enumerated() {
            let exit = try shard.wait(limit: .seconds(70))
            #expect(exit.status == 0, "shard \(index): \(exit.stderr)")
            #expect(exit.stderr.contains("the scenario's waitingRoom: is ignored"), "\(exit.stderr)")
        }
        _ = try room.interruptAndWait(limit: .seconds(10))
        let shardManifest = try String(
            contentsOfFile: folder.appendingPathComponent("shard-0/run.json").path, encoding: .utf8)
        #expect(shardManifest.contains(#""endpoint" : "http://127.0.0.1:\#(port)""#), "\(shardManifest)")

        let merged = folder.appendingPathComponent("merged").path
        let merge = try QueueSimProcess.run(
            ["merge"] + (0..<3).map { folder.appendingPathComponent("shard-\($0)").path } + ["--out", merged],
            limit: .seconds(30))
        #expect(merge.status == 0, "\(merge.stdout)\(merge.stderr)")
        #expect(merge.stdout.contains("merged from 3 shards"), "\(merge.stdout)")
        #expect(merge.stdout.contains("shard 2: start lag "), "\(merge.stdout)")
        let manifest = try String(contentsOfFile: merged + "/run.json", encoding: .utf8)
        #expect(manifest.contains(#""merged_from" : 3"#))
        #expect(try String(contentsOfFile: merged + "/report.html", encoding: .utf8).contains("merged from 3 shards"))

        // Every visitor queued through the same timeline: the merged waits are the single run's.
        let (singleP95, mergedP95) = (try passedFigure(single, "wait_p95_ms"), try passedFigure(merged, "wait_p95_ms"))
        let (singleP50, mergedP50) = (try passedFigure(single, "wait_p50_ms"), try passedFigure(merged, "wait_p50_ms"))
        let detail = "wait p95 \(mergedP95) ms merged vs \(singleP95) ms single; p50 \(mergedP50) vs \(singleP50)"
        // Pre-queued visitors wait about 2 s and more; a misaligned room gives the burst no pre-queue.
        #expect(singleP95 >= 3000, "\(detail)")
        #expect(Double(abs(mergedP95 - singleP95)) <= 0.15 * Double(singleP95), "\(detail)")

        // A shard lost: --allow-partial merges, but never exits 0 (5: partial), even though
        // `passed >= 90%` holds on the visitors there are.
        let partial = try QueueSimProcess.run(
            ["merge"] + (0..<2).map { folder.appendingPathComponent("shard-\($0)").path } + [
                "--out", folder.appendingPathComponent("partial").path, "--allow-partial",
            ], limit: .seconds(30))
        #expect(partial.status == 5, "\(partial.stdout)\(partial.stderr)")
        #expect(partial.stdout.contains("partial: shard(s) 2 of 3 missing"), "\(partial.stdout)")
        let refused = try QueueSimProcess.run(
            [
                "merge", folder.appendingPathComponent("shard-0").path, "--out",
                folder.appendingPathComponent("no").path,
            ],
            limit: .seconds(30))
        #expect(refused.status == 2, "\(refused.stderr)")
    }

    @Test("validate takes --endpoint as run does; a URL with a path is refused")
    func validateEndpoint() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "queuesim-aligned-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let scenario = try scenarioFile(in: folder)
        let shard = try QueueSimProcess.run([
            "validate", scenario, "--shard", "0/3", "--endpoint", "http://127.0.0.1:8080",
        ])
        #expect(shard.status == 0, "\(shard.stderr)")
        #expect(shard.stderr.contains("--endpoint http://127.0.0.1:8080: the scenario's waitingRoom: is ignored"))
        let withPath = try QueueSimProcess.run(["validate", scenario, "--endpoint", "http://127.0.0.1:8080/queue"])
        #expect(withPath.status == 2)
        #expect(withPath.stderr.contains("a path is not allowed"), "\(withPath.stderr)")
    }
}
