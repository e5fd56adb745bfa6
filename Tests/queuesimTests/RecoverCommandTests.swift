import Foundation
import Testing

/// `queuesim recover` on a killed run whose spool holds a row beyond the plan and a garbage
/// line (issue 51): it finishes at once, writes the plan's rows and no more, and names both
/// lines on stderr.
@Suite("queuesim recover: bounded by the plan")
struct RecoverCommandTests {
    static let planned = 10

    /// A finished virtual run's rows, replayed as the spool of a killed run beside it.
    static func killedRunBesideAFinishedOne() throws -> (out: String, runFolder: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "queuesim-recover-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let scenario = folder.appendingPathComponent("burst.yaml").path
        try """
        version: 1
        name: burst
        seed: 1
        target: { customerId: acme, waitingRoomId: burst, endpoint: embedded }
        arrivals: { phases: [ { burst: \(planned) } ] }
        visitors: [ { name: app, flow: run } ]
        waitingRoom: { mode: safetynet }
        """.write(toFile: scenario, atomically: true, encoding: .utf8)
        let out = folder.appendingPathComponent("reports").path
        let run = try QueueSimProcess.run(["run", scenario, "--out", out, "--clock", "virtual", "--quiet"])
        try #require(run.status == 0, "\(run.stderr)")

        let visitors = try String(contentsOfFile: out + "/visitors.csv", encoding: .utf8)
        var rows = visitors.split(separator: "\n", omittingEmptySubsequences: false).dropFirst().filter { !$0.isEmpty }
        try #require(rows.count == planned)
        let last = rows.removeLast()  // visitor 10 died with the run
        let beyond = "999999999999" + last.drop { $0 != "," }
        let spool = rows.joined(separator: "\n") + "\n" + beyond + "\n" + "\u{0}\u{0}garbage\u{1b}[2J that is no row\n"

        let runFolder = out + ".runs/29990101T000000Z-dead"
        try FileManager.default.createDirectory(atPath: runFolder, withIntermediateDirectories: true)
        try spool.write(toFile: runFolder + "/.visitors.unordered.tmp", atomically: true, encoding: .utf8)
        try """
        {"clock":"virtual","groups":["app"],"plannedVisitors":\(planned),"runId":"29990101T000000Z-dead",\
        "scenario":"burst","scenarioFile":"\(scenario)","scenarioSHA256":"\(String(repeating: "ab", count: 32))",\
        "seed":1,"startedAt":1700000000,"thresholds":[]}
        """.write(toFile: runFolder + "/.run.pending.json", atomically: true, encoding: .utf8)
        return (out, runFolder)
    }

    @Test func aRowBeyondThePlanAndAGarbageLineAreDroppedAndNamed() throws {
        let (out, runFolder) = try Self.killedRunBesideAFinishedOne()
        let result = try QueueSimProcess.run(["recover", out], limit: .seconds(20))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.elapsed < .seconds(10))
        let spool = runFolder + "/.visitors.unordered.tmp"
        #expect(
            result.stderr
                == """
                queuesim recover: \(spool):10: dropped: visitor 999999999999 is beyond the plan's 10 visitors
                queuesim recover: \(spool):11: dropped: not a spool row (\\x00\\x00garbage\\x1b[2J that is no row)

                """)
        #expect(result.stdout.contains("recovered run 29990101T000000Z-dead: 9 row(s), marked incomplete"))
        let rows = try String(contentsOfFile: runFolder + "/visitors.csv", encoding: .utf8).split(separator: "\n")
        #expect(rows.count == 1 + 9)
        let manifest = try String(contentsOfFile: runFolder + "/run.json", encoding: .utf8)
        #expect(manifest.contains("2 line(s) of the spool dropped"))
    }
}
