import Foundation
import Histogram
import QueueClientCore

/// `run.json`: the one type that writes it (`Recorder`, `ShardMerge`, `ReportRecovery`) and
/// reads it back (`queuesim report`, `compare`, `merge`). Sorted keys, pretty-printed, so
/// identical runs give identical files apart from `run_id`, `started_at` and `ended_at`.
///
/// Read back, a file from an older queuesim may lack keys added since; `init(from:)` says what
/// a reader assumes for each (RunManifest+Reading.swift).
struct RunManifest: Codable {
    struct ThresholdEntry: Codable {
        var threshold: String
        var measured: Double?
        var passed: Bool
        /// The key whose cap the measured value sits at (`client.maxWait`): the real value is
        /// at least `measured`. Absent when the value is a measurement.
        var cappedBy: String? = nil
        /// Why the threshold was not judged (`interrupted`); `passed` is then false.
        var notJudged: String? = nil
        /// A windowed threshold's window (`over 30s`) and what its windows came to; absent for
        /// a threshold on the whole run.
        var window: WindowEntry? = nil

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(threshold, forKey: .threshold)
            // `null`, not a missing key, when there was no data: readers should not guess.
            try container.encode(measured, forKey: .measured)
            try container.encode(passed, forKey: .passed)
            try container.encodeIfPresent(cappedBy, forKey: .cappedBy)
            try container.encodeIfPresent(notJudged, forKey: .notJudged)
            try container.encodeIfPresent(window, forKey: .window)
        }

        enum CodingKeys: String, CodingKey {
            case threshold, measured, passed, window
            case cappedBy = "capped_by"
            case notJudged = "not_judged"
        }
    }

    var scenario: String
    var scenarioFile: String
    var scenarioSHA256: String
    var seed: UInt64
    var clock: String
    var queuesimVersion: String
    var startedAt: String
    var endedAt: String
    var durationMs: Int64
    var visitors: Int
    var outcomes: [String: Int]
    var requests: Int
    var thresholds: [ThresholdEntry]
    var exitCode: Int32
    var interrupted: Bool
    /// Wall-clock runs: the generator's own health (absent in virtual runs).
    var generator: GeneratorReport?
    /// Nil only in a file from before run ids.
    var runId: String?
    /// Size and SHA-256 of every other file of the set, so a reader can tell they belong together.
    var files: [String: WrittenFile]
    /// Present only on a recovered run: why rows may be missing.
    var incomplete: String?
    var endpoint: String
    var timelineMarks: [TimelineMark]
    var commandLine: [String]
    var overrides: [String: String]
    /// Per group in scenario order, and over every visitor: counts and timing percentiles.
    var groups: [GroupFigures]
    var overall: GroupFigures
    /// The common start (`--start-at`, `run.startAt`) and how late this process was for it.
    var startAt: String?
    var startLagMs: Int64?
    /// A shard's run: its part of the plan (`--shard K/N`).
    var shard: ShardEntry?
    /// A merged run (`queuesim merge`): which shards it holds and which are missing.
    var shards: MergedShards?
    /// A merged run: how many shards' reports it was made from (`shards.count` is N).
    var mergedFrom: Int?
    /// What was rehearsed: room, groups, feeders, arrivals, overrides (issue 29).
    var configuration: RunConfiguration?
    /// The `--set KEY=VALUE` overrides applied to the scenario file (redacted): when not empty,
    /// `scenario_sha256` is the file's, not what ran.
    var set: [String]
    /// Answers by endpoint and status (nil in a recovered report: they died with the process).
    var requestsByEndpoint: [EndpointFigures]?
    /// The queue page's answer times over the run, as the page draws them.
    var queuePageLatency: QueuePageLatencyFigures?
    /// The scenario's `compare:` block (absent when it has none), so a folder carries its rules.
    var compareRules: [String]?
    /// `after_pass`, `abandoned_share`, `comebacks` (issue 30; zeros without behaviours; nil
    /// in merged and recovered reports, which do not rebuild them).
    var behaviour: BehaviourFigures?
    /// Present when the scenario has a windowed threshold: the guardrail that stopped the run,
    /// or null when none did.
    var guardrailStop: GuardrailStopEntry??
    /// `run.maxRequestRate` per second, when set.
    var maxRequestRate: Double?
    /// The embedded room's lost turns and refusals (docs/waiting-room.md); absent otherwise.
    var room: RoomRuleCounts?
    /// `queued` visitors left on a queue page that runs its own script (a real Queue-it page,
    /// which queuesim does not run); absent when none were.
    var queuedOnScriptPage: Int?
    /// Members rendered ahead of the rest (`renderLargeMembers`); not a key of the file.
    var renderedMembers: RenderedMembers? = nil

    struct ShardEntry: Codable, Equatable {
        var index: Int
        var count: Int
        var visitors: Int
        var plannedVisitors: Int

        enum CodingKeys: String, CodingKey {
            case index, count, visitors
            case plannedVisitors = "planned_visitors"
        }
    }

    struct MergedShards: Codable, Equatable {
        var count: Int
        /// 0-based shard numbers, as `--shard K/N` names them.
        var merged: [Int]
        var missing: [Int]
        /// Each merged shard's own start, and how late it was for the common start.
        var starts: [ShardStart]

        enum CodingKeys: String, CodingKey {
            case count, merged, missing, starts
        }

        init(count: Int, merged: [Int], missing: [Int], starts: [ShardStart]) {
            self.count = count
            self.merged = merged
            self.missing = missing
            self.starts = starts
        }

        /// Only `count` is needed to call a run a merge; the lists are empty when absent.
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            count = try container.decode(Int.self, forKey: .count)
            merged = try container.decodeIfPresent([Int].self, forKey: .merged) ?? []
            missing = try container.decodeIfPresent([Int].self, forKey: .missing) ?? []
            starts = try container.decodeIfPresent([ShardStart].self, forKey: .starts) ?? []
        }
    }

    struct ShardStart: Codable, Equatable {
        var index: Int
        var startedAt: String
        var startLagMs: Int64?
        /// The shard's generator: seconds it fell behind (its `run.json`'s `generator`).
        var saturatedSeconds: Int?

        enum CodingKeys: String, CodingKey {
            case index
            case startedAt = "started_at"
            case startLagMs = "start_lag_ms"
            case saturatedSeconds = "saturated_seconds"
        }
    }

    struct WrittenFile: Codable, Equatable {
        var bytes: Int
        var sha256: String
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case scenario
        case scenarioFile = "scenario_file"
        case scenarioSHA256 = "scenario_sha256"
        case seed, clock
        case queuesimVersion = "queuesim_version"
        case startedAt = "started_at"
        case endedAt = "ended_at"
        case durationMs = "duration_ms"
        case visitors, outcomes, requests, thresholds
        case exitCode = "exit_code"
        case interrupted, generator, files, incomplete, endpoint, overrides, groups, overall
        case runId = "run_id"
        case timelineMarks = "timeline_marks"
        case commandLine = "command_line"
        case startAt = "start_at"
        case startLagMs = "start_lag_ms"
        case shard, shards
        case mergedFrom = "merged_from"
        case configuration
        case requestsByEndpoint = "requests_by_endpoint"
        case queuePageLatency = "queue_page_latency_ms"
        case compareRules = "compare_rules"
        case set
        case afterPass = "after_pass"
        case abandonedShare = "abandoned_share"
        case comebacks
        case guardrailStop = "guardrail_stop"
        case maxRequestRate = "max_request_rate_per_second"
        case room
        case queuedOnScriptPage = "queued_on_script_page"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(scenario, forKey: .scenario)
        try container.encode(scenarioFile, forKey: .scenarioFile)
        try container.encode(scenarioSHA256, forKey: .scenarioSHA256)
        try container.encode(seed, forKey: .seed)
        try container.encode(clock, forKey: .clock)
        try container.encode(queuesimVersion, forKey: .queuesimVersion)
        try container.encode(startedAt, forKey: .startedAt)
        try container.encode(endedAt, forKey: .endedAt)
        try container.encode(durationMs, forKey: .durationMs)
        try container.encode(visitors, forKey: .visitors)
        try container.encode(outcomes, forKey: .outcomes)
        try container.encode(requests, forKey: .requests)
        try container.encode(thresholds, forKey: .thresholds)
        try container.encode(exitCode, forKey: .exitCode)
        try container.encode(interrupted, forKey: .interrupted)
        try container.encodeIfPresent(generator, forKey: .generator)
        try container.encode(runId, forKey: .runId)
        if renderedMembers?.filesLater == true {
            // A byte no JSON text holds (a string escapes it): `renderedAroundFiles` splits there.
            try container.encode(Rendered(value: files, bytes: [0]), forKey: .files)
        } else {
            try container.encode(files, forKey: .files)
        }
        try container.encodeIfPresent(incomplete, forKey: .incomplete)
        try container.encode(endpoint, forKey: .endpoint)
        try container.encode(timelineMarks, forKey: .timelineMarks)
        try container.encode(commandLine, forKey: .commandLine)
        try container.encode(overrides, forKey: .overrides)
        // Straight to bytes (RunManifest+GroupJSON.swift): the same text, a fraction of the cost.
        if let renderedMembers {
            try container.encode(Rendered(value: groups, bytes: renderedMembers.groups), forKey: .groups)
            try container.encode(Rendered(value: overall, bytes: renderedMembers.overall), forKey: .overall)
        } else {
            try container.encode(Self.groupsEncoding(groups), forKey: .groups)
            try container.encode(Self.groupEncoding(overall), forKey: .overall)
        }
        try container.encodeIfPresent(startAt, forKey: .startAt)
        try container.encodeIfPresent(startLagMs, forKey: .startLagMs)
        try container.encodeIfPresent(shard, forKey: .shard)
        try container.encodeIfPresent(shards, forKey: .shards)
        try container.encodeIfPresent(mergedFrom, forKey: .mergedFrom)
        if let configuration, let rendered = renderedMembers?.configuration {
            try container.encode(Rendered(value: configuration, bytes: rendered), forKey: .configuration)
        } else {
            try container.encodeIfPresent(configuration, forKey: .configuration)
        }
        try container.encodeIfPresent(requestsByEndpoint, forKey: .requestsByEndpoint)
        try container.encodeIfPresent(queuePageLatency, forKey: .queuePageLatency)
        try container.encodeIfPresent(compareRules, forKey: .compareRules)
        try container.encode(set, forKey: .set)
        if let behaviour {
            try container.encode(behaviour.afterPassCounted ? behaviour : nil, forKey: .afterPass)
            try container.encode(behaviour.abandonedShare, forKey: .abandonedShare)
            try container.encode(behaviour.comebacks, forKey: .comebacks)
        }
        if let guardrailStop { try container.encode(guardrailStop, forKey: .guardrailStop) }
        try container.encodeIfPresent(maxRequestRate, forKey: .maxRequestRate)
        try container.encodeIfPresent(room, forKey: .room)
        try container.encodeIfPresent(queuedOnScriptPage, forKey: .queuedOnScriptPage)
    }

    init(
        description: RunDescription, ending: RunEnding, visitors: Int, outcomes: [VisitorOutcome: Int],
        requests: Int, verdicts: [ThresholdVerdict], exitStatus: RunExitStatus, files: [String: WrittenFile],
        statistics: OutcomeStatistics
    ) {
        commandLine = description.commandLine
        overrides = description.overrides
        configuration = description.configuration
        compareRules = description.compareRules.isEmpty ? nil : description.compareRules
        set = description.configuration?.set ?? []
        (groups, overall) = GroupFigures.of(statistics, waitCap: description.waitCap)
        runId = description.runId
        endpoint = description.endpoint
        timelineMarks = description.timelineMarks
        self.files = files
        incomplete = ending.incomplete
        scenario = description.scenarioName
        scenarioFile = description.scenarioPath
        scenarioSHA256 = description.scenarioSHA256
        seed = description.seed
        clock = description.clock.rawValue
        queuesimVersion = QueueSimVersion.current
        startedAt = Self.timestamp(ending.startedAt)
        endedAt = Self.timestamp(ending.endedAt)
        durationMs = max(0, ending.end.milliseconds)
        self.visitors = visitors
        // Every outcome word, zeros included, so readers need not know which are missing.
        self.outcomes = Dictionary(
            uniqueKeysWithValues: VisitorOutcome.allCases.map { ($0.rawValue, outcomes[$0] ?? 0) })
        self.requests = requests
        thresholds = verdicts.map {
            ThresholdEntry(
                threshold: $0.threshold.source, measured: $0.measured, passed: $0.passed,
                cappedBy: $0.capped?.source, notJudged: $0.notJudged,
                window: $0.threshold.window.map { [windows = $0.windows] in WindowEntry($0, windows) })
        }
        if description.thresholds.contains(where: { $0.window != nil }) {
            guardrailStop = .some(
                ending.guardrails?.trip.map {
                    GuardrailStopEntry(
                        threshold: $0.threshold, window: JudgedWindowEntry($0.window), atMs: $0.at.milliseconds)
                })
        }
        maxRequestRate = description.maxRequestRate
        room = ending.room
        exitCode = exitStatus.rawValue
        interrupted = ending.interrupted
        generator = ending.generator
        startAt = description.startAt.map(StartInstant.text)
        startLagMs = ending.startLag.map(\.wholeMilliseconds)
        shard = description.shard.map {
            ShardEntry(
                index: $0.shard.index, count: $0.shard.count, visitors: $0.shardVisitors,
                plannedVisitors: $0.plannedVisitors)
        }
    }

    func json() throws -> String {
        String(decoding: try jsonBytes(), as: UTF8.self)
    }

    /// The file's bytes, as `json()`'s text: written as they are (a copy of run.json as a text,
    /// and another back to bytes, were a tenth of the end of a run of 2,000 groups).
    func jsonBytes() throws -> [UInt8] {
        var bytes = try SortedJSONEncoder(pretty: true).encode(self)
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }

    /// ISO 8601 in UTC with milliseconds, e.g. `2025-03-01T12:00:00.250Z`.
    static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: date)
    }
}
