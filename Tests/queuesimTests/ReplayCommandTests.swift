import Foundation
import Testing

/// Issue 53, item 4: `validate` and `run` on a replayed crowd, through the binary.
@Suite("queuesim: replaying a crowd", .serialized, .timeLimit(.minutes(2)))
struct ReplayCommandTests {
    static func scenario(_ arrivals: String, files: [String: String]) throws -> TemporaryScenario {
        let file = try TemporaryScenario(
            """
            version: 1
            name: replay
            clock: virtual
            target: { customerId: acme, waitingRoomId: launch, endpoint: embedded }
            arrivals: \(arrivals)
            waitingRoom: { outflow: { replay: stats.csv, column: maxoutflow } }
            """)
        let folder = URL(fileURLWithPath: file.path).deletingLastPathComponent()
        for (name, text) in files {
            try Data(text.utf8).write(to: folder.appendingPathComponent(name))
        }
        return file
    }

    static let stats = "minute,queueinflow,maxoutflow\n2026-05-01T09:00:00Z,12,60\n2026-05-01T09:01:00Z,6,120\n"

    @Test func validateSummarisesTheReplayAndTheRunBringsItsCounts() throws {
        let file = try Self.scenario("{ replay: stats.csv, column: queueinflow }", files: ["stats.csv": Self.stats])
        let validate = try QueueSimProcess.run(["validate", file.path])
        #expect(validate.status == 0, "\(validate.stderr)")
        #expect(validate.stdout.contains("replay      stats.csv, column queueinflow, 2 rows of a minute"))
        #expect(validate.stdout.contains("outflow 60/min (1/s), 120/min from 1m"), "\(validate.stdout)")
        let out = RunCommandProcess.reportDirectory()
        defer { try? FileManager.default.removeItem(atPath: out) }
        let run = try RunCommandProcess.run(["run", file.path, "--out", out, "--quiet"])
        #expect(run.status == 0, "\(run.stderr)")
        let (header, rows) = try RunCommandProcess.rows(out, "visitors.csv")
        let arrival = try #require(header.firstIndex(of: "arrival_ms"))
        let minutes = rows.compactMap { Int($0[arrival]) }.map { $0 / 60_000 }
        #expect(minutes.filter { $0 == 0 }.count == 12 && minutes.filter { $0 == 1 }.count == 6)
    }

    @Test func aBadFileIsExit2FromValidateAndRunWithItsLineAndNoReport() throws {
        let bad = "minute,queueinflow,maxoutflow\n2026-05-01T09:00:00Z,12,60\n2026-05-01T09:01:00Z,-6,120\n"
        let file = try Self.scenario("{ replay: stats.csv, column: queueinflow }", files: ["stats.csv": bad])
        let expected = "`arrivals.replay`: stats.csv:3: `queueinflow` (field 2) is -6; arrivals cannot be negative"
        let validate = try QueueSimProcess.run(["validate", file.path])
        #expect(validate.status == 2)
        #expect(validate.stderr.contains(":5:21: " + expected), "\(validate.stderr)")
        let out = RunCommandProcess.reportDirectory()
        let run = try RunCommandProcess.run(["run", file.path, "--out", out, "--quiet"])
        #expect(run.status == 2)
        #expect(run.stderr.contains(expected), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }
}
