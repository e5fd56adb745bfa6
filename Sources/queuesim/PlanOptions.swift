import ArgumentParser
import QueueClientCore
import QueueSim

/// The options that change what a run plans, shared by `run` and `validate`, so that
/// `validate` with the same options checks exactly what `run` will check before it starts.
struct PlanOptions: ParsableArguments {
    @Option(help: "Seed for every random choice (default: the scenario's seed).")
    var seed: UInt64?

    @Option(help: "wall or virtual (default: the scenario's clock).")
    var clock: ClockKind?

    @Option(help: "Hard stop, e.g. 90s or 10m, at most 8784h (default: the scenario's run.duration).")
    var duration: DurationArgument?

    @Option(help: "Scale the arrival plan to exactly N visitors (0 to 100000000), keeping its shape.")
    var visitors: Int?

    @Option(help: "Most visitors in flight at once on the wall clock (default: run.concurrency).")
    var concurrency: Int?

    @Option(
        name: .customLong("max-memory"),
        help:
            "Refuse a run whose memory estimate is over this, e.g. 4GiB or 512MiB (default: 80% of the memory available)."
    )
    var maxMemory: MemoryBudget?

    func validate() throws {
        if let visitors, !(0...ScenarioLimits.mostVisitors).contains(visitors) {
            throw ValidationError("--visitors must be from 0 to \(ScenarioLimits.mostVisitorsText) (got \(visitors))")
        }
        if let concurrency, !(1...ScenarioLimits.mostConcurrency).contains(concurrency) {
            throw ValidationError(
                "--concurrency must be from 1 to \(ScenarioLimits.mostConcurrency) (got \(concurrency))")
        }
    }

    /// The overrides as the run applies them; `outputDirectory` is `run`'s own.
    func runOptions(outputDirectory: String? = nil, runId: String = RunId.make()) -> RunOptions {
        var options = RunOptions(
            outputDirectory: outputDirectory, seed: seed, clock: clock, duration: duration?.value,
            visitors: visitors, concurrency: concurrency, runId: runId, maxMemory: maxMemory)
        options.commandLine = ["queuesim"] + CommandLine.arguments.dropFirst()
        return options
    }
}

extension ClockKind: ExpressibleByArgument {}

/// `--duration`: the scenario's duration units, and the scenario's range.
struct DurationArgument: ExpressibleByArgument {
    let value: Duration

    init?(argument: String) {
        guard let parsed = ScenarioUnits.duration(argument), parsed > .zero,
            parsed <= ScenarioLimits.longestDuration
        else { return nil }
        value = parsed
    }

    static var defaultCompletionKind: CompletionKind { .default }
}

extension MemoryBudget: ExpressibleByArgument {
    public init?(argument: String) {
        guard let parsed = MemoryBudget.parse(argument) else { return nil }
        self = parsed
    }
}
