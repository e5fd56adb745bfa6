import ArgumentParser
import Foundation
import Logging
import QueueClientCore
import QueueSim

struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a scenario: every visitor through the client core, reports, thresholds.",
        discussion: """
            Runs every planned visitor through QueueClientCore against the scenario's endpoint
            (the embedded waiting room by default), writes visitors.csv, summary.csv,
            timeline.csv and run.json to the report directory, and judges the thresholds.

            Examples:
              queuesim run scenarios/launch.yaml
              queuesim run scenarios/launch.yaml --out /tmp/launch --seed 7
              queuesim run scenarios/soak.yaml --clock virtual --visitors 100000
              queuesim run scenarios/launch.yaml --duration 30s --concurrency 500 --quiet

            Exit codes: 0 every threshold held, 1 a threshold failed (reports written),
            2 invalid scenario or command line (nothing run), 3 the run could not start,
            130 interrupted by SIGINT/SIGTERM (reports written, in-flight visitors `interrupted`).
            """
    )

    @Argument(help: "The scenario file (YAML).")
    var file: String

    @Option(name: .customLong("out"), help: "Report directory (default: the scenario's reports.dir).")
    var outputDirectory: String?

    @Option(help: "Seed for every random choice (default: the scenario's seed).")
    var seed: UInt64?

    @Option(help: "wall or virtual (default: the scenario's clock).")
    var clock: String?

    @Option(help: "Hard stop, e.g. 90s or 10m (default: the scenario's run.duration).")
    var duration: String?

    @Option(help: "Scale the arrival plan to exactly N visitors, keeping its shape.")
    var visitors: Int?

    @Option(help: "Most visitors in flight at once on the wall clock (default: run.concurrency).")
    var concurrency: Int?

    @Flag(name: .shortAndLong, help: "No progress line and no summary; reports and exit code only.")
    var quiet = false

    func validate() throws {
        if let clock, ClockKind(rawValue: clock) == nil {
            throw ValidationError("--clock must be wall or virtual (got '\(clock)')")
        }
        if let duration {
            guard let parsed = ScenarioUnits.duration(duration), parsed > .zero else {
                throw ValidationError("--duration must be a positive duration such as 90s or 10m (got '\(duration)')")
            }
        }
        if let visitors, visitors < 0 { throw ValidationError("--visitors must be 0 or more (got \(visitors))") }
        if let concurrency, concurrency < 1 {
            throw ValidationError("--concurrency must be at least 1 (got \(concurrency))")
        }
    }

    func run() async throws {
        EventLoopSizing.matchAffinityMask()
        let scenario = try loadScenarioOrExit(file)
        let options = RunOptions(
            outputDirectory: outputDirectory, seed: seed, clock: clock.flatMap(ClockKind.init(rawValue:)),
            duration: duration.flatMap(ScenarioUnits.duration), visitors: visitors, concurrency: concurrency)
        let prepared: PreparedRun
        do {
            prepared = try PreparedRun(scenario: scenario, options: options)
        } catch {
            StandardError.print("\(file): \(error)")
            throw ExitCode(RunExitStatus.invalidInput.rawValue)
        }
        if prepared.clock == .virtual, !prepared.isEmbedded {
            StandardError.print(
                "\(file): clock virtual needs endpoint: embedded (a real endpoint runs on the wall clock)")
            throw ExitCode(RunExitStatus.invalidInput.rawValue)
        }

        let stopSignal = RunStopSignal()
        let signals = SignalTrap(signals: [SIGINT, SIGTERM]) { stopSignal.stop(.interrupted) }
        defer { signals.restore() }
        let status = LiveRunStatus(planned: prepared.summary.visitorCount)
        let progress = quiet ? nil : ProgressDisplay(status: status, clock: prepared.clock)
        progress?.start()

        let report: RunReport
        do {
            switch prepared.clock {
            case .wall:
                var logger = Logger(label: "queuesim.room")
                // The run reports what visitors saw; the server's own shutdown chatter is noise here.
                logger.logLevel = .critical
                report = try await WallClockRunner(
                    run: prepared, status: status, stopSignal: stopSignal, logger: logger
                ).execute()
            case .virtual:
                let runner = VirtualClockRunner(run: prepared, status: status, stopSignal: stopSignal)
                report = try await Task.detached { try runner.execute() }.value
            }
        } catch let abort as RunAbort {
            progress?.stop()
            StandardError.print("queuesim run: \(abort)")
            throw ExitCode(RunExitStatus.aborted.rawValue)
        } catch {
            progress?.stop()
            StandardError.print("queuesim run: the run was aborted: \(error)")
            throw ExitCode(RunExitStatus.aborted.rawValue)
        }
        progress?.stop()
        if !quiet {
            print(RunSummaryScreen(report: report, run: prepared).text)
        }
        if report.exitStatus != .success {
            throw ExitCode(report.exitStatus.rawValue)
        }
    }
}
