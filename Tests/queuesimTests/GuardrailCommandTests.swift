import Foundation
import Testing

/// Guardrails as a CI job meets them: `queuesim run` exits 4 when one stops the run, says
/// which and when, and `validate` rejects a bad one with its position.
@Suite("queuesim run: guardrails", .serialized, .timeLimit(.minutes(2)))
struct GuardrailCommandTests {
    static let storm = """
        version: 1
        name: storm
        seed: 7
        target: { customerId: acme, waitingRoomId: launch }
        arrivals: { phases: [ { duration: 5m, rate: 5 } ] }
        waitingRoom:
          mode: queue
          outflow: 600/min
          faults:
            - { from: 60s, to: 120s, endpoint: enqueue, status: 503 }
        thresholds:
          - passed >= 1%
          - { threshold: "unavailable < 5%", over: 30s, abortOnFail: true }
        """

    @Test("a guardrail that stops the run: exit 4, every report written, the verdict line names it")
    func guardrailExitsFour() throws {
        let scenario = try TemporaryScenario(Self.storm)
        let out = RunCommandProcess.reportDirectory()
        defer { try? FileManager.default.removeItem(atPath: out) }
        let result = try RunCommandProcess.run(["run", scenario.path, "--clock", "virtual", "--out", out])
        #expect(result.status == 4, "\(result.stderr)")
        for file in ["visitors.csv", "summary.csv", "timeline.csv", "run.json", "report.html"] {
            #expect(FileManager.default.fileExists(atPath: out + "/" + file), "\(file) missing")
        }
        let (_, rows) = try RunCommandProcess.rows(out, "visitors.csv")
        #expect(rows.count == 380)
        #expect(
            result.stdout.contains(
                "STOPPED BY GUARDRAIL: unavailable < 5% over 30s failed in 46s..76s (6.67%); the run stopped at 1m 16s"),
            "\(result.stdout)")
        #expect(result.stdout.contains("exit 4: a guardrail stopped the run"), "\(result.stdout)")
        let lastLine = result.stderr.split(separator: "\n").last.map(String.init) ?? ""
        #expect(
            lastLine
                == "queuesim run: STOPPED (exit 4): unavailable < 5% over 30s failed in 46s..76s (6.67%); the run stopped at 1m 16s"
        )
        let manifest = try String(contentsOfFile: out + "/run.json", encoding: .utf8)
        #expect(manifest.contains("\"exit_code\" : 4"))
        #expect(manifest.contains("\"guardrail_stop\" : {"))
    }

    @Test("validate: a bad window is exit 2 with FILE:LINE:COLUMN")
    func validateRejectsABadWindow() throws {
        let scenario = try TemporaryScenario(
            Self.storm.replacingOccurrences(of: "over: 30s, abortOnFail: true", with: "over: 30s, abortOnFail: maybe"))
        let result = try RunCommandProcess.run(["validate", scenario.path])
        #expect(result.status == 2)
        #expect(
            result.stderr.contains(scenario.path + ":13:62: `abortOnFail` must be true or false, found `maybe`"),
            "\(result.stderr)")
    }

    @Test("validate says which thresholds stop the run, and the request cap")
    func validateSummary() throws {
        let scenario = try TemporaryScenario(Self.storm + "\nrun: { maxRequestRate: 2000/s }\n")
        let result = try RunCommandProcess.run(["validate", scenario.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("unavailable < 5% over 30s (stops the run, exit 4)"), "\(result.stdout)")
        #expect(result.stdout.contains("at most 2,000/s over all visitors (run.maxRequestRate)"), "\(result.stdout)")
    }

    @Test("shards stopped by a guardrail: each exits 4, and so does their merge", .timeLimit(.minutes(2)))
    func shardsAndMerge() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "queuesim-guard-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // Every enqueue is refused (400): visitors end `error` at once.
        let roomFile = try TemporaryScenario(
            """
            version: 1
            name: refusing-room
            target: { customerId: acme, waitingRoomId: launch }
            arrivals: { phases: [ { burst: 1 } ] }
            waitingRoom:
              faults:
                - { endpoint: enqueue, status: 400 }
            """)
        let room = try ServeProcess(arguments: ["serve", roomFile.path, "--port", "0"])
        defer { room.kill() }
        let load = try TemporaryScenario(
            """
            version: 1
            name: guarded-shards
            target: { customerId: acme, waitingRoomId: launch, endpoint: "http://127.0.0.1:\(try room.waitForPort())" }
            arrivals: { phases: [ { duration: 30s, rate: 20 } ] }
            thresholds:
              - visitors >= 1
              - { threshold: "error < 50%", over: 1s, abortOnFail: true, minVisitors: 5 }
            """)
        var shardFolders: [String] = []
        for index in 0..<2 {
            let out = folder.appendingPathComponent("shard-\(index)").path
            shardFolders.append(out)
            // One after the other, each its own second 0: the room's (it fails every enqueue,
            // whatever the second) cannot be both, and its timeline does not matter here.
            let shard = try RunCommandProcess.run(
                ["run", load.path, "--shard", "\(index)/2", "--out", out, "--quiet", "--ignore-room-start"],
                limit: .seconds(30))
            #expect(shard.status == 4, "shard \(index): \(shard.stderr)")
            #expect(shard.elapsed < .seconds(15), "stopped long before the plan's 30 s")
        }
        _ = try room.interruptAndWait(limit: .seconds(10))
        let merged = folder.appendingPathComponent("merged").path
        let merge = try RunCommandProcess.run(["merge"] + shardFolders + ["--out", merged], limit: .seconds(30))
        #expect(merge.status == 4, "\(merge.stdout)\(merge.stderr)")
        // The merge does not judge windows itself, and says so rather than dropping them unseen.
        #expect(merge.stderr.contains("queuesim merge: not judged here: error < 50% over 1s"), "\(merge.stderr)")
        #expect(
            merge.stderr.contains("queuesim merge: STOPPED (exit 4): error < 50% over 1s failed in 0s..1s"),
            "\(merge.stderr)")
        let manifest = try String(contentsOfFile: merged + "/run.json", encoding: .utf8)
        #expect(manifest.contains("\"guardrail_stop\" : {"), "\(manifest)")
        #expect(manifest.contains("\"not_judged\" : \"stopped by a guardrail\""), "\(manifest)")
    }

    @Test("--help lists exit code 4")
    func helpListsExitFour() throws {
        let result = try RunCommandProcess.run(["run", "--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("4    a guardrail stopped the run"), "\(result.stdout)")
    }
}
