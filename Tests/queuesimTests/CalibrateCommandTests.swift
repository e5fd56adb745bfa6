import Foundation
import Testing

/// Issue 53, item 6: `queuesim calibrate` through the binary — the files it writes, what it
/// prints, and its refusals (exit 2 with the position, nothing written).
@Suite("queuesim calibrate", .serialized, .timeLimit(.minutes(4)))
struct CalibrateCommandTests {
    static let stats =
        (["minute,queueinflow,queueoutflow,queueidsinqueue,oldqueuenumbers"]
        + (0..<6).map { minute in
            "2026-05-01T09:0\(minute):00Z,\(minute < 4 ? 120 : 0),\(minute < 5 ? 90 : 0),\(minute < 4 ? 30 * (minute + 1) : 0),\(minute < 4 ? 10 : 0)"
        }).joined(separator: "\n") + "\n"

    static func scenario(stats: String) throws -> TemporaryScenario {
        let file = try TemporaryScenario(
            """
            version: 1
            name: calibrate
            seed: 3
            clock: virtual
            target: { customerId: acme, waitingRoomId: launch, endpoint: embedded }
            arrivals: { replay: stats.csv, column: queueinflow }
            visitors:
              - name: app
                patience: { mean: 2m }   # a guess
            waitingRoom: { outflow: 100/min }
            """)
        let folder = URL(fileURLWithPath: file.path).deletingLastPathComponent()
        try Data(stats.utf8).write(to: folder.appendingPathComponent("stats.csv"))
        return file
    }

    @Test func writesTheFittedValuesAndTheEditedScenario() throws {
        let file = try Self.scenario(stats: Self.stats)
        let folder = URL(fileURLWithPath: file.path).deletingLastPathComponent().path
        let out = folder + "/calibrated"
        let result = try QueueSimProcess.run(
            ["calibrate", file.path, "--real", folder + "/stats.csv", "--out", out, "--rounds", "1"],
            limit: .seconds(90))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("visitors.app.patience.mean"), "\(result.stdout)")
        #expect(result.stdout.contains("visitors.app.noShow"))
        #expect(result.stdout.contains("score before: "))
        let json =
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: out + "/calibration.json"))) as? [String: Any]
        let fitted = try #require(json?["fitted"] as? [[String: Any]])
        #expect(fitted.map { $0["key"] as? String } == ["visitors.app.patience.mean", "visitors.app.noShow"])
        for item in fitted { #expect(item["value"] is String && item["low"] is String && item["high"] is String) }
        let before = try #require(json?["score_before"] as? Double)
        let after = try #require(json?["score_after"] as? Double)
        #expect(after <= before)
        let edited = try String(contentsOfFile: out + "/scenario.yaml", encoding: .utf8)
        #expect(edited.contains("# a guess"), "the comment survives")
        #expect(edited.contains("noShow: "))
        #expect(!FileManager.default.fileExists(atPath: out + "/.candidates"))
    }

    @Test("SIGINT stops the candidates: exit 130, nothing written, no candidates' folders left")
    func interruptedWritesNothing() async throws {
        let file = try Self.scenario(stats: Self.stats)
        let folder = URL(fileURLWithPath: file.path).deletingLastPathComponent().path
        let out = folder + "/calibrated"
        // One job and every refinement round: far more than the second before the signal.
        let result = try await QueueSimProcess.runOffPool(
            ["calibrate", file.path, "--real", folder + "/stats.csv", "--out", out, "--rounds", "8", "--jobs", "1"],
            limit: .seconds(90), interruptAfter: .seconds(1))
        #expect(result.status == 130, "\(result.stderr)")
        #expect(result.stderr.contains("stopped by a signal"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out + "/calibration.json"))
        #expect(!FileManager.default.fileExists(atPath: out + "/scenario.yaml"))
        #expect(!FileManager.default.fileExists(atPath: out + "/.candidates"))
    }

    @Test func refusesABadStatsFileAtItsLine() throws {
        let file = try Self.scenario(stats: "minute,queueinflow\n2026-05-01T09:00:00Z,lots\n")
        let folder = URL(fileURLWithPath: file.path).deletingLastPathComponent().path
        let out = folder + "/calibrated"
        let result = try QueueSimProcess.run(["calibrate", file.path, "--real", folder + "/stats.csv", "--out", out])
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains("stats.csv:2"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test func refusesAMissingRealOption() throws {
        let file = try Self.scenario(stats: Self.stats)
        let result = try QueueSimProcess.run(["calibrate", file.path, "--out", "/tmp/never"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("--real"))
    }

    @Test func refusesAScenarioWithoutGroupsOrAStatsFileWithoutScoredColumns() throws {
        let file = try Self.scenario(stats: "minute,queueinflow\n2026-05-01T09:00:00Z,10\n")
        let folder = URL(fileURLWithPath: file.path).deletingLastPathComponent().path
        let noColumn = try QueueSimProcess.run(
            ["calibrate", file.path, "--real", folder + "/stats.csv", "--out", folder + "/c"])
        #expect(noColumn.status == 2)
        #expect(noColumn.stderr.contains("no column to score against"), "\(noColumn.stderr)")
        let plain = try TemporaryScenario(
            """
            version: 1
            name: plain
            clock: virtual
            target: { customerId: acme, waitingRoomId: launch, endpoint: embedded }
            arrivals: { phases: [ { burst: 10 } ] }
            """)
        try Data(Self.stats.utf8).write(to: URL(fileURLWithPath: folder + "/good.csv"))
        let noGroups = try QueueSimProcess.run(
            ["calibrate", plain.path, "--real", folder + "/good.csv", "--out", folder + "/c"])
        #expect(noGroups.status == 2)
        #expect(noGroups.stderr.contains("nothing to fit"), "\(noGroups.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/c"))
    }
}
