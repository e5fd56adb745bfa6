import Foundation
import Testing

@testable import QueueSim

/// The done-when test of `calibrate`: a synthetic event made by a different model (a FIFO room
/// with wasted turns, exponential patience of mean 4 min, 8 % no-shows; 100 arrivals a minute
/// for 5 min, 300 for 10, 60 for 10, 150 turns a minute; `SyntheticEvent`) is
/// calibrated from a scenario that guesses 10 min and no no-shows. The fit must find the
/// patience mean within 10 % and the no-show share within 2 points, and lower the score.
@Suite("calibrate: recovers a synthetic event's patience and no-shows", .timeLimit(.minutes(10)))
struct CalibrateRecoveryTests {
    static let event = SyntheticEvent(
        arrivalsPerMinute: Array(repeating: 100, count: 5) + Array(repeating: 300, count: 10)
            + Array(repeating: 60, count: 10),
        outflowPerMinute: 150, patienceMean: 240, noShow: 0.08, seed: 53, minutes: 40)

    static let scenario = """
        version: 1
        name: calibrate-example
        seed: 7
        clock: virtual
        target: { customerId: acme, waitingRoomId: launch }
        # The crowd: each minute's real inflow, replayed exactly.
        arrivals: { replay: stats.csv, column: queueinflow, per: minute, within: uniform }
        visitors:
          - name: app
            patience: { mean: 10m }   # a guess: calibrate fits it
        waitingRoom: { outflow: 150/min, latency: { enqueue: 0s, queuePage: 0s, protectedApi: 0s, jitter: 0s } }

        """

    static func folder() throws -> String {
        let folder = NSTemporaryDirectory() + "queuesim-calibrate-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try event.statsCSV(start: 1_777_626_000).write(toFile: "\(folder)/stats.csv", atomically: true, encoding: .utf8)
        try scenario.write(toFile: "\(folder)/scenario.yaml", atomically: true, encoding: .utf8)
        return folder
    }

    @Test("patience mean within 10 %, no-show share within 2 points, the score lowered")
    func recovers() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = "\(folder)/scenario.yaml"
        let loaded = try ScenarioLoader.load(path: path)
        let knobs = CalibrationKnob.knobs(of: loaded)
        #expect(knobs.map(\.key) == ["visitors.app.patience.mean", "visitors.app.noShow"])
        let real = try RealStats.read(path: "\(folder)/stats.csv", file: "stats.csv")
        let calibrator = Calibrator(scenarioPath: path, real: real, knobs: knobs, workDirectory: folder, jobs: 2)
        let outcome = try calibrator.calibrate()
        let patience = outcome.best[0]
        let noShow = outcome.best[1]
        #expect(abs(patience - 240) <= 24, "patience mean \(patience) s, known 240 s")
        #expect(abs(noShow - 0.08) <= 0.02, "no-show share \(noShow), known 0.08")
        let before = try #require(outcome.scoreBefore)
        let after = try #require(outcome.scoreAfter)
        #expect(after < before, "score \(before) → \(after)")
        let report = CalibrationReport(knobs: knobs, outcome: outcome)
        let edited = try CalibratedScenarioText.edit(Self.scenario, values: report.fitted.map { ($0.key, $0.value) })
        #expect(edited.contains("# a guess: calibrate fits it"), "comments survive")
        let reloaded = try ScenarioLoader.load(yaml: edited, path: path)
        #expect(reloaded.groups[0].behaviour.patience == .exponential(mean: .seconds(Int64(patience.rounded()))))
        #expect(abs((reloaded.groups[0].behaviour.noShow ?? -1) - noShow) < 0.001)
        // Writes the committed example when asked (QUEUESIM_WRITE_CALIBRATE_EXAMPLE=DIR).
        if let example = ProcessInfo.processInfo.environment["QUEUESIM_WRITE_CALIBRATE_EXAMPLE"] {
            try Self.event.statsCSV(start: 1_777_626_000).write(
                toFile: "\(example)/stats.csv", atomically: true, encoding: .utf8)
            try Self.scenario.write(toFile: "\(example)/scenario.yaml", atomically: true, encoding: .utf8)
            try report.json.write(toFile: "\(example)/calibration.json", atomically: true, encoding: .utf8)
        }
    }
}
