import Foundation
import StandInServers
import Testing

@testable import QueueSim

/// Issue 52, item 6: shards that know their room. `serve` says its second 0 on every answer
/// (`Queuesim-Room-Start`) and its configuration at `GET /queuesim/status`; a shard reads it
/// before its first visitor, refuses a room whose second 0 is more than 1 s from its own (exit
/// 3), goes on with `--ignore-room-start` (warned), records an endpoint that is no queuesim as
/// unchecked, and records the room's configuration so the merged report shows it. Shards and
/// the room of one common start share one `run_id`. Loopback only; every child time-bounded.
@Suite("room start: serve tells its second 0, shards check and record it", .serialized)
struct RoomStartCommandTests {
    static let scenario = """
        version: 1
        name: room-start
        seed: 5
        target: { customerId: acme, waitingRoomId: launch, endpoint: embedded }
        client: { pollInterval: 200ms, maxWait: 20s, requestTimeout: 5s }
        arrivals:
          phases:
            - { duration: 1s, rate: 6 }
        waitingRoom:
          mode: queue
          eventStart: 1s
          outflow: 1200/min
        run: { concurrency: 20, duration: 15s }
        """

    /// A whole second `ahead` seconds from now, as `--start-at` takes it.
    private static func start(in ahead: TimeInterval) -> (text: String, date: Date) {
        let date = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + ahead).rounded(.down))
        return (ISO8601DateFormatter().string(from: date), date)
    }

    private static func json(_ path: String) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    private static func roomCheck(_ manifest: [String: Any]) -> [String: Any]? {
        (manifest["configuration"] as? [String: Any])?["room_check"] as? [String: Any]
    }

    private static func room(_ manifest: [String: Any]) -> [String: Any]? {
        (manifest["configuration"] as? [String: Any])?["room"] as? [String: Any]
    }

    @Test(
        "every answer carries Queuesim-Room-Start; /queuesim/status is the room's configuration",
        .timeLimit(.minutes(1)))
    func headerAndStatus() throws {
        let file = try TemporaryScenario(Self.scenario)
        let start = Self.start(in: 60)
        let server = try ServeProcess(arguments: ["serve", file.path, "--port", "0", "--start-at", start.text])
        defer { server.kill() }
        let port = try server.waitForPort()
        let secondZero = StartInstant.text(start.date)
        let enqueue = PrometheusTools.curl([
            "-i", "-X", "POST", "-H", "Content-Type: application/json",
            "--data", #"{"userId":"u1","sdkVersion":"iOS-3.5.2"}"#,
            "http://127.0.0.1:\(port)/api/mobileapp/queue/acme/launch/enqueue",
        ])
        #expect(enqueue.contains("Queuesim-Room-Start: \(secondZero)\r\n"), "\(enqueue)")
        let unknown = PrometheusTools.curl(["-i", "http://127.0.0.1:\(port)/no/such/path"])
        #expect(unknown.hasPrefix("HTTP/1.1 404") && unknown.contains("Queuesim-Room-Start: \(secondZero)"))

        let body = PrometheusTools.curl(["http://127.0.0.1:\(port)/queuesim/status"])
        let status = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any], "\(body)")
        let loaded = try ScenarioLoader.load(path: file.path)
        #expect(status["format"] as? String == "queuesim-room/1")
        #expect(status["second_zero"] as? String == secondZero)
        #expect(status["common_start"] as? Bool == true)
        #expect(status["mode"] as? String == "queue")
        #expect(status["outflow"] as? String == "1,200/min")
        #expect(status["outflow_per_minute"] as? Double == 1200)
        #expect(status["event_start_ms"] as? Int == 1000)
        #expect(status["event_start"] as? String == StartInstant.text(start.date.addingTimeInterval(1)))
        #expect(status["pre_queue"] as? Bool == true)
        #expect(status["scenario_sha256"] as? String == loaded.sourceSHA256)
        #expect(
            status["run_id"] as? String
                == RunId.shared(scenarioSHA256: loaded.sourceSHA256, seed: 5, startAt: start.date))
        #expect(!body.contains("dev-secret"), "no secret in the status: \(body)")
        let post = PrometheusTools.curl(["-i", "-X", "POST", "http://127.0.0.1:\(port)/queuesim/status"])
        #expect(post.hasPrefix("HTTP/1.1 405"), "\(post)")
        #expect(try server.interruptAndWait(limit: .seconds(10)).status == 0)
    }

    @Test(
        "shards of one start share the room's run_id, record its configuration, and the merge shows it",
        .timeLimit(.minutes(2)))
    func alignedShards() throws {
        let file = try TemporaryScenario(Self.scenario)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("queuesim-room-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let start = Self.start(in: 6)
        let metricsPort = try PrometheusProcess.freePort()
        let server = try ServeProcess(arguments: [
            "serve", file.path, "--port", "0", "--start-at", start.text, "--metrics-listen",
            "127.0.0.1:\(metricsPort)",
        ])
        defer { server.kill() }
        let port = try server.waitForPort()
        let shards = try (0..<2).map { index in
            try ServeProcess(arguments: [
                "run", file.path, "--shard", "\(index)/2", "--endpoint", "http://127.0.0.1:\(port)", "--start-at",
                start.text, "--out", folder.appendingPathComponent("shard-\(index)").path, "--quiet",
            ])
        }
        defer { for shard in shards { shard.kill() } }
        var runIds: [String] = []
        for (index, shard) in shards.enumerated() {
            let exit = try shard.wait(limit: .seconds(60))
            #expect(exit.status == 0, "shard \(index): \(exit.stderr)")
            #expect(!exit.stderr.contains("room_check"), "aligned: no note \(exit.stderr)")
            let manifest = try Self.json(folder.appendingPathComponent("shard-\(index)/run.json").path)
            runIds.append(manifest["run_id"] as? String ?? "")
            let check = try #require(Self.roomCheck(manifest), "\(manifest)")
            #expect(check["result"] as? String == "aligned")
            #expect((check["offset_ms"] as? Int).map { abs($0) <= 1000 } == true, "\(check)")
            #expect(Self.room(manifest)?["outflow_per_minute"] as? Double == 1200)
            let shardFile = try Self.json(folder.appendingPathComponent("shard-\(index)/shard.json").path)
            #expect(Self.room(shardFile)?["event_start_ms"] as? Int == 1000, "\(shardFile)")
        }
        let loaded = try ScenarioLoader.load(path: file.path)
        let expected = RunId.shared(scenarioSHA256: loaded.sourceSHA256, seed: 5, startAt: start.date)
        #expect(runIds == [expected, expected])
        let scrape = PrometheusTools.curl(["http://127.0.0.1:\(metricsPort)/metrics"])
        #expect(scrape.contains(#"run_id="\#(expected)""#), "\(scrape)")
        #expect(try String(contentsOf: server.stdout, encoding: .utf8).contains("run id:          \(expected)"))
        _ = try server.interruptAndWait(limit: .seconds(10))

        let merged = folder.appendingPathComponent("merged").path
        let merge = try QueueSimProcess.run(
            ["merge"] + (0..<2).map { folder.appendingPathComponent("shard-\($0)").path } + ["--out", merged],
            limit: .seconds(30))
        #expect(merge.status == 0, "\(merge.stdout)\(merge.stderr)")
        let mergedManifest = try Self.json(merged + "/run.json")
        #expect(Self.room(mergedManifest)?["outflow_per_minute"] as? Double == 1200, "\(mergedManifest)")
        #expect(Self.room(mergedManifest)?["event_start_ms"] as? Int == 1000)
        let page = try String(contentsOfFile: merged + "/report.html", encoding: .utf8)
        #expect(page.contains("1,200/min"), "the merged page shows the room's outflow")
    }

    @Test(
        "a room started without the shards' start is refused (exit 3); --ignore-room-start goes on, warned",
        .timeLimit(.minutes(2)))
    func unalignedRoom() throws {
        let file = try TemporaryScenario(Self.scenario)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("queuesim-room-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        // The QA case: serve without --start-at, its second 0 when it started; the shards' is later.
        let server = try ServeProcess(arguments: ["serve", file.path, "--port", "0"])
        defer { server.kill() }
        let port = try server.waitForPort()
        let start = Self.start(in: 5)
        let refusedOut = folder.appendingPathComponent("refused").path
        let refused = try QueueSimProcess.run(
            [
                "run", file.path, "--shard", "0/2", "--endpoint", "http://127.0.0.1:\(port)", "--start-at", start.text,
                "--out", refusedOut,
            ], limit: .seconds(30))
        #expect(refused.status == 3, "\(refused.stderr)")
        #expect(
            refused.stderr.contains(
                "queuesim run (shard 0/2): the room at http://127.0.0.1:\(port) started its timeline at"))
        #expect(refused.stderr.contains("before this shard's second 0 \(StartInstant.text(start.date))"))
        #expect(refused.stderr.contains("--ignore-room-start"), "\(refused.stderr)")
        #expect(refused.elapsed < .seconds(4), "refused before waiting for the start")
        #expect(!FileManager.default.fileExists(atPath: refusedOut), "nothing written")

        let goneOn = folder.appendingPathComponent("ignored").path
        let ignored = try QueueSimProcess.run(
            [
                "run", file.path, "--shard", "0/2", "--endpoint", "http://127.0.0.1:\(port)", "--start-at", start.text,
                "--out", goneOn, "--ignore-room-start", "--quiet",
            ], limit: .seconds(60))
        #expect(ignored.status == 0, "\(ignored.stderr)")
        #expect(ignored.stderr.contains("warning: the room at http://127.0.0.1:\(port) started its timeline"))
        #expect(ignored.stderr.contains("--ignore-room-start: going on"), "\(ignored.stderr)")
        let manifest = try Self.json(goneOn + "/run.json")
        let check = try #require(Self.roomCheck(manifest))
        #expect(check["result"] as? String == "ignored")
        #expect((check["offset_ms"] as? Int).map { $0 < -1000 } == true, "the room started first: \(check)")
        #expect((check["room_run_id"] as? String)?.hasPrefix("serve-") == true, "no common start: \(check)")
        #expect(Self.room(manifest)?["outflow_per_minute"] as? Double == 1200)
        _ = try server.interruptAndWait(limit: .seconds(10))
    }

    @Test("an endpoint that is no queuesim serve: recorded as unchecked, the shard goes on", .timeLimit(.minutes(1)))
    func nonQueuesimEndpoint() async throws {
        let file = try TemporaryScenario(Self.scenario)
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("queuesim-room-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let notFound = RawHTTPServer.answer(status: "404 Not Found", body: #"{"error":"not here"}"#)
        let result = try await RawHTTPServer.with(reply: { _ in .bytes(notFound, close: true) }) { server in
            try await QueueSimProcess.runOffPool(
                [
                    "run", file.path, "--shard", "0/2", "--endpoint", "http://127.0.0.1:\(server.port)", "--out", out,
                    "--no-progress",
                ], limit: .seconds(40))
        }
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("note: could not check the room's second 0"), "\(result.stderr)")
        let manifest = try Self.json(out + "/run.json")
        let check = try #require(Self.roomCheck(manifest), "\(manifest)")
        #expect(check["result"] as? String == "unchecked")
        #expect((check["reason"] as? String)?.contains("answered 404") == true, "\(check)")
        #expect(check["room_second_zero"] == nil)
        // Nothing known of that room: run.json says so rather than guessing.
        #expect(Self.room(manifest) == nil)
    }
}
