import Foundation
import QueueClientCore

/// What was rehearsed, as it ran: the scenario after defaults, command-line overrides and
/// `${NAME}` expansion. `run.json`'s `configuration` and the top of `report.html`, so nine
/// reports of an outflow search can be told apart without their folder names.
///
/// Never a credential: the room's secret key, literal enqueue keys, tokens and invite codes are
/// `<redacted>`, feeders are named by file and column (never a value), and every free text that
/// could echo one (a URL, the command line) goes through `SecretRedaction`.
package struct RunConfiguration: Sendable, Equatable, Codable {
    package var target: TargetEntry
    /// The embedded room's settings; nil against a real endpoint (queuesim does not know them).
    package var room: RoomEntry?
    package var groups: [GroupEntry]
    /// Every CSV file the run reads, by path and column, with who reads it.
    package var feeders: [FeederEntry]
    package var arrivals: ArrivalsEntry
    package var run: RunEntry
    /// The command-line options that overrode the scenario (as `run.json`'s `overrides`).
    package var overrides: [String: String]
    /// The scenario's `${NAME}` references: which key took its value from the environment and
    /// which from the reference's default.
    package var environment: [EnvironmentEntry]
    /// The `--set KEY=VALUE` overrides applied to the scenario file, in order, credentials
    /// `<redacted>` (`ScenarioOverride.recorded`). Nil in a `run.json` from before `--set`.
    package var set: [String]?
    /// What a run against a base URL learnt of the room's second 0 (`RoomStartCheck`); nil
    /// for the embedded room and in reports from before the check.
    package var roomCheck: RoomCheckEntry?

    package struct TargetEntry: Sendable, Equatable, Codable {
        var customerId: String
        var waitingRoomId: String
        var waitingRoomDomain: String?
        var endpoint: String
        var protectedApi: String?
        var protectedApiEndpoint: String?
        var caFile: String?

        enum CodingKeys: String, CodingKey {
            case endpoint
            case customerId = "customer_id"
            case waitingRoomId = "waiting_room_id"
            case waitingRoomDomain = "waiting_room_domain"
            case protectedApi = "protected_api"
            case protectedApiEndpoint = "protected_api_endpoint"
            case caFile = "ca_file"
        }
    }

    package struct RoomEntry: Sendable, Equatable, Codable {
        var mode: String
        /// Queue-it's Max Outflow is per minute; the model keeps a per-second rate.
        var outflowPerMinute: Double
        var eventStartMs: Int64
        var tokenValidityMs: Int64
        /// Always `<redacted>`; `secret_key_is_default` says whether it is the public `dev-secret`.
        var secretKey: String
        var secretKeyIsDefault: Bool
        var inviteOnly: Bool
        var inviteCodes: Int
        var latencyMs: [String: Int64]
        var faults: [FaultEntry]
        /// Every rate of the outflow from the run's start, in time order (one for a plain rate);
        /// nil in a `run.json` from before scheduled outflows.
        var outflowSchedule: [OutflowStepEntry]?
        /// `waitingRoom.abandonedTurns` (absent in reports written before it existed).
        var abandonedTurns: String?
        /// The rules imported from a Queue-it event (docs/waiting-room.md), each present only
        /// where the scenario sets it away from Queue-it's default: how long a queue number stays
        /// valid once its turn came (absent: for ever), the redirects one queue id may have
        /// (absent: 3), whether an enqueue key admits one enqueue (absent: no), and the
        /// SafetyNet variant (absent: the room never runs in safetynet mode).
        var queueNumberValidityMinutes: Double? = nil
        var maxRedirectsPerQueueId: Int? = nil
        var uniqueKeys: Bool? = nil
        var safetyNet: String? = nil

        enum CodingKeys: String, CodingKey {
            case mode, faults
            case outflowSchedule = "outflow_schedule"
            case abandonedTurns = "abandoned_turns"
            case queueNumberValidityMinutes = "queue_number_validity_minutes"
            case maxRedirectsPerQueueId = "max_redirects_per_queue_id"
            case uniqueKeys = "unique_keys"
            case safetyNet = "safety_net"
            case outflowPerMinute = "outflow_per_minute"
            case eventStartMs = "event_start_ms"
            case tokenValidityMs = "token_validity_ms"
            case secretKey = "secret_key"
            case secretKeyIsDefault = "secret_key_is_default"
            case inviteOnly = "invite_only"
            case inviteCodes = "invite_codes"
            case latencyMs = "latency_ms"
        }
    }

    package struct OutflowStepEntry: Sendable, Equatable, Codable {
        var atMs: Int64
        var perMinute: Double

        enum CodingKeys: String, CodingKey {
            case atMs = "at_ms"
            case perMinute = "per_minute"
        }
    }

    package struct FaultEntry: Sendable, Equatable, Codable {
        var fromMs: Int64
        var toMs: Int64?
        var endpoint: String
        var rate: Double
        /// The fault in words, as the charts' marks say it.
        var summary: String

        enum CodingKeys: String, CodingKey {
            case endpoint, rate, summary
            case fromMs = "from_ms"
            case toMs = "to_ms"
        }
    }

    package struct GroupEntry: Sendable, Equatable, Codable {
        var name: String
        var weight: Double
        /// The group's share of the visitors: its weight over all weights.
        var share: Double
        var flow: String
        var platform: String
        var connections: String
        var sdkVersion: String
        var userAgent: String
        var requestTimeoutMs: Int64
        var pollIntervalMs: Int64
        var maxWaitMs: Int64
        var maxRestarts: Int
        var queuePageRetry: String
        /// `<redacted>` for a literal, `csv FILE column NAME (order)` for a feeder.
        var enqueueKey: String?
        var enqueueToken: String?
        var inviteCode: String?
        /// The `target:` keys this group overrides, with their values.
        var targetOverrides: [String: String]
        /// `patience`, `comeback`, `afterPass` in words (absent when not set).
        var patience: String?
        var comeback: String?
        var afterPass: String?
        /// `noShow`: the share (0...1) of the group whose turn goes unused (absent when not set).
        var noShow: Double? = nil

        enum CodingKeys: String, CodingKey {
            case name, weight, share, flow, platform, connections
            case sdkVersion = "sdk_version"
            case userAgent = "user_agent"
            case requestTimeoutMs = "request_timeout_ms"
            case pollIntervalMs = "poll_interval_ms"
            case maxWaitMs = "max_wait_ms"
            case maxRestarts = "max_restarts"
            case queuePageRetry = "queue_page_retry"
            case enqueueKey = "enqueue_key"
            case enqueueToken = "enqueue_token"
            case inviteCode = "invite_code"
            case targetOverrides = "target_overrides"
            case patience, comeback
            case afterPass = "after_pass"
            case noShow = "no_show"
        }
    }

    package struct FeederEntry: Sendable, Equatable, Codable {
        var csv: String
        var column: String
        var order: String
        /// `group.enqueueKey`, `waitingRoom.enqueueKeys`, …
        var usedBy: [String]

        enum CodingKeys: String, CodingKey {
            case csv, column, order
            case usedBy = "used_by"
        }
    }

    package struct ArrivalsEntry: Sendable, Equatable, Codable {
        var process: String
        /// Each phase in words: `steady 5m at 10/s ramping to 50/s`, `burst 800`, `pause 30s`.
        var phases: [String]
        var maxVisitors: Int?
        /// The visitors the plan holds after `--visitors` and `maxVisitors` (the run's share
        /// in a shard).
        var plannedVisitors: Int?
        /// `arrivals.scale`, which `phases` and `max_visitors` are already multiplied by; nil in
        /// a `run.json` from before the key.
        var scale: Double?

        enum CodingKeys: String, CodingKey {
            case process, phases, scale
            case maxVisitors = "max_visitors"
            case plannedVisitors = "planned_visitors"
        }
    }

    package struct RunEntry: Sendable, Equatable, Codable {
        var clock: String
        var seed: UInt64
        var concurrency: Int
        var durationMs: Int64?
        var startAt: String?

        enum CodingKeys: String, CodingKey {
            case clock, seed, concurrency
            case durationMs = "duration_ms"
            case startAt = "start_at"
        }
    }

    package struct EnvironmentEntry: Sendable, Equatable, Codable {
        var variable: String
        /// The scenario key the reference sits in (`secretKey`), and its line in the file.
        var key: String
        var line: Int
        /// `environment` (the variable was set) or `default` (the reference's fallback).
        var from: String
    }

    enum CodingKeys: String, CodingKey {
        case target, room, groups, feeders, arrivals, run, overrides, environment, set
        case roomCheck = "room_check"
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(target, forKey: .target)
        // `null`, not a missing key: a real endpoint's room is unknown, not forgotten.
        try container.encode(room, forKey: .room)
        try container.encode(GroupEntriesEncoding(groups: groups), forKey: .groups)
        try container.encode(feeders, forKey: .feeders)
        try container.encode(arrivals, forKey: .arrivals)
        try container.encode(run, forKey: .run)
        try container.encode(overrides, forKey: .overrides)
        try container.encode(environment, forKey: .environment)
        try container.encode(set ?? [], forKey: .set)
        try container.encodeIfPresent(roomCheck, forKey: .roomCheck)
    }
}

extension RunConfiguration {
    /// The configuration of `scenario` as the run sees it (overrides applied).
    /// `environment`: the process environment, to tell a set variable from a used default.
    package init(
        scenario: Scenario, overrides: [String: String], plannedVisitors: Int?,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        let redact = SecretRedaction.redact
        target = TargetEntry(
            customerId: scenario.target.customerId, waitingRoomId: scenario.target.waitingRoomId,
            waitingRoomDomain: scenario.target.waitingRoomDomain, endpoint: scenario.target.endpointDescription,
            protectedApi: scenario.target.protectedApi.map(redact),
            protectedApiEndpoint: scenario.target.protectedApiEndpoint.map(Target.describe),
            caFile: scenario.target.caFile)
        room = scenario.waitingRoom.map { room in
            RoomEntry(
                mode: room.mode.rawValue, outflowPerMinute: room.outflowPerSecond * 60,
                eventStartMs: room.eventStart.wholeMilliseconds, tokenValidityMs: room.tokenValidity.wholeMilliseconds,
                secretKey: SecretRedaction.replacement,
                secretKeyIsDefault: room.secretKey == WaitingRoomSettings().secretKey, inviteOnly: room.inviteOnly,
                inviteCodes: room.inviteCodes.count,
                latencyMs: [
                    "enqueue": room.latency.enqueue.wholeMilliseconds,
                    "queue_page": room.latency.queuePage.wholeMilliseconds,
                    "protected_api": room.latency.protectedApi.wholeMilliseconds,
                    "jitter": room.latency.jitter.wholeMilliseconds,
                ],
                faults: room.faults.map { fault in
                    FaultEntry(
                        fromMs: fault.from.wholeMilliseconds, toMs: fault.to?.wholeMilliseconds,
                        endpoint: fault.endpoint.rawValue, rate: fault.rate, summary: fault.summary)
                },
                outflowSchedule: room.outflowSteps.map {
                    OutflowStepEntry(atMs: $0.at.wholeMilliseconds, perMinute: $0.perSecond * 60)
                }, abandonedTurns: room.abandonedTurns.rawValue,
                queueNumberValidityMinutes: room.queueNumberValidity.map { Double($0.wholeMilliseconds) / 60_000 },
                maxRedirectsPerQueueId: room.maxRedirectsPerQueueId == WaitingRoomSettings.defaultMaxRedirectsPerQueueId
                    ? nil : room.maxRedirectsPerQueueId,
                uniqueKeys: room.uniqueKeys ? true : nil,
                safetyNet: room.mode == .safetynet || room.faults.contains { $0.effect == .mode(.safetynet) }
                    ? room.safetyNet.rawValue : nil)
        }
        let totalWeight = scenario.groups.reduce(0) { $0 + $1.weight }
        groups = scenario.groups.map { group in
            // A group that mixes platforms: `ios 60%, android 40%` and each platform's SDK;
            // the other settings are its first platform's (docs/scenarios.md has the rest).
            let platforms = group.platforms(client: scenario.client)
            let client = scenario.client.resolved(for: platforms.shares[0].platform)
            return GroupEntry(
                name: group.name, weight: group.weight,
                share: totalWeight > 0 ? (group.weight / totalWeight * 10_000).rounded() / 10_000 : 0,
                flow: group.flow.rawValue, platform: platforms.description,
                connections: (group.connections ?? scenario.client.connections).rawValue,
                sdkVersion: platforms.shares.map { scenario.client.resolved(for: $0.platform).sdkVersion }.joined(
                    separator: " / "),
                userAgent: client.userAgent,
                requestTimeoutMs: client.requestTimeout.wholeMilliseconds,
                pollIntervalMs: client.pollInterval.wholeMilliseconds, maxWaitMs: client.maxWait.wholeMilliseconds,
                maxRestarts: client.maxRestarts, queuePageRetry: client.queuePageRetry.rawValue,
                enqueueKey: group.enqueueKey.map(Self.describe), enqueueToken: group.enqueueToken.map(Self.describe),
                inviteCode: group.inviteCode.map(Self.describe),
                targetOverrides: Self.overrides(of: group.overrides).mapValues(redact),
                patience: group.behaviour.patience?.summary, comeback: group.behaviour.comeback?.summary,
                afterPass: group.behaviour.afterPass?.summary, noShow: group.behaviour.noShow)
        }
        feeders = Self.feeders(of: scenario)
        arrivals = ArrivalsEntry(
            process: scenario.arrivals.process.rawValue,
            phases: scenario.arrivals.replay.map { ["replay \($0.description)"] }
                ?? scenario.arrivals.phases.map(Self.describe),
            maxVisitors: scenario.arrivals.maxVisitors, plannedVisitors: plannedVisitors,
            scale: scenario.arrivals.scale)
        run = RunEntry(
            clock: scenario.clock.rawValue, seed: scenario.seed, concurrency: scenario.run.concurrency,
            durationMs: scenario.run.duration?.wholeMilliseconds, startAt: scenario.run.startAt.map(StartInstant.text))
        self.overrides = overrides
        self.environment = EnvironmentReferences.find(inScenarioAt: scenario.sourcePath, environment: environment)
        set = scenario.overrides.map(\.recorded)
    }

    static func describe(_ value: VisitorValue) -> String {
        switch value {
        case .literal: SecretRedaction.replacement
        case .feeder(let feeder): "csv \(feeder.path) column \(feeder.column) (\(feeder.order.rawValue))"
        }
    }

    static func describe(_ phase: ArrivalPhase) -> String {
        switch phase {
        case .steady(let duration, let rate, let rampTo):
            "steady \(ScenarioUnits.describe(duration)) at \(rateText(rate))"
                + (rampTo.map { " ramping to \(rateText($0))" } ?? "")
        case .burst(let count): "burst \(count)"
        case .pause(let duration): "pause \(ScenarioUnits.describe(duration))"
        }
    }

    /// `10/s (600/min)`: both readings, as `validate` prints them.
    private static func rateText(_ perSecond: Double) -> String {
        "\(ScenarioUnits.grouped(perSecond))/s (\(ScenarioUnits.grouped(perSecond * 60))/min)"
    }

    private static func overrides(of overrides: TargetOverrides) -> [String: String] {
        var values: [String: String] = [:]
        values["customerId"] = overrides.customerId
        values["waitingRoomId"] = overrides.waitingRoomId
        values["waitingRoomDomain"] = overrides.waitingRoomDomain
        values["queuePathPrefix"] = overrides.queuePathPrefix
        values["layoutName"] = overrides.layoutName
        values["language"] = overrides.language
        values["protectedApi"] = overrides.protectedApi
        return values
    }

    private static func feeders(of scenario: Scenario) -> [FeederEntry] {
        var entries: [FeederEntry] = []
        func add(_ feeder: CSVFeeder, usedBy user: String) {
            if let index = entries.firstIndex(where: { $0.csv == feeder.path && $0.column == feeder.column }) {
                entries[index].usedBy.append(user)
            } else {
                entries.append(
                    FeederEntry(csv: feeder.path, column: feeder.column, order: feeder.order.rawValue, usedBy: [user]))
            }
        }
        for group in scenario.groups {
            let values: [(String, VisitorValue?)] = [
                ("enqueueKey", group.enqueueKey), ("enqueueToken", group.enqueueToken),
                ("inviteCode", group.inviteCode),
            ]
            for (key, value) in values {
                if case .feeder(let feeder) = value { add(feeder, usedBy: "\(group.name).\(key)") }
            }
        }
        if let keys = scenario.waitingRoom?.enqueueKeys { add(keys, usedBy: "waitingRoom.enqueueKeys") }
        return entries
    }
}
