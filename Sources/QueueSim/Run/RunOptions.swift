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
    /// The run's id (`run.json`'s `run_id`); a fresh one when not given.
    public var runId: String
    /// `--max-memory`: nil uses `MemoryBudget.machineDefault()`.
    public var maxMemory: MemoryBudget?

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
        return copy
    }
}
