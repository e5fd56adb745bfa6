import ArgumentParser
import Foundation
import QueueSim

struct CalibrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calibrate",
        abstract: "Fit patience, no-shows and comebacks to a real event's stats.csv.",
        usage: "queuesim calibrate [<options>] <file> --real <stats.csv> --out <dir>",
        discussion: """
            Runs the scenario on the virtual clock (embedded room, the scenario's seed) over
            candidate values of what a team cannot know beforehand, and keeps the values whose
            run is closest to the real event's minutes by compare --real's fidelity score
            (the mean of the series' MAPEs). Fitted per group: patience.mean (or the
            log-normal's median and sigma), noShow, and comeback.share when the group has a
            comeback. A coarse grid first (patience x noShow), then --rounds of refinement
            around the best, each halving the step (docs/calibrate.md).

            Writes DIR/calibration.json ("fitted": key, value, low, high; "score_before",
            "score_after") and DIR/scenario.yaml (the scenario, its values edited in place so
            the comments stay), and prints the fitted values and both scores.

            Examples:
              queuesim calibrate scenarios/calibrate-example/scenario.yaml \\
                  --real scenarios/calibrate-example/stats.csv --out calibrated

            Exit codes:
              0    fitted (the files are written)
              2    invalid scenario, stats.csv or command line, no `visitors:` list
                   to fit or no column to score (nothing run)
              3    DIR cannot be written, or a run failed
              130  SIGINT (143: SIGTERM): nothing written
            """
    )

    @Argument(help: "The scenario file (YAML).")
    var scenario: String

    @Option(help: "The real event's per-minute statistics (stats.csv, as import queue-it-stats writes).")
    var real: String

    @Option(help: "The folder for calibration.json and scenario.yaml (created if missing).")
    var out: String

    @Option(help: "Candidate runs at a time (default: the usable cores).")
    var jobs: Int?

    @Option(help: "Refinement rounds after the coarse grid, 0 to 8.")
    var rounds = 4

    func run() throws {
        if let jobs, !(1...1024).contains(jobs) { throw ValidationError("--jobs must be from 1 to 1024 (got \(jobs))") }
        guard (0...8).contains(rounds) else { throw ValidationError("--rounds must be from 0 to 8 (got \(rounds))") }
        let loaded = try loadScenarioOrExit(scenario)
        let stats: RealStats
        do {
            stats = try RealStats.read(path: real, file: real)
        } catch {
            StandardError.print(error.description)
            throw ExitCode(RunExitStatus.invalidInput.rawValue)
        }
        let knobs = CalibrationKnob.knobs(of: loaded)
        let scored = Set(stats.series.keys).intersection(RunMinutes.seriesNames).subtracting(["queueinflow"])
        guard !scored.isEmpty else {
            StandardError.print(
                "\(real): no column to score against; calibrate needs one of \(RunMinutes.seriesNames.dropFirst().joined(separator: ", "))"
            )
            throw ExitCode(RunExitStatus.invalidInput.rawValue)
        }
        guard Self.hasVisitorsList(scenario), !knobs.isEmpty else {
            StandardError.print(
                "\(scenario): nothing to fit: calibrate fits the groups of a `visitors:` list (patience, noShow, comeback); write one, such as visitors: [ { name: app, patience: { mean: 5m } } ]"
            )
            throw ExitCode(RunExitStatus.invalidInput.rawValue)
        }
        let text: String
        do {
            text = try String(contentsOfFile: scenario, encoding: .utf8)
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        } catch {
            StandardError.print("queuesim: \(out): cannot be written: \(error.localizedDescription)")
            throw ExitCode(RunExitStatus.aborted.rawValue)
        }
        var calibrator = Calibrator(
            scenarioPath: scenario, real: stats, knobs: knobs, workDirectory: out,
            jobs: jobs ?? ProcessInfo.processInfo.activeProcessorCount)
        calibrator.rounds = rounds
        // SIGINT/SIGTERM stop the candidates' runs; nothing half-fitted is written (a second
        // signal ends the process at once, as for `run`).
        let stopSignal = calibrator.stopSignal
        let signals = SignalTrap(
            signals: [SIGINT, SIGTERM],
            numberedHandler: { signal in
                if !stopSignal.stop(.interrupted, signal: signal) { Foundation.exit(128 + signal) }
            })
        defer { signals.restore() }
        let outcome: Calibrator.Outcome
        do {
            outcome = try calibrator.calibrate { runs in StandardError.print("calibrate: \(runs) candidates run") }
        } catch {
            try Self.exitIfStopped(stopSignal, out: out)
            StandardError.print("queuesim: a calibration run failed: \(error)")
            throw ExitCode(RunExitStatus.aborted.rawValue)
        }
        try Self.exitIfStopped(stopSignal, out: out)
        try? FileManager.default.removeItem(atPath: "\(out)/.candidates")
        let report = CalibrationReport(knobs: knobs, outcome: outcome)
        do {
            let edited = try CalibratedScenarioText.edit(text, values: report.fitted.map { ($0.key, $0.value) })
            try Data(report.json.utf8).write(to: URL(fileURLWithPath: "\(out)/calibration.json"), options: .atomic)
            try Data(edited.utf8).write(to: URL(fileURLWithPath: "\(out)/scenario.yaml"), options: .atomic)
        } catch {
            StandardError.print("queuesim: \(out): cannot be written: \(error)")
            throw ExitCode(RunExitStatus.aborted.rawValue)
        }
        print(report.text)
        print("wrote \(out)/calibration.json and \(out)/scenario.yaml")
    }

    /// After a signal: the candidates' folders removed, nothing written, 130 (SIGINT) or 143.
    static func exitIfStopped(_ stopSignal: RunStopSignal, out: String) throws {
        guard stopSignal.reason != nil else { return }
        try? FileManager.default.removeItem(atPath: "\(out)/.candidates")
        StandardError.print(
            "queuesim calibrate: stopped by a signal before the fit was done; nothing written to \(out)")
        throw ExitCode(stopSignal.wasTerminated ? 143 : 130)
    }

    /// Whether the file writes `visitors:` as a list: the fitted keys go into its groups.
    static func hasVisitorsList(_ path: String) -> Bool {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8),
            let root = try? YamlReader().read(Array(text.utf8)), case .sequence? = root["visitors"]?.content
        else { return false }
        return true
    }
}
