import Foundation
import QueueSim
import Testing

/// `queuesim compare --real stats.csv RUNDIR` (issue 53 item 5): a virtual run scored against a
/// stats.csv made from its own minutes (0 % by construction), the same file with one minute
/// moved (that gap, exit 1), and the refusals (exit 2).
@Suite("queuesim compare --real")
struct CompareRealCommandTests {
    static let scenario = """
        version: 1
        name: launch
        seed: 3
        target: { customerId: acme, waitingRoomId: launch }
        client: { pollInterval: 1s, maxWait: 10m }
        arrivals: { phases: [ { duration: 3m, rate: 5 } ] }
        visitors: [ { name: app, patience: { mean: 1m } } ]
        waitingRoom: { mode: queue, eventStart: 0s, outflow: 120/min }
        """

    /// A virtual run's folder.
    static func runFolder() async throws -> String {
        let scenario = try TemporaryScenario(Self.scenario)
        let out = RunCommandProcess.reportDirectory()
        let result = try await QueueSimProcess.runOffPool(
            ["run", scenario.path, "--clock", "virtual", "--out", out, "--quiet"], limit: .seconds(60))
        #expect(result.status == 0, "\(result.stderr)")
        return out
    }

    /// A stats.csv of the run's own minutes from 09:00, with `change` applied to each row's cells.
    static func statsFile(
        _ minutes: RunMinutes, in folder: String, change: (Int, inout [String: Double?]) -> Void = { _, _ in }
    ) throws -> String {
        let names = RunMinutes.seriesNames
        var lines = ["minute," + names.joined(separator: ",")]
        for minute in 0..<minutes.count {
            var row: [String: Double?] = [:]
            for name in names { row[name] = minutes.series[name]?[minute] ?? nil }
            change(minute, &row)
            let time = String(format: "2026-05-01T%02d:%02d:00Z", 9 + minute / 60, minute % 60)
            lines.append(
                time + "," + names.map { name in (row[name] ?? nil).map { "\($0)" } ?? "" }.joined(separator: ","))
        }
        let path = folder + ".stats.csv"
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test("the run's own minutes score 0 %; one minute moved is that gap and breaks its rule")
    func knownScores() async throws {
        let folder = try await Self.runFolder()
        let minutes = try RunMinutes(folder: folder)
        #expect((minutes.series["queueoutflow"]?.compactMap { $0 }.reduce(0, +) ?? 0) > 100)
        #expect(
            (minutes.series["oldqueuenumbers"]?.compactMap { $0 }.reduce(0, +) ?? 0) > 0,
            "nobody left before their turn")
        let same = try Self.statsFile(minutes, in: folder)
        let markdown = folder + ".summary.md"
        let json = folder + ".score.json"
        let result = try await QueueSimProcess.runOffPool(
            ["compare", "--real", same, folder, "--markdown", markdown, "--json", json], limit: .seconds(30))
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.contains("\nscore 0.0% (the mean of the series' errors)\n"), "\(result.stdout)")
        #expect(result.stdout.contains("run second 0 = 2026-05-01T09:00:00Z"))
        #expect(result.stderr.contains("queuesim compare: done (exit 0): every rule holds (4 rules), score 0.0%"))
        let table = try String(contentsOfFile: markdown, encoding: .utf8)
        #expect(table.contains("| queueoutflow | 0.0% |"), "\(table)")
        #expect(table.contains("[\(folder.split(separator: "/").last!).summary.svg]"))
        let chart = try String(contentsOfFile: folder + ".summary.svg", encoding: .utf8)
        #expect(chart.hasPrefix("<svg ") && chart.contains("stroke-dasharray"))
        let scores =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any]
        #expect(scores?["score"] as? Double == 0 && scores?["broken"] as? Int == 0)

        // Minute 1's outflow 50 higher in the "real" file: the run is 50 short there.
        let moved = try Self.statsFile(minutes, in: folder + ".moved") { minute, row in
            if minute == 1, let value = row["queueoutflow"] ?? nil { row["queueoutflow"] = value + 50 }
        }
        let broken = try await QueueSimProcess.runOffPool(
            [
                "compare", "--real", moved, folder, "--rule", "queueoutflow.gap <= 10", "--rule",
                "queueoutflow.mape off",
            ],
            limit: .seconds(30))
        #expect(broken.status == 1, "\(broken.stdout)\n\(broken.stderr)")
        #expect(broken.stdout.contains("−50 at 2026-05-01T09:01:00Z"), "\(broken.stdout)")
        #expect(broken.stderr.contains("1 of 4 rules broken: queueoutflow.gap <= 10 (50)"), "\(broken.stderr)")
    }

    @Test("refused with exit 2: a bad stats.csv by FILE:LINE, two folders, a bad rule, --real-from outside the file")
    func refusals() async throws {
        let folder = try await Self.runFolder()
        let minutes = try RunMinutes(folder: folder)
        let good = try Self.statsFile(minutes, in: folder)
        let bad = folder + ".bad.csv"
        try "minute,queueoutflow\n2026-05-01T09:00:00Z,5\n2026-05-01T09:01:00Z,-3\n".write(
            toFile: bad, atomically: true, encoding: .utf8)
        let cases: [([String], String)] = [
            (
                ["compare", "--real", bad, folder],
                "\(bad):3: `queueoutflow` (field 2) is -3; statistics values cannot be negative"
            ),
            (
                ["compare", "--real", good, folder, folder],
                "--real scores exactly one run's folder against the file: 2 given"
            ),
            (
                ["compare", "--real", good, folder, "--rule", "queueoutflow.mape < 10"],
                "--rule `queueoutflow.mape < 10`: the bound must be a percentage"
            ),
            (
                ["compare", "--real", good, folder, "--real-from", "2026-05-02T09:00:00Z"],
                "--real-from 2026-05-02T09:00:00Z is outside"
            ),
            (["compare", "--real", good, folder + "-missing"], "is not a report folder"),
            (["compare", "--json", "x.json", folder], "give it"),
        ]
        for (arguments, message) in cases {
            let result = try await QueueSimProcess.runOffPool(arguments, limit: .seconds(30))
            #expect(result.status == 2, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
    }

    @Test("the same run and file give the same bytes; an unwritable --json or --markdown is exit 3")
    func sameBytesAndUnwritable() async throws {
        let folder = try await Self.runFolder()
        let stats = try Self.statsFile(try RunMinutes(folder: folder), in: folder)
        var outputs: [String] = []
        for name in ["first", "second"] {
            let json = folder + ".\(name).json"
            let markdown = folder + ".\(name).md"
            let result = try await QueueSimProcess.runOffPool(
                ["compare", "--real", stats, folder, "--json", json, "--markdown", markdown], limit: .seconds(30))
            #expect(result.status == 0, "\(result.stderr)")
            outputs.append(
                try String(contentsOfFile: json, encoding: .utf8)
                    + String(contentsOfFile: folder + ".\(name).svg", encoding: .utf8) + result.stdout)
        }
        #expect(outputs[0] == outputs[1])
        for option in ["--json", "--markdown"] {
            let result = try await QueueSimProcess.runOffPool(
                ["compare", "--real", stats, folder, option, folder + "/no/such/folder/out"], limit: .seconds(30))
            #expect(result.status == 3, "\(option): \(result.stderr)")
            #expect(result.stderr.contains("queuesim compare: cannot write"), "\(result.stderr)")
        }
    }
}
