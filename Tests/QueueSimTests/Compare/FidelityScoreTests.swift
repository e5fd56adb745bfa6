import Foundation
import QueueClientCore
import Testing

@testable import QueueSim

/// `compare --real`'s pieces: the run's minutes from visitors' rows, the real stats.csv, the
/// score with known answers by construction, and the rules.
@Suite("fidelity score: a run's minutes against the real event's")
struct FidelityScoreTests {
    static func at(_ milliseconds: Int64) -> RunInstant { .origin + .milliseconds(milliseconds) }

    static func visitor(
        _ index: Int, decided: Int64?, entered: Int64?, ended: Int64, _ outcome: VisitorOutcome
    ) -> VisitorRecord {
        VisitorRecord(
            index: index, group: "app", flow: "run", arrival: at(decided ?? 0), start: at(decided ?? 0),
            outcome: outcome, enqueueDecided: decided.map(at), queueEntered: entered.map(at), ended: at(ended))
    }

    /// Three minutes: two passed from the queue, one left before their turn (reached when the
    /// visitor behind them is redirected, at 123 s), one safetynet pass, one error.
    static let records = [
        visitor(0, decided: 1000, entered: 1000, ended: 91_000, .passed),
        visitor(1, decided: 2000, entered: 2000, ended: 30_000, .abandoned),
        visitor(2, decided: 3000, entered: 3000, ended: 123_000, .passed),
        visitor(3, decided: 65_000, entered: nil, ended: 65_000, .passed),
        visitor(4, decided: nil, entered: nil, ended: 4000, .error),
    ]

    static let runMinutes = RunMinutes(records: records, end: .seconds(180))

    @Test("each series counted as Queue-it counts it; a left visitor's number stays in line until reached")
    func runSeries() {
        let minutes = Self.runMinutes
        #expect(minutes.count == 3)
        #expect(minutes.series["queueinflow"] == [3, 1, 0])
        #expect(minutes.series["queueoutflow"] == [0, 1, 1])
        #expect(minutes.series["safetynetoutflow"] == [0, 1, 0])
        // At 60 s all three numbers; at 120 s the left visitor's still (reached at 123 s) and the last's.
        #expect(minutes.series["queueidsinqueue"] == [3, 2, 0])
        #expect(minutes.series["oldqueuenumbers"] == [0, 0, 1])
        #expect(minutes.series["queueactualwaittime"] == [nil, 1.5, 2])
        #expect(minutes.series["queueexpectedwaittime"] == [1.75, nil, nil])
        // The same rows in another order give the same minutes.
        #expect(RunMinutes(records: Self.records.reversed(), end: .seconds(180)) == minutes)
    }

    static func statsFile(_ text: String) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fidelity-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("stats.csv").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static let identicalCSV = """
        minute,queueinflow,queueoutflow,safetynetoutflow,totaloutflow,queueidsinqueue,oldqueuenumbers,queueactualwaittime,queueexpectedwaittime
        2026-05-01T09:00:00Z,3,0,0,0,3,0,,1.75
        2026-05-01T09:01:00Z,1,1,1,2,2,0,1.5,
        2026-05-01T09:02:00Z,0,1,0,1,0,1,2,

        """

    @Test("identical series score 0 % with no gap, and the identity holds in every minute")
    func identicalScoresZero() throws {
        let path = try Self.statsFile(Self.identicalCSV)
        let real = try RealStats.read(path: path, file: "stats.csv")
        let report = FidelityScore.compute(run: Self.runMinutes, real: real, rules: FidelityRule.inForce([]))
        #expect(report.series.map(\.name) == RunMinutes.seriesNames)
        for series in report.series {
            #expect(series.mape == 0, "\(series.name)")
            #expect(series.largestGap?.gap == 0, "\(series.name)")
        }
        #expect(report.score == 0)
        #expect(report.identity == OutflowIdentity(checkedMinutes: 3, broken: [], unchecked: nil))
        #expect(report.broken.isEmpty)
    }

    @Test("one minute off by a known amount: that gap, that error, the rule broken; a broken identity named by line")
    func oneMinuteOff() throws {
        // queueoutflow's second minute is 3 instead of 1, and its total says 2 (1 + 3 ≠ 2).
        let text = Self.identicalCSV.replacingOccurrences(
            of: "2026-05-01T09:01:00Z,1,1,1,2", with: "2026-05-01T09:01:00Z,1,3,1,2")
        let real = try RealStats.read(path: try Self.statsFile(text), file: "stats.csv")
        let rules = [try FidelityRule(parsing: "queueoutflow.gap <= 1"), try FidelityRule(parsing: "score < 50%")]
        let report = FidelityScore.compute(run: Self.runMinutes, real: real, rules: FidelityRule.inForce(rules))
        let outflow = try #require(report.series.first { $0.name == "queueoutflow" })
        #expect(
            outflow.largestGap
                == FidelityGap(runMinute: 1, time: "2026-05-01T09:01:00Z", run: 1, real: 3, gap: -2))
        // Minute 0 is 0 on both sides and left out: (|1 − 3| ÷ 3 + 0) ÷ 2.
        #expect(abs((outflow.mape ?? 0) - 100.0 / 3) < 1e-9)
        #expect(outflow.scoredMinutes == 2 && outflow.comparedMinutes == 3)
        #expect(report.broken.map(\.rule.description) == ["queueoutflow.mape < 10%", "queueoutflow.gap <= 1"])
        #expect(
            report.identity?.broken
                == [.init(time: "2026-05-01T09:01:00Z", line: 3, queue: 3, safetyNet: 1, total: 2)])
        let words = FidelityText(
            report: report, run: Self.runMinutes, real: real, runName: "run", realName: "stats.csv")
        #expect(
            words.terminal.contains(
                "total outflow: the file breaks safetynetoutflow + queueoutflow = totaloutflow in 1 of 3 minutes: stats.csv:3 (2026-05-01T09:01:00Z: 1 + 3 ≠ 2)"
            ), "\(words.terminal)")
        #expect(words.terminal.contains("−2 at 2026-05-01T09:01:00Z (run 1, real 3)"))
    }

    @Test("--real-from: the run's minute 0 is a later minute of the file")
    func offset() throws {
        let text = """
            minute,queueinflow
            2026-05-01T08:59:00Z,40
            2026-05-01T09:00:00Z,3
            2026-05-01T09:01:00Z,1
            2026-05-01T09:02:00Z,0

            """
        let real = try RealStats.read(path: try Self.statsFile(text), file: "stats.csv")
        #expect(real.minute(of: "2026-05-01T09:00:00Z") == 1)
        let shifted = FidelityScore.compute(run: Self.runMinutes, real: real, rules: [], offsetMinutes: 1)
        #expect(shifted.series.map(\.name) == ["queueinflow"] && shifted.score == 0)
        let unshifted = FidelityScore.compute(run: Self.runMinutes, real: real, rules: [])
        #expect((unshifted.score ?? 0) > 0)
    }

    @Test("a bad stats.csv is refused with its file and line")
    func badFiles() throws {
        func problem(_ text: String) throws -> String {
            do {
                _ = try RealStats.read(path: try Self.statsFile(text), file: "stats.csv")
                return "read"
            } catch {
                return "\(error)"
            }
        }
        #expect(
            try problem("minute,queueoutflow\n2026-05-01T09:00:00Z,5\n2026-05-01T09:01:00Z,x\n")
                == "stats.csv:3: `queueoutflow` (field 2) must be a number, found `x`")
        #expect(
            try problem("minute,queueoutflow\n2026-05-01T09:01:00Z,5\n2026-05-01T09:00:00Z,4\n").hasPrefix(
                "stats.csv:3: the time 2026-05-01T09:00:00Z is not after line 2's"))
        #expect(
            try problem("minute,maxoutflow\n2026-05-01T09:00:00Z,5\n").hasPrefix(
                "stats.csv:1: no column a run can be laid over"))
        #expect(
            try problem("minute,queueoutflow\n2026-05-01T09:00:00Z,5,6\n")
                == "stats.csv:2: this row has 3 fields, the header 2")
        #expect(try problem("").hasPrefix("stats.csv: the file is empty"))
    }

    @Test("rules: series, measures, bounds and off")
    func rules() throws {
        #expect(try FidelityRule(parsing: "queueoutflow.mape < 10%").description == "queueoutflow.mape < 10%")
        #expect(try FidelityRule(parsing: "queueidsinqueue.gap <= 50").limit == 50)
        #expect(try FidelityRule(parsing: "score < 20%").series == nil)
        let off = try FidelityRule(parsing: "queueinflow.mape off")
        #expect(!FidelityRule.inForce([off]).contains { $0.metric == "queueinflow.mape" })
        for bad in [
            "queueoutflow.mape < 10", "queueoutflow.gap < 10%", "nosuch.mape < 1%", "queueoutflow.mape > 1%", "x",
        ] {
            #expect(throws: FidelityRule.Problem.self, "\(bad)") { try FidelityRule(parsing: bad) }
        }
    }
}
