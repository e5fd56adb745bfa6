import ArgumentParser
import Foundation
import Logging
import QueueClientCore
import QueueSim
import Synchronization

struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a scenario: every visitor through the client core, reports, thresholds.",
        discussion: """
            Runs every planned visitor through QueueClientCore against the scenario's
            endpoint (the embedded waiting room by default), writes report.html (the run on
            one page: look here first), visitors.csv, summary.csv, timeline.csv and run.json
            to the report directory, and judges the thresholds.

            The clock is the scenario's top-level `clock: wall|virtual` key (not a key of
            `run:`), or --clock. On the virtual clock the live line shows simulated time
            of the planned span, visitors done and the time left.

            Examples:
              queuesim run scenarios/launch.yaml
              queuesim run scenarios/launch.yaml --out /tmp/launch --seed 7
              queuesim run scenarios/soak.yaml --clock virtual --visitors 100000
              queuesim run scenarios/launch.yaml --duration 30s --concurrency 500 --quiet
              queuesim run scenarios/soak.yaml --clock virtual --no-progress \\
                  --junit soak.xml
              queuesim run scenarios/launch.yaml --set waitingRoom.outflow=1200/min

            --set KEY=VALUE changes one scenario value by its path before the file is
            read (dots through mappings, a group by its name: visitors.app.flow, a list
            item by its number: arrivals.phases.1.rate); the value is YAML, checked as
            the file's own, a problem reported as `--set KEY=VALUE:1:COLUMN: message`.
            run.json records the values set (`set`); the scenario's SHA-256 stays the
            file's. See docs/scenarios.md.

            Before the run, warnings go to stderr (a bare `waitingRoom.outflow` number, an
            outflow that cannot serve the plan within client.maxWait); they never change
            the exit code. The last line on stderr is always the verdict, e.g.
            `queuesim run: FAIL (exit 1): wait.p95 < 10m was 17m 2s`.

            The report directory is a link to this run's own folder, DIR.runs/<run id>/,
            swapped in once every file is written: readers never see files of two runs,
            and a run that fails or is killed leaves the previous report current. One run
            at a time per directory. A run that was killed is turned into a report marked
            incomplete by the next run into the same directory, or by `queuesim recover
            DIR`.

            Exit codes:
              0    every threshold held
              1    a threshold failed (reports written)
              2    invalid scenario or command line, or the report directory is in use
                   (nothing run)
              3    the run could not start or could not write its reports (or
                   --metrics-listen could not bind its address, or a shard's room
                   started its timeline more than 1 s from the shard's second 0)
              4    a guardrail stopped the run: a windowed threshold with abortOnFail
                   failed (reports written, in-flight visitors `interrupted`; the end
                   screen and run.json's guardrail_stop say which and when)
              130  interrupted by SIGINT; 143 stopped by SIGTERM (reports written,
                   in-flight visitors `interrupted`, thresholds not judged; before the
                   run starts, either signal ends it at once with nothing written)

            A shard (--shard K/N) does not judge thresholds on its share: it exits 0
            when it finished, and queuesim merge judges the whole run.

            Against a base URL, run reads GET /queuesim/status (or the
            Queuesim-Room-Start header) of a queuesim serve before its first visitor:
            a shard whose room's second 0 is more than 1 s from its own exits 3
            (--ignore-room-start: a warning instead), a whole run is warned, and an
            endpoint that is no queuesim serve is noted as unchecked. run.json records
            it (configuration.room_check) with the room's settings (configuration.room).
            With a common start, the run_id is derived from the scenario file, seed and
            start, so shards and serve --start-at share it (docs/distributed.md).
            """
    )

    @Argument(help: "The scenario file (YAML).")
    var file: String

    @Option(
        name: .customLong("out"),
        help: ArgumentHelp("Report directory (default: the scenario's reports.dir).", valueName: "DIR"))
    var outputDirectory: String?

    @OptionGroup var plan: PlanOptions

    @OptionGroup(title: "Metrics") var metrics: MetricsOptions

    @Flag(
        name: .shortAndLong,
        help: "No progress line; the summary only when the run did not pass; one exit line on stderr always.")
    var quiet = false

    @Flag(help: "No live progress line (for CI logs); the summary and the exit line as usual.")
    var noProgress = false

    @Option(help: ArgumentHelp("Earlier complete runs to keep in DIR.runs/ beside the current one.", valueName: "N"))
    var keep: Int = 0

    @Option(
        help: ArgumentHelp(
            "Also write the verdicts as JUnit XML to FILE: a test case per threshold and per visitor group.",
            valueName: "FILE"))
    var junit: String?

    @Flag(
        help:
            "Run a shard even when the room at its endpoint started its timeline more than 1 s away from the shard's second 0 (a warning, not exit 3)."
    )
    var ignoreRoomStart = false

    func validate() throws {
        if keep < 0 { throw ValidationError("--keep must be 0 or more (got \(keep))") }
    }

    func run() async throws {
        EventLoopSizing.matchAffinityMask()
        // Trapped from the first moment: a signal while the scenario, its feeders or the plan
        // load exits at once (130 for SIGINT, 143 for SIGTERM: nothing ran, nothing to write);
        // once the run has started it stops the visitors and the reports are written.
        let stopSignal = RunStopSignal()
        let phase = RunPhase()
        let metricsFinish = MetricsFinish()
        let signals = SignalTrap(
            signals: [SIGINT, SIGTERM],
            numberedHandler: { signal in
                // After the reports: a signal cancels the metrics push (and the linger).
                if metricsFinish.handle(signal) { return }
                guard phase.isRunning else {
                    StandardError.print(
                        "queuesim run: stopped by \(signal == SIGTERM ? "SIGTERM" : "SIGINT") before the run started; nothing ran"
                    )
                    Foundation.exit(128 + signal)
                }
                stopSignal.stop(.interrupted, signal: signal)
            })
        defer { signals.restore() }
        let scenario = try loadScenarioOrExit(file, overrides: plan.scenarioOverrides)
        if let note = plan.endpointNote(for: scenario, command: "run") { StandardError.print(note) }
        // The run writes into a folder of its own (see ReportFolder); `pointer` is what users read.
        let runId = RunId.make()
        let pointer = outputDirectory ?? scenario.reportsDirectory
        try CommandSupport.checkOutputFolder(pointer, command: "run")
        var options = try plan.runOptions(
            outputDirectory: ReportFolder.runDirectory(pointer: pointer, runId: runId), runId: runId)
        // With a common start, the shards (and the room serve runs for them) share one run id,
        // derived from what makes them one run; the folder keeps an id of its own.
        if let startAt = options.startAt ?? scenario.run.startAt {
            options.runId = RunId.shared(
                scenarioSHA256: scenario.sourceSHA256, seed: options.seed ?? scenario.seed, startAt: startAt)
        }
        var prepared: PreparedRun
        do {
            prepared = try PreparedRun(scenario: scenario, options: options)
        } catch {
            StandardError.print(CommandSupport.preflightMessage(scenario: scenario, error))
            throw ExitCode(RunExitStatus.invalidInput.rawValue)
        }
        for warning in ScenarioWarnings.lines(file: file, prepared: prepared) { StandardError.print(warning) }
        prepared = try await Self.checkRoomStart(prepared, ignoring: ignoreRoomStart, quiet: quiet)

        // Before the folder is taken and before signals stop a run: a SIGINT while waiting
        // ends the process with nothing written.
        if let startAt = prepared.scenario.run.startAt {
            try await Self.waitForCommonStart(startAt, shard: prepared.options.shard, quiet: quiet)
        }
        let status = RunProgress(planned: prepared.summary.visitorCount)
        // Bound before the folder is taken: an address in use ends the run with nothing written.
        let metricsSession = try metrics.session(for: prepared, progress: status)
        let folder = try CommandSupport.takeFolder(pointer, runId: runId, keep: keep)
        phase.start()
        metricsSession?.start()

        let progress =
            quiet || noProgress
            ? nil : ProgressDisplay(status: status, clock: prepared.clock, span: prepared.summary.span)
        progress?.start()

        var report: RunReport
        do {
            var logger = Logger(label: "queuesim.room")
            // The run reports what visitors saw; the server's own shutdown chatter is noise here.
            logger.logLevel = .critical
            report = try await prepared.execute(progress: status, stopSignal: stopSignal, roomLogger: logger)
        } catch let abort as RunAbort {
            progress?.stop()
            StandardError.print(
                "queuesim run: \(SecretRedaction.redact(abort.description))\(CommandSupport.clearAfterAbort(folder))")
            throw ExitCode(RunExitStatus.aborted.rawValue)
        } catch {
            progress?.stop()
            StandardError.print(
                "queuesim run: the run was aborted: \(CommandSupport.words(error))\(CommandSupport.clearAfterAbort(folder))"
            )
            throw ExitCode(RunExitStatus.aborted.rawValue)
        }
        progress?.stop()
        do {
            try folder.publish()
        } catch {
            StandardError.print(
                "queuesim run: the reports were written to \(folder.runDirectory) but \(CommandSupport.words(error))")
            throw ExitCode(RunExitStatus.aborted.rawValue)
        }
        report.directory = folder.pointer
        if let junit {
            try CommandSupport.writeJUnit(report, run: prepared.runDescription, to: junit, command: "run")
        }
        // --quiet keeps the verdict: a red CI job's log must say why.
        if !quiet || report.exitStatus != .success {
            print(RunSummaryScreen(report: report, run: prepared).text)
        }
        if let metricsSession {
            // The end screen reaches the terminal or the pipe before the push, whatever ends it.
            fflush(nil)  // every output stream: stdout is a C global Swift 6 will not touch
            let finish = { @Sendable [report, quiet] in
                await Self.finishMetrics(metricsSession, report: report, stopSignal: stopSignal, quiet: quiet)
            }
            if let signal = await metricsFinish.run(finish), report.exitStatus != .interrupted,
                report.exitStatus != .terminated
            {
                StandardError.print(Self.pushCancelledLine(signal, report: report))
                throw ExitCode(128 + signal)
            }
        }
        StandardError.print(ExitLine.text(command: "run", report: report))
        // Every report is written and closed, and every thread joined: the process ends here
        // rather than freeing the run's tables one by one on the way out (a run of 2,000 groups
        // spent some 10 ms on that, issue 51); the system takes the memory back at once.
        fflush(nil)
        Foundation.exit(report.exitStatus.rawValue)
    }

    /// The final push and the linger (`MetricsSession.finish`), said on stderr first; returns
    /// whether the push was cancelled (a signal during it).
    static func finishMetrics(
        _ session: MetricsSession, report: RunReport, stopSignal: RunStopSignal, quiet: Bool
    ) async -> Bool {
        if let port = session.port, !quiet, !stopSignal.wasInterrupted {
            StandardError.print(
                "queuesim run: serving the final metrics on port \(port) for the linger (Ctrl-C ends it)")
        }
        return await session.finish(metricsFile: Recorder.path(report.directory, Recorder.metricsFile)) {
            stopSignal.wasInterrupted
        }
    }

    /// The last line when a signal cancelled the metrics push of a run that had finished: the
    /// exit code is the signal's, and the line says what the written reports hold.
    static func pushCancelledLine(_ signal: Int32, report: RunReport) -> String {
        let verdict = ExitLine.verdict(
            report.exitStatus, thresholdCount: report.verdicts.count, isShard: report.shard != nil)
        return "queuesim run: INTERRUPTED (exit \(128 + signal)): \(MetricsFinish.name(signal)) cancelled the metrics "
            + "push after the run had finished; its reports in \(report.directory) say \(verdict)"
    }

    /// Sleeps until `startAt` (in slices, so a clock step is noticed); a process that is
    /// already late says by how much (run.json records the exact lag as `start_lag_ms`).
    static func waitForCommonStart(_ startAt: Date, shard: PlanShard, quiet: Bool) async throws {
        let who = shard.isWhole ? "queuesim run" : "queuesim run (shard \(shard))"
        let when = StartInstant.text(startAt)
        let early = startAt.timeIntervalSinceNow
        if early > 0 {
            if !quiet {
                StandardError.print("\(who): waiting for the common start \(when) (in \(Self.seconds(early)))")
            }
            while case let left = startAt.timeIntervalSinceNow, left > 0 {
                try await Task.sleep(for: .milliseconds(Int(min(left, 1) * 1000) + 1))
            }
        } else if -early >= 0.001 {
            StandardError.print(
                "\(who): started \(Self.seconds(-early)) after the common start \(when); its visitors keep their planned instants, so the first ones start late (start_ms after arrival_ms; run.json: start_lag_ms)"
            )
        }
    }

    private static func seconds(_ interval: TimeInterval) -> String {
        ThresholdTable.formatMilliseconds((interval * 1000).rounded())
    }
}

/// Whether the run has started (signals stop it) or is still loading (signals end the process).
final class RunPhase: Sendable {
    private let running = Mutex(false)
    var isRunning: Bool { running.withLock { $0 } }
    func start() { running.withLock { $0 = true } }
}
