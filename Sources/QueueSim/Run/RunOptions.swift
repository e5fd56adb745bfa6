import Foundation
import QueueClientCore

/// What the command line may override in a scenario for one run (`queuesim run --seed …`).
package struct RunOptions: Sendable, Equatable {
    /// `--out DIR`: the report directory (`PreparedRun.reportsDirectory`).
    package var outputDirectory: String?
    package var seed: UInt64?
    package var clock: ClockKind?
    /// `--duration`: the hard stop (`run.duration`).
    package var duration: Duration?
    /// `--visitors N`: scale the arrival plan to exactly N visitors, keeping its shape.
    package var visitors: Int?
    package var concurrency: Int?
    /// `--shard K/N`: run only this share of the plan (wall clock, shared endpoint).
    package var shard: PlanShard = .whole
    /// `--start-at`: the common start of the shards (overrides `run.startAt`).
    package var startAt: Date?
    /// `--endpoint URL`: a base URL that replaces `target.endpoint`. The scenario's own room
    /// (`waitingRoom:`) is then not this run's: the room at the URL decides, typically a
    /// `queuesim serve` of the same scenario file, so one file serves and shards unchanged.
    package var endpoint: Endpoint?
    /// The run's id (`run.json`'s `run_id`); a fresh one when not given.
    package var runId: String
    /// `--max-memory`: nil uses `MemoryBudget.machineDefault()`.
    package var maxMemory: MemoryBudget?
    /// The command line as typed (run.json's `command_line`; secrets redacted there).
    package var commandLine: [String] = []

    /// The overrides given, by option name, for `run.json`'s `overrides`.
    package var overrideDescriptions: [String: String] {
        var overrides: [String: String] = [:]
        if let seed { overrides["seed"] = String(seed) }
        if let clock { overrides["clock"] = clock.rawValue }
        if let duration { overrides["duration"] = ScenarioUnits.describe(duration) }
        if let visitors { overrides["visitors"] = String(visitors) }
        if let concurrency { overrides["concurrency"] = String(concurrency) }
        if let maxMemory { overrides["max_memory"] = MemoryBudget.describe(maxMemory.bytes) }
        if !shard.isWhole { overrides["shard"] = shard.description }
        if let startAt { overrides["start_at"] = StartInstant.text(startAt) }
        if let endpoint { overrides["endpoint"] = Target.describe(endpoint) }
        return overrides
    }

    package init(
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

    /// The scenario as this run sees it. The output directory is not part of it: it is the
    /// run's (`PreparedRun.reportsDirectory`).
    package func applied(to scenario: Scenario) -> Scenario {
        var copy = scenario
        if let seed { copy.seed = seed }
        if let clock { copy.clock = clock }
        if let duration { copy.run.duration = duration }
        if let concurrency { copy.run.concurrency = concurrency }
        if let startAt { copy.run.startAt = startAt }
        if let endpoint, case .baseURL = endpoint {
            copy.target.endpoint = endpoint
            // The embedded room's settings describe a room this run does not start.
            copy.waitingRoom = nil
        }
        return copy
    }
}
