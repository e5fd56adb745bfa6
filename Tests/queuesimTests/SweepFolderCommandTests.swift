import Foundation
import Testing

/// `queuesim sweep`'s output folder and its checks, from the command line: what is refused
/// before the first run (a goal for a group that does not exist, a folder that cannot be
/// written, a folder in use), and a killed sweep that leaves the previous one current.
@Suite("queuesim sweep: the folder and early checks", .serialized, .timeLimit(.minutes(5)))
struct SweepFolderCommandTests {
    /// A grid that takes minutes at one run at a time: a check that lets it start is visible.
    static let longGrid =
        "sweep: { vary: { waitingRoom.outflow: { from: 50/min, to: 2000/min, step: 50/min } }, seeds: 3, goals: [ \"wait.p95 < 10h\" ] }"

    static func files(_ directory: String) -> [String] {
        ["sweep.csv", "sweep.json", "sweep.html"].map {
            (try? String(contentsOfFile: directory + "/" + $0, encoding: .utf8)) ?? "missing \($0)"
        }
    }

    @Test("a --goal for a group the scenario lacks: exit 2 before any run, in the sweep block's words")
    func unknownGroupGoal() async throws {
        let scenario = try TemporaryScenario(SweepCommandTests.burst(Self.longGrid, visitors: 20_000))
        let out = RunCommandProcess.reportDirectory()
        defer { try? FileManager.default.removeItem(atPath: out) }
        let result = try await QueueSimProcess.runOffPool(
            ["sweep", scenario.path, "--out", out, "--no-progress", "--goal", "ghost: wait.p95 < 10m"],
            limit: .seconds(30))
        #expect(result.status == 2, "\(result.stderr)")
        let words = "this threshold names the group `ghost`, but it is not one of the scenario's groups (`default`)"
        #expect(result.stderr.contains("--goal 'ghost: wait.p95 < 10m': \(words)"), "\(result.stderr)")
        #expect(!result.stderr.contains("run(s),"), "a run started: \(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
        // The same goal in the block: the same words, at its position.
        let inBlock = try TemporaryScenario(
            SweepCommandTests.burst(
                "sweep: { vary: { waitingRoom.outflow: [100/min] }, goals: [ \"ghost: wait.p95 < 10m\" ] }"))
        let block = try await QueueSimProcess.runOffPool(["sweep", inBlock.path, "--out", out, "--no-progress"])
        #expect(block.status == 2, "\(block.stderr)")
        #expect(block.stderr.contains(": \(words)"), "\(block.stderr)")
    }

    /// An existing `--out` on a read-only file system: a tmpfs mounted read-only in a mount
    /// namespace of the child's own (root, as in this container), else a folder without write
    /// permission (anyone else). Either way refused before the first run, exit 3 as `run`.
    @Test("an existing --out that cannot be written: exit 3 before the first run, the old files untouched")
    func readOnlyOutFoundEarly() throws {
        let scenario = try TemporaryScenario(SweepCommandTests.burst(Self.longGrid, visitors: 20_000))
        let root = RunCommandProcess.reportDirectory()
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer {
            chmod(root, 0o755)
            try? FileManager.default.removeItem(atPath: root)
        }
        let out = root + "/out"
        let sweep = ["sweep", scenario.path, "--out", out, "--no-progress", "--jobs", "1"]
        let result: QueueSimProcess.Result
        let expected: String
        if geteuid() == 0 {
            // Mount, fill with an earlier sweep's files, remount read-only, then run queuesim.
            let script = """
                mount -t tmpfs -o size=1m none "$1" && mkdir "$1/out" && echo old > "$1/out/sweep.csv" \
                && mount -o remount,ro "$1" && shift && exec "$@"
                """
            result = try QueueSimProcess.run(
                ["-m", "/bin/sh", "-c", script, "sh", root, try QueueSimProcess.executable()] + sweep,
                limit: .seconds(30), program: "/usr/bin/unshare")
            expected = "read-only file system (EROFS)"
        } else {
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
            try "old\n".write(toFile: out + "/sweep.csv", atomically: true, encoding: .utf8)
            chmod(out, 0o555)
            chmod(root, 0o555)
            result = try QueueSimProcess.run(sweep, limit: .seconds(30))
            expected = "Permission denied"
        }
        #expect(result.status == 3, "\(result.stderr)")
        #expect(result.stderr.contains(expected), "\(result.stderr)")
        #expect(!result.stderr.contains("run(s),"), "a run started: \(result.stderr)")
    }

    @Test("--out is locked for the whole sweep; a kill -9 leaves the previous sweep current and whole")
    func lockedAndKilled() async throws {
        let quick = try TemporaryScenario(
            SweepCommandTests.burst(
                "sweep: { vary: { waitingRoom.outflow: [200/min, 400/min] }, goals: [ \"wait.p95 < 10h\" ] }"))
        let long = try TemporaryScenario(SweepCommandTests.burst(Self.longGrid, visitors: 20_000))
        let out = RunCommandProcess.reportDirectory()
        defer {
            try? FileManager.default.removeItem(atPath: out)
            try? FileManager.default.removeItem(atPath: out + ".runs")
        }
        let first = try await QueueSimProcess.runOffPool(
            ["sweep", quick.path, "--out", out, "--no-progress"], limit: .seconds(120))
        #expect(first.status == 0, "\(first.stderr)")
        let before = Self.files(out)

        let holder = try ReportFolderCommandTests.start([
            "sweep", long.path, "--out", out, "--no-progress", "--jobs", "1",
        ])
        defer { if holder.isRunning { kill(holder.processIdentifier, SIGKILL) } }
        let lock = out + ".runs/.lock"
        #expect(
            ReportFolderCommandTests.wait(.seconds(30)) {
                ((try? String(contentsOfFile: lock, encoding: .utf8)) ?? "").hasPrefix(
                    "pid \(holder.processIdentifier),")
            })
        let second = try await QueueSimProcess.runOffPool(["sweep", quick.path, "--out", out, "--no-progress"])
        #expect(second.status == 2, "\(second.stderr)")
        #expect(
            second.stderr.contains(
                "is in use by another queuesim run or sweep (pid \(holder.processIdentifier), sweep "),
            "\(second.stderr)")
        let run = try await QueueSimProcess.runOffPool([
            "run", quick.path, "--out", out, "--clock", "virtual", "--quiet",
        ])
        #expect(run.status == 2, "\(run.stderr)")

        kill(holder.processIdentifier, SIGKILL)
        holder.waitUntilExit()
        #expect(Self.files(out) == before)
        let sets = try FileManager.default.contentsOfDirectory(atPath: out + ".runs").filter { !$0.hasPrefix(".") }
        #expect(sets.count == 2, "\(sets)")
        #expect(sets.contains { FileManager.default.fileExists(atPath: out + ".runs/" + $0 + "/INCOMPLETE") })
        #expect(!FileManager.default.fileExists(atPath: out + "/INCOMPLETE"))
    }
}
