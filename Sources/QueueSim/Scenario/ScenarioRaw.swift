/// The scenario file as written: `Decodable` over the YAML tree, every value optional and
/// positioned, so that `ScenarioValidator` can say exactly where a value is missing or wrong.
/// Values with units stay `YamlNode`s (a duration may be `30s` or `30`); the validator reads them.
/// The coding keys are `CaseIterable`, which makes the decoder report unknown keys.

struct RawScenario: Decodable {
    var version: YamlNode?
    var name: Positioned<String>?
    var seed: Positioned<UInt64>?
    var clock: Positioned<String>?
    var target: Positioned<RawTarget>?
    var client: Positioned<RawClient>?
    var arrivals: Positioned<RawArrivals>?
    var visitors: YamlList<Positioned<RawGroup>>?
    var waitingRoom: Positioned<RawWaitingRoom>?
    var run: Positioned<RawRun>?
    var thresholds: YamlList<YamlNode>?
    var reports: Positioned<RawReports>?
    var compare: YamlNode?
    /// `queuesim sweep`'s grid and goals (docs/sweep.md); read by `ScenarioValidator+Sweep`.
    var sweep: YamlNode?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case version, name, seed, clock, target, client, arrivals, visitors, waitingRoom, run, thresholds, reports
        case compare, sweep
    }

    /// Keys people write in the wrong section, and where they go.
    static let misplacedKeyHints: [String: String] = {
        // `clock` is a top-level key, though `seed` and `clock` read like run settings.
        var hints: [String: String] = [
            "groups": "`visitors` (the list of groups)", "dir": "`reports`",
            "clock": "the top level of the scenario (`clock: virtual`, beside `seed`)",
        ]
        let sections: [(String, [String])] = [
            ("`target`", RawTarget.CodingKeys.allCases.map(\.rawValue)),
            ("`client`", RawClient.CodingKeys.allCases.map(\.rawValue)),
            // A replay's generic words (`column`, `from`, …) hint nothing: elsewhere they mean other things.
            ("`arrivals`", ["process", "phases", "maxVisitors", "scale", "replay", "within", "timestamps"]),
            ("`waitingRoom`", RawWaitingRoom.CodingKeys.allCases.map(\.rawValue)),
            ("`run`", ["concurrency", "startAt"]),
            ("a phase of `arrivals.phases`", ["rate", "rampTo", "burst", "pause"]),
        ]
        for (section, keys) in sections {
            for key in keys where hints[key] == nil { hints[key] = section }
        }
        return hints
    }()
}

struct RawTarget: Decodable, Sendable {
    var customerId: Positioned<String>?
    var waitingRoomId: Positioned<String>?
    var waitingRoomDomain: Positioned<String>?
    var queuePathPrefix: Positioned<String>?
    var layoutName: Positioned<String>?
    var language: Positioned<String>?
    var endpoint: Positioned<String>?
    var protectedApi: Positioned<String>?
    var protectedApiEndpoint: Positioned<String>?
    var caFile: Positioned<String>?
    /// `{ host: base URL }`: read by the validator.
    var hosts: YamlNode?
    /// Whether the room is a test event (the Admin API's `IsTest`).
    var isTest: Positioned<Bool>?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case customerId, waitingRoomId, waitingRoomDomain, queuePathPrefix, layoutName, language, endpoint, protectedApi
        case protectedApiEndpoint, caFile, hosts, isTest
    }
}

struct RawClient: Decodable, Sendable {
    /// `ios`, or a mix `{ ios: 60%, android: 40% }`: read by the validator.
    var platform: YamlNode?
    var sdkVersion: Positioned<String>?
    var userAgent: Positioned<String>?
    var requestTimeout: YamlNode?
    var queuePageRetry: Positioned<String>?
    var pollInterval: YamlNode?
    var maxWait: YamlNode?
    var maxRestarts: Positioned<Int>?
    var connections: Positioned<String>?
    var sourceAddresses: Positioned<String>?
    /// `auto`, `h1` or `h2`.
    var http: Positioned<String>?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case platform, sdkVersion, userAgent, requestTimeout, queuePageRetry, pollInterval, maxWait, maxRestarts
        case connections, sourceAddresses, http
    }
}

struct RawArrivals: Decodable, Sendable {
    var process: Positioned<String>?
    var phases: YamlList<Positioned<RawPhase>>?
    var maxVisitors: Positioned<Int>?
    /// A number or a percentage (`1.5`, `150%`): read by the validator.
    var scale: YamlNode?
    /// `replay: FILE` and its options (ScenarioValidator+Replay.swift, docs/scenarios.md).
    var replay: Positioned<String>?
    var column: Positioned<String>?
    var per: Positioned<String>?
    var within: Positioned<String>?
    var speed: YamlNode?
    var from: YamlNode?
    var to: YamlNode?
    var timestamps: Positioned<String>?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case process, phases, maxVisitors, scale
        case replay, column, per, within, speed, from, to, timestamps
    }
}

struct RawPhase: Decodable, Sendable {
    var duration: YamlNode?
    var rate: YamlNode?
    var rampTo: YamlNode?
    var burst: Positioned<Int>?
    var pause: YamlNode?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case duration, rate, rampTo, burst, pause
    }
}

struct RawGroup: Decodable, Sendable {
    var name: Positioned<String>?
    var weight: Positioned<Double>?
    var flow: Positioned<String>?
    var enqueueKey: Positioned<RawVisitorValue>?
    var enqueueToken: Positioned<RawVisitorValue>?
    var inviteCode: Positioned<RawVisitorValue>?
    /// `ios`, or a mix `{ ios: 60%, android: 40% }`: read by the validator.
    var platform: YamlNode?
    var customerId: Positioned<String>?
    var waitingRoomId: Positioned<String>?
    var waitingRoomDomain: Positioned<String>?
    var queuePathPrefix: Positioned<String>?
    var layoutName: Positioned<String>?
    var language: Positioned<String>?
    var protectedApi: Positioned<String>?
    var connections: Positioned<String>?
    /// The app's own `User-Agent` on its protected-API calls.
    var apiUserAgent: Positioned<String>?
    /// Not allowed in a group; decoded only to say so plainly.
    var endpoint: YamlNode?
    /// Distributions and their blocks: read by the validator (ScenarioValidator+Behaviour).
    var patience: YamlNode?
    var comeback: YamlNode?
    var afterPass: YamlNode?
    /// `noShow: 5%`: the share whose turn goes unused whatever their wait.
    var noShow: YamlNode?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case name, weight, flow, enqueueKey, enqueueToken, inviteCode, platform, customerId, waitingRoomId
        case waitingRoomDomain, queuePathPrefix, layoutName, language, protectedApi, endpoint, connections
        case patience, comeback, afterPass, noShow, apiUserAgent
    }

    /// Only the keys a group has are decoded: asking each of 2,000 groups for all twenty-one
    /// through the standard library's container box was a fifth of loading such a scenario
    /// (issue 51). The switch is exhaustive, so a key added above cannot be left out here.
    /// Problems are reported in file order whatever order they are found in.
    init(from decoder: any Decoder) throws {
        let keyed = try decoder.container(keyedBy: CodingKeys.self)
        for key in keyed.allKeys {
            switch key {
            case .name: name = try keyed.decodeIfPresent(Positioned<String>.self, forKey: key)
            case .weight: weight = try keyed.decodeIfPresent(Positioned<Double>.self, forKey: key)
            case .flow: flow = try keyed.decodeIfPresent(Positioned<String>.self, forKey: key)
            case .enqueueKey: enqueueKey = try keyed.decodeIfPresent(Positioned<RawVisitorValue>.self, forKey: key)
            case .enqueueToken: enqueueToken = try keyed.decodeIfPresent(Positioned<RawVisitorValue>.self, forKey: key)
            case .inviteCode: inviteCode = try keyed.decodeIfPresent(Positioned<RawVisitorValue>.self, forKey: key)
            case .platform: platform = try keyed.decodeIfPresent(YamlNode.self, forKey: key)
            case .customerId: customerId = try keyed.decodeIfPresent(Positioned<String>.self, forKey: key)
            case .waitingRoomId: waitingRoomId = try keyed.decodeIfPresent(Positioned<String>.self, forKey: key)
            case .waitingRoomDomain:
                waitingRoomDomain = try keyed.decodeIfPresent(Positioned<String>.self, forKey: key)
            case .queuePathPrefix: queuePathPrefix = try keyed.decodeIfPresent(Positioned<String>.self, forKey: key)
            case .layoutName: layoutName = try keyed.decodeIfPresent(Positioned<String>.self, forKey: key)
            case .language: language = try keyed.decodeIfPresent(Positioned<String>.self, forKey: key)
            case .protectedApi: protectedApi = try keyed.decodeIfPresent(Positioned<String>.self, forKey: key)
            case .connections: connections = try keyed.decodeIfPresent(Positioned<String>.self, forKey: key)
            case .apiUserAgent: apiUserAgent = try keyed.decodeIfPresent(Positioned<String>.self, forKey: key)
            case .endpoint: endpoint = try keyed.decodeIfPresent(YamlNode.self, forKey: key)
            case .patience: patience = try keyed.decodeIfPresent(YamlNode.self, forKey: key)
            case .comeback: comeback = try keyed.decodeIfPresent(YamlNode.self, forKey: key)
            case .afterPass: afterPass = try keyed.decodeIfPresent(YamlNode.self, forKey: key)
            case .noShow: noShow = try keyed.decodeIfPresent(YamlNode.self, forKey: key)
            }
        }
    }
}

/// `enqueueKey: KEY` or `enqueueKey: { csv: FILE, column: NAME, order: … }`.
enum RawVisitorValue: Decodable, Sendable {
    case literal(String)
    case feeder(RawFeeder)

    init(from decoder: any Decoder) throws {
        guard let yaml = decoder as? YamlNodeDecoder else { throw YamlError("not YAML", at: nil) }
        switch yaml.node.content {
        case .scalar:
            // Through the decoder, so a tag is held to "text" (`enqueueKey: !!int 5` is refused).
            self = .literal(try decoder.singleValueContainer().decode(String.self))
        case .mapping:
            self = .feeder(try RawFeeder(from: decoder))
        case .sequence:
            throw YamlError(
                "expected a text value or { csv: FILE, column: NAME, order: unique|sequence|random|cycle } for \(yaml.pathDescription), found a list",
                at: yaml.node.mark)
        }
    }
}

struct RawFeeder: Decodable, Sendable {
    var csv: Positioned<String>?
    var column: Positioned<String>?
    var order: Positioned<String>?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case csv, column, order
    }
}

struct RawWaitingRoom: Decodable, Sendable {
    var mode: Positioned<String>?
    var eventStart: YamlNode?
    var outflow: YamlNode?
    var secretKey: Positioned<String>?
    var tokenValidity: YamlNode?
    var inviteOnly: Positioned<Bool>?
    var enqueueKeys: Positioned<RawFeeder>?
    var inviteCodes: YamlList<Positioned<String>>?
    var latency: Positioned<RawLatency>?
    var faults: YamlList<Positioned<RawFault>>?
    var abandonedTurns: Positioned<String>?
    var queueNumberValidity: YamlNode?
    var maxRedirectsPerQueueId: Positioned<Int>?
    var uniqueKeys: Positioned<Bool>?
    var safetyNet: Positioned<String>?
    var tls: Positioned<RawRoomTLS>?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case mode, eventStart, outflow, secretKey, tokenValidity, inviteOnly, enqueueKeys, inviteCodes, latency, faults
        case abandonedTurns, queueNumberValidity, maxRedirectsPerQueueId, uniqueKeys, safetyNet, tls
    }
}

/// `waitingRoom.tls: { cert: FILE, key: FILE }`: the wall-clock room serves HTTPS.
struct RawRoomTLS: Decodable, Sendable {
    var cert: Positioned<String>?
    var key: Positioned<String>?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case cert, key
    }
}

struct RawLatency: Decodable, Sendable {
    var enqueue: YamlNode?
    var queuePage: YamlNode?
    var protectedApi: YamlNode?
    var jitter: YamlNode?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case enqueue, queuePage, protectedApi, jitter
    }
}

struct RawFault: Decodable, Sendable {
    var from: YamlNode?
    var to: YamlNode?
    var endpoint: Positioned<String>?
    var rate: YamlNode?
    var status: Positioned<Int>?
    var mode: Positioned<String>?
    var latency: YamlNode?
    var jitter: YamlNode?
    var reset: Positioned<Bool>?
    var timeout: Positioned<Bool>?
    var malformed: Positioned<Bool>?
    var navigate: Positioned<String>?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case from, to, endpoint, rate, status, mode, latency, jitter, reset, timeout, malformed, navigate
    }
}

struct RawRun: Decodable, Sendable {
    var concurrency: Positioned<Int>?
    var duration: YamlNode?
    var startAt: Positioned<String>?
    var maxRequestRate: YamlNode?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case concurrency, duration, startAt, maxRequestRate
    }
}

struct RawReports: Decodable, Sendable {
    var dir: Positioned<String>?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case dir
    }
}
