import Foundation
import QueueClientCore

/// `shard.json`: what a sharded run (`--shard K/N`) writes besides the usual report files, so
/// that `queuesim merge` can put the shards together exactly.
///
/// - the plan's fingerprint: scenario SHA-256, seed, `--visitors`, N and K (merge refuses
///   shards whose plans differ);
/// - the timing histograms per group × outcome × metric (`EncodedHistogram`): the shard's own
///   account of its rows, which `merge` rebuilds the histograms from and checks these against
///   (`ShardCheck`), so an edited file is refused rather than believed;
/// - the requests sent per second (the one timeline count not in `visitors.csv`);
/// - what the merged `run.json` and `report.html` need: groups, thresholds, marks, times.
struct ShardReport: Codable, Equatable {
    static let file = "shard.json"
    static let formatName = "queuesim-shard/1"

    struct HistogramEntry: Codable, Equatable {
        var group: String
        var outcome: String
        /// `enqueue_ms`, `wait_ms` or `total_ms` (the visitors.csv column it summarises).
        var metric: String
        /// Visitors in this group with this outcome (also those the metric does not hold).
        var visitors: Int
        var histogram: EncodedHistogram
    }

    var format: String
    var scenario: String
    var scenarioFile: String
    var scenarioSHA256: String
    var seed: UInt64
    var clock: String
    var endpoint: String
    var visitorsOverride: Int?
    var plannedVisitors: Int
    var shardIndex: Int
    var shardCount: Int
    var shardVisitors: Int
    var recordedVisitors: Int
    var startAt: String?
    var startLagMs: Int64?
    var startedAt: String
    var endedAt: String
    var durationMs: Int64
    var interrupted: Bool
    var terminated: Bool
    var groupNames: [String]
    var thresholds: [String]
    var timelineMarks: [TimelineMark]
    var generator: GeneratorReport?
    var histograms: [HistogramEntry]
    /// `[second, requests]` for every second with a request, ascending.
    var requestsPerSecond: [[Int]]
    /// What the shard rehearsed (issue 29), for the merged report; absent in older files.
    var configuration: RunConfiguration?
    /// The shard's answers by endpoint and its connections (issue 29), for the merged report.
    var answers: ShardAnswers?
    /// The scenario's `compare:` rules, carried into the merged run.json (absent: none).
    var compareRules: [String]?
    /// `[second, calls]` of the after-pass calls (`afterPass`) for every second with one;
    /// absent when no group makes them (and in files from before).
    var afterPassRequestsPerSecond: [[Int]]?
    /// The guardrail that stopped this shard (issue 31; absent: none did, or an older file).
    var guardrailStop: ShardGuardrailStop?

    enum CodingKeys: String, CodingKey {
        case format, scenario, seed, clock, endpoint, thresholds, generator, histograms, interrupted, terminated
        case scenarioFile = "scenario_file"
        case scenarioSHA256 = "scenario_sha256"
        case visitorsOverride = "visitors_override"
        case plannedVisitors = "planned_visitors"
        case shardIndex = "shard_index"
        case shardCount = "shard_count"
        case shardVisitors = "shard_visitors"
        case recordedVisitors = "recorded_visitors"
        case startAt = "start_at"
        case startLagMs = "start_lag_ms"
        case startedAt = "started_at"
        case endedAt = "ended_at"
        case durationMs = "duration_ms"
        case groupNames = "group_names"
        case timelineMarks = "timeline_marks"
        case requestsPerSecond = "requests_per_second"
        case configuration, answers
        case compareRules = "compare_rules"
        case afterPassRequestsPerSecond = "after_pass_requests_per_second"
        case guardrailStop = "guardrail_stop"
    }

    static let metrics: [(name: String, timing: Threshold.Timing)] = [
        ("enqueue_ms", .enqueue), ("wait_ms", .wait), ("total_ms", .total), ("connect_ms", .connect),
        ("tls_ms", .tls),
    ]

    init(
        description: RunDescription, identity: ShardIdentity, ending: RunEnding, statistics: OutcomeStatistics,
        requestsPerSecond: [[Int]], answers: ShardAnswers? = nil, afterPassRequestsPerSecond: [[Int]]? = nil
    ) {
        format = Self.formatName
        scenario = description.scenarioName
        scenarioFile = description.scenarioPath
        scenarioSHA256 = description.scenarioSHA256
        seed = description.seed
        clock = description.clock.rawValue
        endpoint = description.endpoint
        visitorsOverride = identity.visitorsOverride
        plannedVisitors = identity.plannedVisitors
        shardIndex = identity.shard.index
        shardCount = identity.shard.count
        shardVisitors = identity.shardVisitors
        recordedVisitors = statistics.visitorCount
        startAt = description.startAt.map(StartInstant.text)
        startLagMs = ending.startLag.map(\.wholeMilliseconds)
        startedAt = RunManifest.timestamp(ending.startedAt)
        endedAt = RunManifest.timestamp(ending.endedAt)
        durationMs = max(0, ending.end.milliseconds)
        interrupted = ending.interrupted
        terminated = ending.terminated
        groupNames = statistics.groupNames
        thresholds = description.thresholds.map(\.source)
        timelineMarks = description.timelineMarks
        generator = ending.generator
        histograms = statistics.occupiedCells.flatMap { group, outcome, cell in
            Self.metrics.map { metric in
                HistogramEntry(
                    group: group, outcome: outcome.rawValue, metric: metric.name, visitors: cell.count,
                    histogram: EncodedHistogram(cell.timings.histogram(for: metric.timing)))
            }
        }
        self.requestsPerSecond = requestsPerSecond
        configuration = description.configuration
        compareRules = description.compareRules.isEmpty ? nil : description.compareRules
        guardrailStop = ending.guardrails?.trip.map(ShardGuardrailStop.init)
        self.answers = answers
        self.afterPassRequestsPerSecond = afterPassRequestsPerSecond
    }

    /// Compact, keys sorted: `JSONEncoder`'s bytes (`SortedJSONEncoder`), read back by
    /// `JSONDecoder` into this same type (`ShardSet`).
    func json() throws -> String {
        String(decoding: try SortedJSONEncoder(pretty: false).encode(self), as: UTF8.self) + "\n"
    }
}

/// A shard's guardrail stop in `shard.json`: `queuesim merge` stops the merged run's verdict
/// there too (exit 4), at the earliest shard's stop.
struct ShardGuardrailStop: Codable, Equatable {
    var threshold: String
    var fromSeconds: Int
    var toSeconds: Int
    var measured: Double
    var atMs: Int64

    init(_ trip: GuardrailTrip) {
        threshold = trip.threshold
        fromSeconds = trip.window.from
        toSeconds = trip.window.to
        measured = trip.window.measured
        atMs = trip.at.milliseconds
    }

    var trip: GuardrailTrip {
        GuardrailTrip(
            thresholdIndex: -1, threshold: threshold,
            window: JudgedWindow(from: fromSeconds, to: toSeconds, measured: measured),
            at: .origin + .milliseconds(atMs))
    }

    enum CodingKeys: String, CodingKey {
        case threshold, measured
        case fromSeconds = "from_s"
        case toSeconds = "to_s"
        case atMs = "at_ms"
    }
}
