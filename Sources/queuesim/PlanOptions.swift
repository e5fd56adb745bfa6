import ArgumentParser
import Foundation
import QueueClientCore
import QueueSim

/// The options that change what a run plans, shared by `run` and `validate`, so that
/// `validate` with the same options checks exactly what `run` will check before it starts.
struct PlanOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Seed for every random choice (default: the scenario's seed).", valueName: "N"))
    var seed: UInt64?

    @Option(
        help:
            "The clock to run on: wall, or virtual (simulated time, embedded room only); default: the scenario's top-level `clock:` key."
    )
    var clock: ClockKind?

    @Option(
        help: ArgumentHelp(
            "Hard stop, e.g. 90s or 10m, at most 8784h (default: the scenario's run.duration).",
            valueName: "DURATION"))
    var duration: DurationArgument?

    @Option(
        help: ArgumentHelp(
            "Scale the arrival plan to exactly N visitors (0 to 100000000), keeping its shape.", valueName: "N"))
    var visitors: Int?

    @Option(
        help: ArgumentHelp(
            "Most visitors in flight at once on the wall clock (default: run.concurrency).", valueName: "N"))
    var concurrency: Int?

    @Option(
        name: .customLong("max-memory"),
        help: ArgumentHelp(
            "Refuse a run whose memory estimate is over this, e.g. 4GiB or 512MiB (default: 80% of the memory available).",
            valueName: "SIZE"))
    var maxMemory: MemoryBudget?

    @Option(
        help: ArgumentHelp(
            "Run only shard K of N (0-based K) of the plan: the visitors whose number is K modulo N. auto/N reads K from JOB_COMPLETION_INDEX (a Kubernetes Indexed Job).",
            valueName: "K/N"))
    var shard: String?

    @Option(
        name: .customLong("start-at"),
        help: ArgumentHelp(
            "Wait for this instant and make it the run's second 0, e.g. 2026-12-01T18:00:00Z, so shards line up (default: run.startAt).",
            valueName: "TIME"))
    var startAt: String?

    @Option(
        help: ArgumentHelp(
            "Send the visitors to this base URL instead of target.endpoint, e.g. http://127.0.0.1:8080 (a queuesim serve of the same scenario); the scenario's waitingRoom: is then not used.",
            valueName: "URL"))
    var endpoint: String?

    @Option(
        name: .customLong("set"),
        help: ArgumentHelp(
            "Set a scenario value by its path, e.g. waitingRoom.outflow=1200/min or arrivals.scale=2 (repeatable; the value is YAML, checked as the file's own).",
            valueName: "KEY=VALUE"))
    var scenarioValues: [String] = []

    /// The `--set` arguments, in the order given (a later one sees the earlier ones).
    var scenarioOverrides: [ScenarioOverride] {
        scenarioValues.compactMap { try? ScenarioOverride(argument: $0) }
    }

    func validate() throws {
        for argument in scenarioValues {
            do {
                _ = try ScenarioOverride(argument: argument)
            } catch {
                throw ValidationError(error.description)
            }
        }
        if let shard, case .failure(let failure) = PlanShard.parse(shard, environment: [:]),
            !shard.hasPrefix("auto/")
        {
            throw ValidationError(failure.description)
        }
        if let startAt, StartInstant.parse(startAt) == nil {
            throw ValidationError(
                "--start-at takes an ISO 8601 time with its zone, e.g. 2026-12-01T18:00:00Z (got \"\(startAt)\")")
        }
        if let endpoint, case .failure(let problem) = Endpoint.parseBaseURL(endpoint) {
            throw ValidationError(
                "--endpoint takes a base URL such as https://host or http://127.0.0.1:8080 (scheme, host and port only)\(problem.detail)"
            )
        }
        if let visitors, !(0...ScenarioLimits.mostVisitors).contains(visitors) {
            throw ValidationError("--visitors must be from 0 to \(ScenarioLimits.mostVisitorsText) (got \(visitors))")
        }
        if let concurrency, !(1...ScenarioLimits.mostConcurrency).contains(concurrency) {
            throw ValidationError(
                "--concurrency must be from 1 to \(ScenarioLimits.mostConcurrency) (got \(concurrency))")
        }
    }

    /// The overrides as the run applies them; `outputDirectory` is `run`'s own. Throws a
    /// `ValidationError` (exit 2) when `--shard auto/N` finds no usable `JOB_COMPLETION_INDEX`.
    func runOptions(outputDirectory: String? = nil, runId: String = RunId.make()) throws -> RunOptions {
        var options = RunOptions(
            outputDirectory: outputDirectory, seed: seed, clock: clock, duration: duration?.value,
            visitors: visitors, concurrency: concurrency, runId: runId, maxMemory: maxMemory)
        options.commandLine = ScenarioOverride.redactingCommandLine(["queuesim"] + CommandLine.arguments.dropFirst())
        if let shard {
            switch PlanShard.parse(shard, environment: ProcessInfo.processInfo.environment) {
            case .success(let parsed): options.shard = parsed
            case .failure(let failure): throw ValidationError(failure.description)
            }
        }
        options.startAt = startAt.flatMap(StartInstant.parse)
        options.endpoint = endpoint.flatMap { try? Endpoint.parseBaseURL($0).get() }
        return options
    }

    /// The one line `run` and `validate` print when `--endpoint` replaces an embedded room:
    /// the scenario's `waitingRoom:` is not this process's room (the URL's room decides).
    func endpointNote(for scenario: Scenario, command: String) -> String? {
        guard let endpoint, scenario.target.endpoint == .embedded else { return nil }
        return
            "queuesim \(command): --endpoint \(endpoint): the scenario's waitingRoom: is ignored; the room at that URL decides (serve it with `queuesim serve \(scenario.sourcePath)`)"
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
