import Foundation
import QueueClientCore

/// What a run was, as the reports need it: known before the first visitor arrives.
package struct RunDescription: Sendable, Equatable {
    package var scenarioName: String
    /// The scenario file as given on the command line, and the SHA-256 (hex) of its bytes.
    package var scenarioPath: String
    package var scenarioSHA256: String
    package var seed: UInt64
    package var clock: ClockKind
    /// Visitor groups in scenario order: the order of `summary.csv`.
    package var groupNames: [String]
    package var thresholds: [Threshold]
    /// Names this run's set of report files (`run.json`'s `run_id`; see `ReportFolder`).
    package var runId: String
    /// `embedded` or the base URL the visitors were connected to (never credentials: the
    /// scenario's endpoint is scheme, host and port only).
    package var endpoint: String
    /// The event start, mode changes and fault windows, for the report's charts.
    package var timelineMarks: [TimelineMark]
    /// `run.json`'s `command_line` (redacted) and `overrides` (option → value as given).
    package var commandLine: [String] = []
    package var overrides: [String: String] = [:]
    /// A sharded run's part of the plan (`--shard K/N`); nil for a whole run.
    package var shard: ShardIdentity?
    /// The common start the run waited for (`--start-at`, `run.startAt`).
    package var startAt: Date?
    /// The cap on waits (`client.maxWait`, or a shorter `run.duration`): percentiles at it are
    /// marked censored. Nil when unknown (a merged or rebuilt report).
    package var waitCap: MeasurementCap?
    /// What was rehearsed (`run.json`'s `configuration`, the page's "Rehearsed configuration").
    /// Nil when unknown (a merged report, or one rebuilt from an older `run.json`).
    package var configuration: RunConfiguration?
    /// The scenario's `compare:` rules as written (`wait.p95: +10%`), for `queuesim compare`.
    package var compareRules: [String] = []
    /// `run.maxRequestRate`, per second: the cap on what the generator sent.
    package var maxRequestRate: Double?

    package init(
        scenarioName: String, scenarioPath: String, scenarioSHA256: String, seed: UInt64,
        clock: ClockKind, groupNames: [String], thresholds: [Threshold], runId: String = RunId.make(),
        endpoint: String = "embedded", timelineMarks: [TimelineMark] = []
    ) {
        self.runId = runId
        self.endpoint = endpoint
        self.timelineMarks = timelineMarks
        self.scenarioName = scenarioName
        self.scenarioPath = scenarioPath
        self.scenarioSHA256 = scenarioSHA256
        self.seed = seed
        self.clock = clock
        self.groupNames = groupNames
        self.thresholds = thresholds
    }

    /// The description of `scenario`, run on `clock` (the scenario's own unless overridden).
    package init(scenario: Scenario, clock: ClockKind? = nil, runId: String = RunId.make()) {
        self.init(
            scenarioName: scenario.name, scenarioPath: scenario.sourcePath,
            scenarioSHA256: scenario.sourceSHA256, seed: scenario.seed, clock: clock ?? scenario.clock,
            groupNames: scenario.groups.map(\.name), thresholds: scenario.thresholds, runId: runId,
            endpoint: scenario.target.endpointDescription, timelineMarks: TimelineMark.marks(of: scenario))
        compareRules = scenario.compareRules.map(\.source)
        maxRequestRate = scenario.run.maxRequestRate
        waitCap = .wait(maxWait: scenario.client.maxWait, runDuration: scenario.run.duration)
    }
}

/// How a run ended, as the runner saw it.
package struct RunEnding: Sendable, Equatable {
    /// The end on the run's own clock (virtual time in virtual runs): the length of the timeline.
    package var end: RunInstant
    /// Wall-clock start and end, for `run.json` only: the two fields that may differ between two
    /// identical virtual runs.
    package var startedAt: Date
    package var endedAt: Date
    /// Stopped by SIGINT/SIGTERM (not by `run.duration`, which is a normal end).
    package var interrupted: Bool
    /// How the load generator kept up (wall-clock runs only).
    package var generator: GeneratorReport?
    /// Why the reports do not cover the whole run (a run recovered after a crash), or nil.
    package var incomplete: String?
    /// The interruption was SIGTERM's (exit 143 rather than 130).
    package var terminated: Bool
    /// With a common start (`--start-at`, `run.startAt`): how late this process was ready for
    /// it (zero when it waited for it).
    package var startLag: Duration?
    /// The windowed thresholds' verdicts and the guardrail that stopped the run, if any; nil
    /// when the scenario has no windowed threshold (or a merged or recovered report).
    package var guardrails: GuardrailResults? = nil
    /// What the embedded room's Queue-it rules did (run.json's `room`); nil against a real endpoint.
    package var room: RoomRuleCounts? = nil

    package init(
        end: RunInstant, startedAt: Date, endedAt: Date, interrupted: Bool = false, terminated: Bool = false,
        generator: GeneratorReport? = nil, incomplete: String? = nil, startLag: Duration? = nil,
        guardrails: GuardrailResults? = nil
    ) {
        self.guardrails = guardrails
        self.startLag = startLag
        self.incomplete = incomplete
        self.terminated = terminated
        self.end = end
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.interrupted = interrupted
        self.generator = generator
    }
}
