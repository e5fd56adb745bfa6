import ArgumentParser
import Foundation
import QueueSim

struct SweepCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sweep",
        abstract: "Vary scenario values over a grid on the virtual clock and answer the question.",
        usage: "queuesim sweep [<options>] <file>",
        discussion: """
            Runs every point of a grid (every combination of the varied keys' values) with
            every seed, on the virtual clock against the embedded room, several at a time,
            and answers: the lowest (--minimize) or highest (--maximize) value of a varied key
            at which every seed meets every goal, at every value of the other varied keys.
            Then it refines that answer by bisection between the last value that failed and
            the first that passed, each probe with every seed, to within --precision; says
            how much larger a crowd the first passing value survives (arrivals.scale raised
            until a goal fails) and the fluid model's own value of the key.
            The grid, seeds and goals come from the scenario's `sweep:` block and/or the
            options below (docs/sweep.md). Without goals, the scenario's thresholds are the
            goals (said on stderr); with neither, the sweep is refused (exit 2). A wait at
            client.maxWait is a lower bound: it never meets a goal `<` (the point is marked
            capped). A rate without a unit is per second: warned, and written `/s`.

            Writes sweep.csv (a row per run, then a row per point: mean and 95 % interval over
            seeds), sweep.json (with "answer") and sweep.html into a new set, DIR.runs/<id>/,
            and points the output folder DIR (a link) at it once all are written, so DIR
            shows one sweep's files, never some of two; prints the answer in one sentence.

            --check-theory holds every point to the theory (docs/waiting-room.md, "The
            oracles": the fluid queue; F̄(W(t)) with wasted turns; the Liu–Whitt head-of-line
            wait with skipped turns; comebacks): a point whose mean is more than 2 points off
            its oracle on a share, or 5 % on a wait (both capped at maxWait), fails (exit 1);
            sweep.csv gains oracle_<figure> columns and `theory` (pass/fail) on point rows,
            sweep.json each point's oracle values and differences. --theory-turns
            wasted|skipped checks against that rule's oracle instead of the scenario's
            abandonedTurns: with patience, the other rule's oracle fails (exit 1).

            Examples:
              queuesim sweep scenarios/what-outflow.yaml
              queuesim sweep scenarios/what-outflow.yaml --seeds 5 --jobs 2
              queuesim sweep launch.yaml \\
                  --vary waitingRoom.outflow=600/min:3000/min:300/min \\
                  --vary arrivals.scale=1,1.5,2 --goal 'wait.p95 < 10m' \\
                  --minimize waitingRoom.outflow
              queuesim sweep patience.yaml --check-theory --theory-turns wasted

            Exit codes:
              0    some value of the key meets every goal (the answer is printed)
              1    no point meets every goal (the files are written; "answer": null),
                   or with --check-theory a point is off its theory
              2    invalid scenario, grid or command line, no goal and no thresholds,
                   or --out in use by another sweep or run (nothing run)
              3    --out cannot be written (found before the first run), a run failed,
                   or the files could not be written (DIR keeps the previous sweep)
              130  interrupted by SIGINT (finished points kept, the files written)
            """
    )

    @Argument(help: "The scenario file (YAML).")
    var file: String

    @Option(
        help: ArgumentHelp(
            "Vary a scenario value: KEY=FROM:TO:STEP or KEY=A,B,C in the key's units, e.g. waitingRoom.outflow=600/min:3000/min:300/min (repeatable; replaces the sweep block's values of KEY).",
            valueName: "KEY=VALUES"))
    var vary: [String] = []

    @Option(
        help: ArgumentHelp(
            "Seeds per point: the scenario's seed, seed+1, … (default: sweep.seeds, else 1).", valueName: "N"))
    var seeds: Int?

    @Option(
        help: ArgumentHelp(
            "A goal in the thresholds' grammar, e.g. 'wait.p95 < 10m' (repeatable; added to sweep.goals; without any, the scenario's thresholds).",
            valueName: "EXPR"))
    var goal: [String] = []

    @Option(
        help: ArgumentHelp("Answer with the lowest value of this varied key that meets every goal.", valueName: "KEY"))
    var minimize: String?

    @Option(
        help: ArgumentHelp("Answer with the highest value of this varied key that meets every goal.", valueName: "KEY"))
    var maximize: String?

    @Option(
        help: ArgumentHelp(
            "How finely to bracket the answer: a value in the key's units (100/min, 5s) or a percentage (default: 1% of the answer, at least 1/min for a rate, 1s for a duration).",
            valueName: "VALUE"))
    var precision: String?

    @Option(
        name: .customLong("out"),
        help: ArgumentHelp("Output folder (default: the scenario's reports.dir followed by -sweep).", valueName: "DIR"))
    var outputDirectory: String?

    @Option(help: ArgumentHelp("Runs at once (default: the cores available).", valueName: "N"))
    var jobs: Int?

    @Flag(help: "Also write each run's own report folder, under DIR/points/.")
    var keepPoints = false

    @Option(
        name: .customLong("set"),
        help: ArgumentHelp(
            "Set a scenario value for every point, as `run --set` (repeatable).", valueName: "KEY=VALUE"))
    var scenarioValues: [String] = []

    @Option(
        name: .customLong("max-memory"),
        help: ArgumentHelp(
            "Memory the runs in flight may use together, e.g. 4GiB (default: 80% of the memory available).",
            valueName: "SIZE"))
    var maxMemory: MemoryBudget?

    @Flag(
        help:
            "Hold every point to the theory's oracle: more than 2 points off on a share or 5 % on a wait fails (exit 1)."
    )
    var checkTheory = false

    @Option(
        help: ArgumentHelp(
            "With --check-theory, hold every point to this turn rule's oracle instead of the scenario's waitingRoom.abandonedTurns: the other rule shows the check bite.",
            valueName: "wasted|skipped"))
    var theoryTurns: String?

    @Flag(help: "No progress line.")
    var noProgress = false

    func validate() throws {
        if let seeds, !(1...SweepSettings.mostSeeds).contains(seeds) {
            throw ValidationError("--seeds must be from 1 to \(SweepSettings.mostSeeds) (got \(seeds))")
        }
        if let jobs, !(1...1024).contains(jobs) { throw ValidationError("--jobs must be from 1 to 1024 (got \(jobs))") }
        if minimize != nil, maximize != nil { throw ValidationError("give --minimize or --maximize, not both") }
        _ = try theoryRule()
        _ = try commandLineSettings()
        _ = try overrides()
    }

    /// `--vary`, `--seeds`, `--goal`, `--minimize`/`--maximize` as a sweep block.
    func commandLineSettings() throws -> SweepSettings {
        var settings = SweepSettings(seeds: seeds)
        for argument in vary {
            guard let equals = argument.firstIndex(of: "="),
                case let key = String(argument[..<equals]), SweepCommand.isPath(key),
                let values = SweepValues.parseArgument(String(argument[argument.index(after: equals)...]))
            else {
                throw ValidationError(
                    "--vary \(argument): expected KEY=FROM:TO:STEP or KEY=A,B,C, e.g. --vary waitingRoom.outflow=600/min:3000/min:300/min"
                )
            }
            if settings.axes.contains(where: { $0.key == key }) {
                throw ValidationError("--vary \(argument): \(key) is varied twice")
            }
            switch values.values() {
            case .success(let list): settings.axes.append(SweepAxis(key: key, values: list))
            case .failure(let problem): throw ValidationError("--vary \(argument): \(problem)")
            }
        }
        for text in goal {
            switch ThresholdParser.parse(text) {
            case .success(let threshold): settings.goals.append(threshold)
            case .failure(let problem):
                throw ValidationError("--goal '\(text)': at character \(problem.offset + 1): \(problem.message)")
            }
        }
        if let minimize { settings.objective = SweepObjective(direction: .minimize, key: minimize) }
        if let maximize { settings.objective = SweepObjective(direction: .maximize, key: maximize) }
        return settings
    }

    /// `--theory-turns` read: nil for the scenario's own rule; only with `--check-theory`.
    func theoryRule() throws -> AbandonedTurns? {
        guard let theoryTurns else { return nil }
        guard let rule = AbandonedTurns(rawValue: theoryTurns) else {
            throw ValidationError("--theory-turns \(theoryTurns): expected wasted or skipped")
        }
        guard checkTheory else {
            throw ValidationError("--theory-turns \(theoryTurns) needs --check-theory (it chooses the oracle checked)")
        }
        return rule
    }

    func overrides() throws -> [ScenarioOverride] {
        try scenarioValues.map { argument in
            do {
                return try ScenarioOverride(argument: argument)
            } catch {
                throw ValidationError("\(error)")
            }
        }
    }

    static func isPath(_ text: String) -> Bool {
        !text.isEmpty && !text.split(separator: ".", omittingEmptySubsequences: false).contains(where: \.isEmpty)
            && !text.contains(" ")
    }

    func run() async throws {
        let stopSignal = RunStopSignal()
        let phase = RunPhase()
        let signals = SignalTrap(
            signals: [SIGINT, SIGTERM],
            numberedHandler: { signal in
                guard phase.isRunning else {
                    StandardError.print("queuesim sweep: stopped before the sweep started; nothing ran")
                    Foundation.exit(128 + signal)
                }
                stopSignal.stop(.interrupted, signal: signal)
            })
        defer { signals.restore() }

        let overrides = try overrides()
        let base = try loadScenarioOrExit(file, overrides: overrides)
        // Read again for the points: the loader just read and checked it (size, regular file).
        guard let data = FileManager.default.contents(atPath: file) else {
            StandardError.print("\(file): the file could not be read again")
            throw ExitCode(RunExitStatus.invalidInput.rawValue)
        }
        let settings = try commandLineSettings()
        let plan: SweepPlan
        do {
            plan = try SweepPlan(
                file: file, bytes: Array(data), base: base, overrides: overrides, commandLine: settings)
        } catch {
            StandardError.print(error.description)
            throw ExitCode(RunExitStatus.invalidInput.rawValue)
        }
        let precisionSetting = try Self.precision(precision, plan: plan)
        for note in plan.notes { StandardError.print(note) }
        let budget = maxMemory ?? .machineDefault()
        let wantedJobs = jobs ?? ProcessInfo.processInfo.activeProcessorCount
        let fitted: SweepMemory.Fit
        do {
            fitted = try SweepMemory.fit(plan: plan, jobs: wantedJobs, budget: budget)
        } catch {
            StandardError.print(error.description)
            throw ExitCode(RunExitStatus.invalidInput.rawValue)
        }
        if let note = fitted.note { StandardError.print("queuesim sweep: \(note)") }

        let folder = try Self.takeFolder(outputDirectory ?? (base.reportsDirectory + "-sweep"))
        let directory = folder.pointer
        phase.start()
        let runner = SweepRunner(
            plan: plan, jobs: fitted.jobs, stopSignal: stopSignal,
            keepPointsDirectory: keepPoints ? folder.setDirectory : nil, maxMemory: budget)
        StandardError.print(
            "queuesim sweep: \(plan.points.count) point(s) × \(plan.seeds.count) seed(s) = \(plan.runCount) run(s), \(fitted.jobs) at a time, into \(directory)"
        )
        let progress =
            noProgress ? nil : SweepProgressLine(runner: runner, total: plan.runCount, seeds: plan.seeds.count)
        progress?.start()
        let runs: [SweepRunResult?]
        do {
            runs = try await Self.onItsOwnThread { try runner.run() }
        } catch {
            progress?.stop()
            folder.removeSetIfEmpty()
            StandardError.print(
                "queuesim sweep: \(CommandSupport.words(error)); \(directory) still shows the previous sweep")
            throw ExitCode(RunExitStatus.aborted.rawValue)
        }
        progress?.stop()

        let results = SweepResults(plan: plan, runs: runs)
        let answer = SweepAnswer.find(in: results)
        var refined: SweepRefinedAnswer?
        if let answer, stopSignal.reason == nil {
            let refiner = SweepRefiner(
                plan: plan, loader: SweepPointLoader(file: file, bytes: Array(data), overrides: overrides),
                precision: precisionSetting, jobs: wantedJobs, stopSignal: stopSignal, budget: budget)
            refined = try await Self.onItsOwnThread { [noProgress] in
                var refiner = refiner
                if !noProgress { refiner.report = { StandardError.print("queuesim sweep: \($0)") } }
                return refiner.refine(results: results, answer: answer)
            }
        }
        let sentence = SweepText.sentence(results: results, answer: answer) + (refined?.clause ?? "")
        let interrupted = stopSignal.reason != nil
        let theory = checkTheory ? SweepTheory(results: results, turns: try theoryRule()) : nil
        for line in theory?.lines ?? [] { StandardError.print("queuesim sweep: \(line)") }
        let status: RunExitStatus =
            interrupted
            ? (stopSignal.wasTerminated ? .terminated : .interrupted)
            : answer == nil || theory?.passed == false ? .thresholdFailed : .success
        let fluid = SweepFiles.fluid(plan)
        do {
            try folder.publish([
                (SweepFiles.csvFile, SweepFiles.csv(results, fluid: fluid, theory: theory)),
                (
                    SweepFiles.jsonFile,
                    try SweepFiles.json(
                        results, answer: answer, sentence: sentence, exitCode: status.rawValue, fluid: fluid,
                        refined: refined?.json ?? SweepRefinedAnswer.absentJSON, theory: theory)
                ),
                (
                    SweepFiles.pageFile,
                    SweepPage(results: results, answer: answer, sentence: sentence, fluid: fluid).render()
                ),
            ])
        } catch {
            StandardError.print(
                "queuesim sweep: the files could not be written to \(folder.setDirectory): \(CommandSupport.words(error)); \(directory) still shows the previous sweep (this one's set is marked \(SweepFolder.incompleteMarker))"
            )
            throw ExitCode(RunExitStatus.aborted.rawValue)
        }
        print(sentence)
        let ending =
            interrupted
            ? "stopped: \(results.finishedRuns) of \(plan.runCount) runs finished and are in the files" : "done"
        StandardError.print("queuesim sweep: \(ending); \(directory)/\(SweepFiles.pageFile) (exit \(status.rawValue))")
        if status != .success { throw ExitCode(status.rawValue) }
    }

    /// `--precision` against the key it brackets: exit 2 for a value that does not suit the key,
    /// or without a key to bracket.
    static func precision(_ text: String?, plan: SweepPlan) throws -> SweepPrecision {
        guard let text else { return .standard }
        guard let objective = plan.objective, let axis = plan.axes.first(where: { $0.key == objective.key }) else {
            StandardError.print("--precision \(text): there is no answer to bracket without --minimize or --maximize")
            throw ExitCode(RunExitStatus.invalidInput.rawValue)
        }
        switch SweepPrecision.parse(text, values: axis.values) {
        case .success(let precision): return precision
        case .failure(let problem):
            StandardError.print("--precision \(text): \(problem)")
            throw ExitCode(RunExitStatus.invalidInput.rawValue)
        }
    }

    /// Takes `--out` for the sweep's whole time, before anything runs: exit 2 when another
    /// sweep or run holds it or it is not a sweep's to replace, 3 when the file system refuses
    /// (read-only, no permission), as `run` does.
    static func takeFolder(_ pointer: String) throws -> SweepFolder {
        do {
            return try SweepFolder(pointer: pointer)
        } catch {
            StandardError.print("queuesim sweep: \(error)")
            throw ExitCode(error.isUsageError ? RunExitStatus.invalidInput.rawValue : RunExitStatus.aborted.rawValue)
        }
    }

    /// What `validate` adds for a scenario with a `sweep:` block that varies something: each
    /// value loaded as the sweep will load it (a value that does not suit its key, at its
    /// position in the block). Nil when there is nothing to say.
    static func sweepBlockProblems(file: String, scenario: Scenario, overrides: [ScenarioOverride]) -> String? {
        guard let sweep = scenario.sweep, !sweep.axes.isEmpty else { return nil }
        guard let data = FileManager.default.contents(atPath: file) else { return nil }
        do {
            _ = try SweepPlan(
                file: file, bytes: Array(data), base: scenario, overrides: overrides, needsQuestion: false)
            return nil
        } catch {
            return error.description
        }
    }

    /// Blocking work on a thread of its own, awaited without holding a cooperative thread (the
    /// progress line and the signal handling need one).
    static func onItsOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread { continuation.resume(with: Result { try body() }) }
            thread.name = "queuesim-sweep"
            thread.start()
        }
    }
}
