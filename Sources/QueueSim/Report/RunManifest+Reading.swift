import Foundation
import QueueClientCore

/// `run.json` read back (`queuesim report`, `compare`, `merge`): the same type and keys that
/// wrote it. A file queuesim wrote always has every key; one from an older queuesim may lack
/// those added since, and a reader gets what it assumed of them before there was one type:
/// nothing recorded (empty lists, no configuration), `endpoint` "not recorded", the version
/// "unknown", not interrupted.
extension RunManifest {
    /// The keys every `run.json` ever written has: without one, a file is not a `run.json`.
    static let alwaysWritten: [CodingKeys] = [
        .scenario, .scenarioSHA256, .seed, .clock, .exitCode, .visitors, .outcomes,
    ]

    /// The keys a reader needs beyond `alwaysWritten` (`userInfo`), which it refuses a file without.
    static let requiredKeys = CodingUserInfoKey(rawValue: "queuesim.run.json.required")!

    /// `run.json`'s bytes read as this type; throws `DecodingError` (a key missing: `keyNotFound`)
    /// for a file that is not one, or lacks one of `requiring`.
    static func read(_ bytes: Data, requiring: [CodingKeys] = []) throws -> RunManifest {
        let decoder = JSONDecoder()
        decoder.userInfo[requiredKeys] = requiring
        return try decoder.decode(RunManifest.self, from: bytes)
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let required = Self.alwaysWritten + (decoder.userInfo[Self.requiredKeys] as? [CodingKeys] ?? [])
        for key in required where !container.contains(key) {
            throw DecodingError.keyNotFound(
                key, .init(codingPath: decoder.codingPath, debugDescription: "run.json has no \(key.stringValue)"))
        }
        func read<T: Decodable>(_ key: CodingKeys, or fallback: T) throws -> T {
            try container.decodeIfPresent(T.self, forKey: key) ?? fallback
        }
        scenario = try container.decode(String.self, forKey: .scenario)
        scenarioFile = try read(.scenarioFile, or: "")
        scenarioSHA256 = try container.decode(String.self, forKey: .scenarioSHA256)
        seed = try container.decode(UInt64.self, forKey: .seed)
        clock = try container.decode(String.self, forKey: .clock)
        queuesimVersion = try read(.queuesimVersion, or: "unknown")
        startedAt = try read(.startedAt, or: "")
        endedAt = try read(.endedAt, or: "")
        durationMs = try read(.durationMs, or: 0)
        visitors = try container.decode(Int.self, forKey: .visitors)
        outcomes = try container.decode([String: Int].self, forKey: .outcomes)
        requests = try read(.requests, or: 0)
        thresholds = try read(.thresholds, or: [])
        exitCode = try container.decode(Int32.self, forKey: .exitCode)
        interrupted = try read(.interrupted, or: false)
        generator = try container.decodeIfPresent(GeneratorReport.self, forKey: .generator)
        runId = try container.decodeIfPresent(String.self, forKey: .runId)
        files = try read(.files, or: [:])
        incomplete = try container.decodeIfPresent(String.self, forKey: .incomplete)
        endpoint = try read(.endpoint, or: "not recorded")
        timelineMarks = try read(.timelineMarks, or: [])
        commandLine = try read(.commandLine, or: [])
        overrides = try read(.overrides, or: [:])
        groups = try read(.groups, or: [])
        overall = try read(.overall, or: GroupFigures(name: SummaryReport.allGroups, cells: [:]))
        set = try read(.set, or: [])
        try readRest(container)
    }

    /// The keys added after the first `run.json`s: each absent in an older file.
    private mutating func readRest(_ container: KeyedDecodingContainer<CodingKeys>) throws {
        startAt = try container.decodeIfPresent(String.self, forKey: .startAt)
        startLagMs = try container.decodeIfPresent(Int64.self, forKey: .startLagMs)
        shard = try container.decodeIfPresent(ShardEntry.self, forKey: .shard)
        shards = try container.decodeIfPresent(MergedShards.self, forKey: .shards)
        mergedFrom = try container.decodeIfPresent(Int.self, forKey: .mergedFrom)
        configuration = try container.decodeIfPresent(RunConfiguration.self, forKey: .configuration)
        requestsByEndpoint = try container.decodeIfPresent([EndpointFigures].self, forKey: .requestsByEndpoint)
        queuePageLatency = try container.decodeIfPresent(QueuePageLatencyFigures.self, forKey: .queuePageLatency)
        compareRules = try container.decodeIfPresent([String].self, forKey: .compareRules)
        if container.contains(.abandonedShare) {
            var behaviour = BehaviourFigures()
            behaviour.abandonedShare = try container.decode(Double.self, forKey: .abandonedShare)
            behaviour.comebacks = try container.decodeIfPresent(Int.self, forKey: .comebacks) ?? 0
            if let afterPass = try container.decodeIfPresent(AfterPassEntry.self, forKey: .afterPass) {
                behaviour.afterPassRequests = afterPass.requests
                behaviour.afterPassPeakPerSecond = afterPass.peakRequestsPerSecond
                behaviour.afterPassPeakSecond = afterPass.peakSecond
            } else {
                behaviour.afterPassCounted = false
            }
            self.behaviour = behaviour
        }
        // `null` (a windowed threshold, no stop) is not the key's absence (no windowed threshold).
        if container.contains(.guardrailStop) {
            guardrailStop = .some(try container.decodeIfPresent(GuardrailStopEntry.self, forKey: .guardrailStop))
        }
        maxRequestRate = try container.decodeIfPresent(Double.self, forKey: .maxRequestRate)
        room = try container.decodeIfPresent(RoomRuleCounts.self, forKey: .room)
        queuedOnScriptPage = try container.decodeIfPresent(Int.self, forKey: .queuedOnScriptPage)
    }

    /// `after_pass` read back: `BehaviourFigures` writes it (its keys).
    private struct AfterPassEntry: Decodable {
        var requests: Int
        var peakRequestsPerSecond: Int
        var peakSecond: Int?

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: BehaviourFigures.CodingKeys.self)
            requests = try container.decode(Int.self, forKey: .requests)
            peakRequestsPerSecond = try container.decode(Int.self, forKey: .peakRequestsPerSecond)
            peakSecond = try container.decodeIfPresent(Int.self, forKey: .peakSecond)
        }
    }

    /// The whole run's guardrail stop, whether `null` or absent.
    var guardrailStopped: GuardrailStopEntry? { guardrailStop ?? nil }
}

/// `run.json`'s `room` read back, by the keys `RoomRuleCounts` writes.
extension RoomRuleCounts: Decodable {
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            turnsExpired: try container.decode(Int.self, forKey: .turnsExpired),
            exceededMaxRedirectCount: try container.decode(Int.self, forKey: .exceededMaxRedirectCount),
            reusedKeysRefused: try container.decode(Int.self, forKey: .reusedKeysRefused))
    }
}
