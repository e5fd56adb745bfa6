import Foundation
import QueueSim
import Testing

/// Issue 53 item 5's rest: a run writes its own minutes (`minutes.csv`), compare --real reads
/// them (visitors.csv for a folder without), a replayed run's start becomes the default
/// --real-from, and `report --real` puts the rehearsal into report.html.
@Suite("a run's minutes.csv, compare --real's alignment and report --real")
struct RunMinutesCommandTests {
    /// A folder with a scenario replaying `stats.csv` from 09:02 and the file itself: five
    /// minutes of real inflow, of which the run replays minutes 09:02–09:04.
    final class ReplayFolder {
        let folder: String
        var scenario: String { folder + "/scenario.yaml" }
        var stats: String { folder + "/stats.csv" }
        let out: String

        init() throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("minutes-\(UUID().uuidString)").path
            out = folder + "/run"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try """
            minute,queueinflow,queueoutflow
            2026-05-01T09:00:00Z,10,0
            2026-05-01T09:01:00Z,20,10
            2026-05-01T09:02:00Z,300,100
            2026-05-01T09:03:00Z,200,100
            2026-05-01T09:04:00Z,100,100

            """.write(toFile: stats, atomically: true, encoding: .utf8)
            try """
            version: 1
            name: replayed
            seed: 5
            target: { customerId: acme, waitingRoomId: launch }
            client: { pollInterval: 1s, maxWait: 20m }
            arrivals: { replay: stats.csv, column: queueinflow, from: 2026-05-01T09:02:00Z }
            visitors: [ { name: app, patience: { mean: 2m } } ]
            waitingRoom: { mode: queue, eventStart: 0s, outflow: 100/min }
            """.write(toFile: scenario, atomically: true, encoding: .utf8)
        }

        deinit { try? FileManager.default.removeItem(atPath: folder) }

        func run() async throws {
            let result = try await QueueSimProcess.runOffPool(
                ["run", scenario, "--clock", "virtual", "--out", out, "--quiet"], limit: .seconds(60))
            #expect(result.status == 0, "\(result.stderr)")
        }
    }

    static func manifest(_ folder: String) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: folder + "/run.json"))
        return try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
    }

    @Test("minutes.csv holds what visitors.csv counts to the run's end; compare reads it, else visitors.csv")
    func minutesFile() async throws {
        let room = try ReplayFolder()
        try await room.run()
        let written = try String(contentsOfFile: room.out + "/minutes.csv", encoding: .utf8)
        #expect(
            written.hasPrefix(
                "minute,queueinflow,queueoutflow,safetynetoutflow,queueidsinqueue,oldqueuenumbers,queueexpectedwaittime,queueactualwaittime\n0,"
            ), "\(written.prefix(300))")
        let duration = try #require(try Self.manifest(room.out)["duration_ms"] as? Int)
        let counted = try RunMinutes(folder: room.out, end: .milliseconds(duration))
        #expect(written == counted.csv)
        #expect((counted.series["queueinflow"]?.compactMap { $0 }.reduce(0, +)) == 600)
        // run.json does not list it: its bytes are what they were before the file existed.
        let files = try Self.manifest(room.out)["files"] as? [String: Any]
        #expect(files?["minutes.csv"] == nil && files?["visitors.csv"] != nil)

        // compare takes the minutes from the file: a changed minute 0 shows in its gap.
        var lines = written.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var cells = lines[1].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        cells[1] = "1300"
        lines[1] = cells.joined(separator: ",")
        try lines.joined(separator: "\n").write(toFile: room.out + "/minutes.csv", atomically: true, encoding: .utf8)
        let edited = try await QueueSimProcess.runOffPool(
            ["compare", "--real", room.stats, room.out], limit: .seconds(30))
        #expect(edited.stdout.contains("+1000 at 2026-05-01T09:02:00Z (run 1300, real 300)"), "\(edited.stdout)")

        // Without the file (an older run's folder) the minutes come from visitors.csv, and it says so.
        try FileManager.default.removeItem(atPath: room.out + "/minutes.csv")
        let older = try await QueueSimProcess.runOffPool(
            ["compare", "--real", room.stats, room.out], limit: .seconds(30))
        #expect(
            older.stderr.contains(
                "has no minutes.csv (a run before it, or a merged folder): its minutes are counted from visitors.csv"),
            "\(older.stderr)")
        #expect(!older.stdout.contains("run 1300"))

        // A minutes.csv that is not queuesim's is refused by FILE:LINE, exit 2.
        try "minute,queueinflow\n0,-4\n".write(toFile: room.out + "/minutes.csv", atomically: true, encoding: .utf8)
        let broken = try await QueueSimProcess.runOffPool(
            ["compare", "--real", room.stats, room.out], limit: .seconds(30))
        #expect(broken.status == 2)
        #expect(broken.stderr.contains("minutes.csv:2: `queueinflow` (field 2) is -4"), "\(broken.stderr)")
    }

    @Test("a replay's from: is compare's default --real-from, said so; another file or an edited scenario warns")
    func alignment() async throws {
        let room = try ReplayFolder()
        try await room.run()
        let aligned = try await QueueSimProcess.runOffPool(
            ["compare", "--real", room.stats, room.out], limit: .seconds(30))
        #expect(aligned.status == 0 || aligned.status == 1, "\(aligned.stderr)")
        #expect(
            aligned.stderr.contains(
                "queuesim compare: --real-from 2026-05-01T09:02:00Z (the run's replay started there: \(room.scenario)'s replay of stats.csv)"
            ), "\(aligned.stderr)")
        #expect(
            aligned.stdout.contains(
                "run second 0 = 2026-05-01T09:02:00Z (the file's minute 3 of 5: the run's replay started there)"),
            "\(aligned.stdout)")
        // The replayed inflow lands on its own minutes: 0 % for queueinflow.
        #expect(
            aligned.stdout.contains("queueinflow   0.0%   3/3      ±0 at 2026-05-01T09:02:00Z (run 300, real 300)"),
            "\(aligned.stdout)")

        // --real-from still wins, without the note.
        let given = try await QueueSimProcess.runOffPool(
            ["compare", "--real", room.stats, room.out, "--real-from", "2026-05-01T09:00:00Z"], limit: .seconds(30))
        #expect(given.stdout.contains("run second 0 = 2026-05-01T09:00:00Z (the file's minute 1 of 5)\n"))
        #expect(!given.stderr.contains("the run's replay started there"))

        // Another file than the one replayed: a warning, the default still the replay's start.
        let other = room.folder + "/other.csv"
        try (try String(contentsOfFile: room.stats, encoding: .utf8)).replacingOccurrences(of: ",300,", with: ",301,")
            .write(toFile: other, atomically: true, encoding: .utf8)
        let mismatch = try await QueueSimProcess.runOffPool(
            ["compare", "--real", other, room.out], limit: .seconds(30))
        #expect(
            mismatch.stderr.contains(
                "warning: the run replayed stats.csv (column queueinflow), not \(other): the scores compare the run with another file than the crowd it replayed"
            ), "\(mismatch.stderr)")

        // The scenario edited since the run: the start is not known, and it says so.
        try (try String(contentsOfFile: room.scenario, encoding: .utf8) + "\n# edited\n").write(
            toFile: room.scenario, atomically: true, encoding: .utf8)
        let edited = try await QueueSimProcess.runOffPool(
            ["compare", "--real", room.stats, room.out], limit: .seconds(30))
        #expect(
            edited.stderr.contains(
                "has changed since the run (its SHA-256 is not run.json's), so the replay's start is not known: give --real-from"
            ), "\(edited.stderr)")
        #expect(edited.stdout.contains("run second 0 = 2026-05-01T09:00:00Z (the file's minute 1 of 5)\n"))
    }

    @Test("report --real adds the rehearsal section with the overlay chart; without it the page is unchanged")
    func reportSection() async throws {
        let room = try ReplayFolder()
        try await room.run()
        let page = room.out + "/report.html"
        let plain = try await QueueSimProcess.runOffPool(["report", room.out], limit: .seconds(30))
        #expect(plain.status == 0, "\(plain.stderr)")
        let before = try Data(contentsOf: URL(fileURLWithPath: page))

        let result = try await QueueSimProcess.runOffPool(
            ["report", room.out, "--real", room.stats], limit: .seconds(30))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout.contains("against \(room.stats): 1 of 4 rules broken: queueoutflow.mape < 10% (35.7%)"),
            "\(result.stdout)")
        let html = try String(contentsOfFile: page, encoding: .utf8)
        #expect(html.contains("<section id=\"real\"><h2>Rehearsal against the real event</h2>"))
        #expect(html.contains("run second 0 = 2026-05-01T09:02:00Z"))
        #expect(html.contains("<tr><td>queueinflow</td><td class=\"num\">0.0%</td>"), "\(html)")
        #expect(html.contains("<svg xmlns=\"http://www.w3.org/2000/svg\"") && html.contains("stroke-dasharray"))
        let section = try #require(html.range(of: "<section id=\"real\">"))
        let end = try #require(html.range(of: "</section>\n", range: section.upperBound..<html.endIndex))
        #expect(Data((String(html[..<section.lowerBound]) + String(html[end.upperBound...])).utf8) == before)

        // A bad file is refused (exit 2) before the page is touched; without --real it is as before.
        let bad = room.folder + "/bad.csv"
        try "minute,queueoutflow\n2026-05-01T09:00:00Z,x\n".write(toFile: bad, atomically: true, encoding: .utf8)
        let refused = try await QueueSimProcess.runOffPool(["report", room.out, "--real", bad], limit: .seconds(30))
        #expect(refused.status == 2)
        #expect(
            refused.stderr.contains("queuesim report: \(bad):2: `queueoutflow` (field 2) must be a number"),
            "\(refused.stderr)")
        #expect(try String(contentsOfFile: page, encoding: .utf8) == html)
        _ = try await QueueSimProcess.runOffPool(["report", room.out], limit: .seconds(30))
        #expect(try Data(contentsOf: URL(fileURLWithPath: page)) == before)
    }

    @Test("--real-metrics writes the real series under the run's names, source=\"real\", on metrics.prom's clock")
    func realMetrics() async throws {
        let room = try ReplayFolder()
        try await room.run()
        let file = room.folder + "/real.prom"
        let result = try await QueueSimProcess.runOffPool(
            ["compare", "--real", room.stats, room.out, "--real-metrics", file], limit: .seconds(30))
        #expect(result.status == 0 || result.status == 1, "\(result.stderr)")
        let text = try String(contentsOfFile: file, encoding: .utf8)
        // metrics.prom stamps the run's second s as base + s + 1: its first sample names the base.
        let prom = try String(contentsOfFile: room.out + "/metrics.prom", encoding: .utf8)
        let first = try #require(prom.split(separator: "\n").first { $0.hasPrefix("queuesim_room_queue_length{") })
        let base = try #require(Int64(first.split(separator: " ").last ?? "")) - 1
        let labels = try #require(first.split(separator: "{").last?.split(separator: "}").first)
        #expect(labels.hasPrefix("run_id=\""))
        let real = "{\(labels),source=\"real\"}"
        // The run's second 0 is 09:02: inflow 300, 200, 100 summed as a counter; the queue as a gauge.
        #expect(
            text.contains(
                "# TYPE queuesim_arrivals_total counter\n# HELP queuesim_arrivals_total Visitors who arrived (started their journey).\n"
                    + "queuesim_arrivals_total\(real) 300 \(base + 60)\nqueuesim_arrivals_total\(real) 500 \(base + 120)\n"
                    + "queuesim_arrivals_total\(real) 600 \(base + 180)\n"), "\(text)")
        #expect(text.contains("queuesim_room_released_total\(real) 300 \(base + 180)\n"), "\(text)")
        #expect(!text.contains("queuesim_room_queue_length"), "the file has no queueidsinqueue column")
        #expect(text.hasSuffix("# EOF\n"))
        let unwritable = try await QueueSimProcess.runOffPool(
            ["compare", "--real", room.stats, room.out, "--real-metrics", room.folder + "/missing/real.prom"],
            limit: .seconds(30))
        #expect(unwritable.status == 3, "\(unwritable.stderr)")
    }
}
