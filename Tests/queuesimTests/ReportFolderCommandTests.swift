import Foundation
import Testing

/// The report folder from the command line: one run at a time, a killed run recovered, a write
/// failure that leaves the earlier report current.
@Suite("run and recover: the report folder", .serialized)
struct ReportFolderCommandTests {
    /// 200 safetynet visitors a second for 20 s against the embedded room: rows from the start.
    static func fastScenario() throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("queuesim-fast-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("fast.yaml").path
        try """
        version: 1
        name: fast
        seed: 1
        target: { customerId: acme, waitingRoomId: fast, endpoint: embedded }
        arrivals:
          phases: [ { duration: 20s, rate: 200 } ]
        visitors: [ { name: app, flow: run } ]
        waitingRoom: { mode: safetynet }
        """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static func manifest(_ directory: String) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: directory + "/run.json"))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// Starts `queuesim run` in the background; the caller must end it.
    static func start(_ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try QueueSimProcess.executable())
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Waits (at most `limit`) until `condition` holds.
    static func wait(_ limit: Duration, until condition: () -> Bool) -> Bool {
        let start = ContinuousClock.now
        while ContinuousClock.now - start < limit {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return condition()
    }

    static func spoolBytes(_ out: String) -> Int {
        let runs = (try? FileManager.default.contentsOfDirectory(atPath: out + ".runs")) ?? []
        return runs.filter { !$0.hasPrefix(".") }.reduce(0) { total, run in
            let path = out + ".runs/" + run + "/.visitors.unordered.tmp"
            let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            return total + size
        }
    }

    @Test("a second run into a folder in use: exit 2 naming the first run's pid; the first is unharmed")
    func concurrentRunsRefused() throws {
        let scenario = try Self.fastScenario()
        let out = RunCommandProcess.reportDirectory()
        let first = try Self.start(["run", scenario, "--out", out, "--quiet", "--duration", "4s"])
        defer { if first.isRunning { kill(first.processIdentifier, SIGKILL) } }
        #expect(Self.wait(.seconds(30)) { Self.spoolBytes(out) > 0 })
        let second = try RunCommandProcess.run(["run", scenario, "--out", out, "--quiet", "--clock", "virtual"])
        #expect(second.status == 2)
        #expect(second.stderr.contains("in use by another queuesim run (pid \(first.processIdentifier), run "))
        #expect(Self.wait(.seconds(60)) { !first.isRunning })
        first.waitUntilExit()
        #expect(first.terminationStatus == 0)
        #expect(try Self.manifest(out)["visitors"] as? Int == 800)
    }

    @Test("kill -9 mid-run, then recover: the rows up to the kill, marked incomplete; the next run starts clean")
    func killedRunRecovered() throws {
        let scenario = try Self.fastScenario()
        let out = RunCommandProcess.reportDirectory()
        let victim = try Self.start(["run", scenario, "--out", out, "--quiet"])
        defer { if victim.isRunning { kill(victim.processIdentifier, SIGKILL) } }
        #expect(Self.wait(.seconds(30)) { Self.spoolBytes(out) > 5_000 })
        kill(victim.processIdentifier, SIGKILL)
        victim.waitUntilExit()
        #expect(!FileManager.default.fileExists(atPath: out), "a killed first run has no current report")

        let recover = try RunCommandProcess.run(["recover", out])
        #expect(recover.status == 0)
        #expect(recover.stdout.contains("marked incomplete"))
        let manifest = try Self.manifest(out)
        let visitors = try #require(manifest["visitors"] as? Int)
        #expect(visitors > 50 && visitors < 4_000)
        #expect((manifest["incomplete"] as? String)?.hasPrefix("the run was killed") == true)
        let rows = try RunCommandProcess.rows(out, "visitors.csv").rows
        #expect(rows.count == visitors)
        #expect(rows.map { Int($0[0]) } == (1...visitors).map { $0 })

        let again = try RunCommandProcess.run(["recover", out])
        #expect(again.status == 0)
        #expect(again.stdout.contains("nothing to recover"))
        let next = try RunCommandProcess.run(["run", scenario, "--out", out, "--quiet", "--clock", "virtual"])
        #expect(next.status == 0)
        #expect(try Self.manifest(out)["incomplete"] == nil)
    }

    @Test(
        "a write that fails mid-run (file size limit): exit 3 at once naming the file and errno, the earlier report current"
    )
    func writeFailureKeepsEarlierReport() throws {
        let scenario = try Self.fastScenario()
        let out = RunCommandProcess.reportDirectory()
        let first = try RunCommandProcess.run(["run", scenario, "--out", out, "--quiet", "--clock", "virtual"])
        #expect(first.status == 0)
        let earlier = try #require(try Self.manifest(out)["run_id"] as? String)

        // RLIMIT_FSIZE of 40 KiB: the row spool's second write fails with EFBIG (SIGXFSZ ignored).
        let binary = try QueueSimProcess.executable()
        let limited = try QueueSimProcess.run(
            [
                "-c", "ulimit -f 40; trap '' XFSZ; exec \"$0\" run \"$1\" --out \"$2\" --quiet --clock virtual",
                binary, scenario, out,
            ], limit: .seconds(60), program: "/bin/sh")
        #expect(limited.status == 3)
        #expect(limited.stderr.contains("cannot write "))
        #expect(limited.stderr.contains(".visitors.unordered.tmp: File too large"))
        #expect(limited.stderr.contains("still shows the previous report"))
        #expect(try Self.manifest(out)["run_id"] as? String == earlier)
        #expect(try RunCommandProcess.rows(out, "visitors.csv").rows.count == 4_000)
    }
}
