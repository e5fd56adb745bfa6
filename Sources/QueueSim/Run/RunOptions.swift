import Foundation
import QueueClientCore

/// What the command line may override in a scenario for one run (`queuesim run --seed …`).
public struct RunOptions: Sendable, Equatable {
    /// `--out DIR`: the report directory.
    public var outputDirectory: String?
    public var seed: UInt64?
    public var clock: ClockKind?
    /// `--duration`: the hard stop (`run.duration`).
    public var duration: Duration?
    /// `--visitors N`: scale the arrival plan to exactly N visitors, keeping its shape.
    public var visitors: Int?
    public var concurrency: Int?
    /// `--shard K/N`: run only this share of the plan (wall clock, shared endpoint).
    public var shard: PlanShard = .whole
    /// `--start-at`: the common start of the shards (overrides `run.startAt`).
    public var startAt: Date?
    /// The run's id (`run.json`'s `run_id`); a fresh one when not given.
    public var runId: String
    /// `--max-memory`: nil uses `MemoryBudget.machineDefault()`.
    public var maxMemory: MemoryBudget?
    /// The command line as typed (run.json's `command_line`; secrets redacted there).
    public var commandLine: [String] = []

    /// The overrides given, by option name, for `run.json`'s `overrides`.
    public var overrideDescriptions: [String: String] {
        var overrides: [String: String] = [:]
        if let seed { overrides["seed"] = String(seed) }
        if let clock { overrides["clock"] = clock.rawValue }
        if let duration { overrides["duration"] = ScenarioUnits.describe(duration) }
        if let visitors { overrides["visitors"] = String(visitors) }
        if let concurrency { overrides["concurrency"] = String(concurrency) }
        if let maxMemory { overrides["max_memory"] = MemoryBudget.describe(maxMemory.bytes) }
        if !shard.isWhole { overrides["shard"] = shard.description }
        if let startAt { overrides["start_at"] = StartInstant.text(startAt) }
        return overrides
    }

    public init(
        outputDirectory: String? = nil, seed: UInt64? = nil, clock: ClockKind? = nil, duration: Duration? = nil,
        visitors: Int? = nil, concurrency: Int? = nil, runId: String = RunId.make(), maxMemory: MemoryBudget? = nil
    ) {
        self.maxMemory = maxMemory
        self.runId = runId
        self.outputDirectory = outputDirectory
        self.seed = seed
        self.clock = clock
        self.duration = duration
        self.visitors = visitors
        self.concurrency = concurrency
    }

    /// The scenario as this run sees it.
    public func applied(to scenario: Scenario) -> Scenario {
        var copy = scenario
        if let outputDirectory { copy.reportsDirectory = outputDirectory }
        if let seed { copy.seed = seed }
        if let clock { copy.clock = clock }
        if let duration { copy.run.duration = duration }
        if let concurrency { copy.run.concurrency = concurrency }
        if let startAt { copy.run.startAt = startAt }
        return copy
    }
}
