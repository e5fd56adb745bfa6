import Foundation
import QueueClientCore

// The scenario model v1 (SCENARIO-CONTRACT.md), after decoding, defaulting and validation.
// Every duration is a `Duration`, every rate a per-second `Double`, every percentage a fraction.
// The YAML reader produces these values; planning, runners, the room and reports consume them.

package struct Scenario: Sendable, Equatable {
    package var version: Int
    package var name: String
    package var seed: UInt64
    package var clock: ClockKind
    package var target: Target
    package var client: ClientSettings
    package var arrivals: Arrivals
    package var groups: [VisitorGroup]
    /// Present only with `endpoint: embedded` (validation refuses it otherwise); when the
    /// scenario has no `waitingRoom:` block and the endpoint is embedded, the defaults apply.
    package var waitingRoom: WaitingRoomSettings?
    package var run: RunSettings
    package var thresholds: [Threshold]
    /// Report directory, resolved against the current directory (default `reports/<name>`, the
    /// name made safe for a folder by `ReportFolderName`).
    package var reportsDirectory: String
    /// The scenario file as given on the command line, and the SHA-256 of its bytes (hex).
    package var sourcePath: String
    package var sourceSHA256: String
    /// Where parts of the plan are written, so problems found by the preflight (a feeder that
    /// runs out, a plan over the memory budget) point into the file too.
    package var positions = ScenarioPositions()

    package init(
        version: Int = 1, name: String, seed: UInt64 = 1, clock: ClockKind = .wall, target: Target,
        client: ClientSettings = ClientSettings(), arrivals: Arrivals, groups: [VisitorGroup],
        waitingRoom: WaitingRoomSettings? = WaitingRoomSettings(), run: RunSettings = RunSettings(),
        thresholds: [Threshold] = [], reportsDirectory: String? = nil, sourcePath: String = "",
        sourceSHA256: String = ""
    ) {
        self.version = version
        self.name = name
        self.seed = seed
        self.clock = clock
        self.target = target
        self.client = client
        self.arrivals = arrivals
        self.groups = groups
        self.waitingRoom = waitingRoom
        self.run = run
        self.thresholds = thresholds
        self.reportsDirectory = reportsDirectory ?? "reports/\(ReportFolderName.sanitised(name))"
        self.sourcePath = sourcePath
        self.sourceSHA256 = sourceSHA256
    }
}

package struct ScenarioPositions: Sendable, Equatable {
    /// `arrivals:` (the key), `target:` (the key).
    package var arrivals: YamlMark?
    package var target: YamlMark?
    /// `clock:` (the key), `run:` (the key); nil when the file does not set them.
    package var clock: YamlMark?
    package var run: YamlMark?
    /// Each CSV feeder's `csv:` value, by the resolved path.
    package var feeders: [String: YamlMark] = [:]

    package init() {}
}

package enum ClockKind: String, Sendable, Equatable, CaseIterable {
    case wall
    case virtual
}

package enum Endpoint: Sendable, Equatable {
    /// The embedded waiting room, started in-process (wall clock: on 127.0.0.1, a free port).
    case embedded
    /// A base URL (`https://host`, `http://127.0.0.1:8080`) that replaces scheme, host and port
    /// of every request while the `Host` header keeps the real waiting-room host.
    case baseURL(scheme: String, host: String, port: Int?)
}

/// The keys a visitor group may override (all but `endpoint`).
package struct TargetOverrides: Sendable, Equatable {
    package var customerId: String?
    package var waitingRoomId: String?
    package var waitingRoomDomain: String?
    package var queuePathPrefix: String?
    package var layoutName: String?
    package var language: String?
    package var protectedApi: String?

    package init(
        customerId: String? = nil, waitingRoomId: String? = nil, waitingRoomDomain: String? = nil,
        queuePathPrefix: String? = nil, layoutName: String? = nil, language: String? = nil,
        protectedApi: String? = nil
    ) {
        self.customerId = customerId
        self.waitingRoomId = waitingRoomId
        self.waitingRoomDomain = waitingRoomDomain
        self.queuePathPrefix = queuePathPrefix
        self.layoutName = layoutName
        self.language = language
        self.protectedApi = protectedApi
    }
}

package struct Target: Sendable, Equatable {
    package var customerId: String
    package var waitingRoomId: String
    package var waitingRoomDomain: String?
    package var queuePathPrefix: String?
    package var layoutName: String?
    package var language: String?
    package var endpoint: Endpoint
    package var protectedApi: String?

    package init(
        customerId: String, waitingRoomId: String, waitingRoomDomain: String? = nil,
        queuePathPrefix: String? = nil, layoutName: String? = nil, language: String? = nil,
        endpoint: Endpoint = .embedded, protectedApi: String? = nil
    ) {
        self.customerId = customerId
        self.waitingRoomId = waitingRoomId
        self.waitingRoomDomain = waitingRoomDomain
        self.queuePathPrefix = queuePathPrefix
        self.layoutName = layoutName
        self.language = language
        self.endpoint = endpoint
        self.protectedApi = protectedApi
    }

    /// The target as one group sees it.
    package func applying(_ overrides: TargetOverrides) -> Target {
        var copy = self
        if let value = overrides.customerId { copy.customerId = value }
        if let value = overrides.waitingRoomId { copy.waitingRoomId = value }
        if let value = overrides.waitingRoomDomain { copy.waitingRoomDomain = value }
        if let value = overrides.queuePathPrefix { copy.queuePathPrefix = value }
        if let value = overrides.layoutName { copy.layoutName = value }
        if let value = overrides.language { copy.language = value }
        if let value = overrides.protectedApi { copy.protectedApi = value }
        return copy
    }
}

package enum ArrivalProcess: String, Sendable, Equatable, CaseIterable {
    /// Evenly spaced arrivals.
    case uniform
    /// Exponential gaps (seeded).
    case poisson
}

package enum ArrivalPhase: Sendable, Equatable {
    /// `{ duration, rate, rampTo? }`: `rate` per second, ramping linearly to `rampTo` if given.
    case steady(duration: Duration, rate: Double, rampTo: Double?)
    /// `{ burst: N }`: N visitors at once, at this point of the timeline.
    case burst(count: Int)
    /// `{ pause: 30s }`: no arrivals for a while (an extension of the contract).
    case pause(duration: Duration)
}

package struct Arrivals: Sendable, Equatable {
    package var process: ArrivalProcess
    package var phases: [ArrivalPhase]
    package var maxVisitors: Int?

    package init(process: ArrivalProcess = .uniform, phases: [ArrivalPhase], maxVisitors: Int? = nil) {
        self.process = process
        self.phases = phases
        self.maxVisitors = maxVisitors
    }
}

package enum VisitorFlow: String, Sendable, Equatable, CaseIterable {
    case run
    case tryPass
    case protectedApi
}

package enum FeederOrder: String, Sendable, Equatable, CaseIterable {
    /// Each row to at most one visitor, rows taken in a seeded shuffled order; running out is an error.
    case unique
    /// Each row to at most one visitor, rows taken in file order; running out is an error.
    case sequence
    /// A seeded random row per visitor (rows may repeat).
    case random
    /// Rows in file order, starting over after the last one.
    case cycle
}

/// `{ csv: FILE, column: NAME, order: … }`; `path` is resolved against the scenario's folder.
package struct CSVFeeder: Sendable, Equatable {
    package var path: String
    package var column: String
    package var order: FeederOrder

    package init(path: String, column: String, order: FeederOrder = .sequence) {
        self.path = path
        self.column = column
        self.order = order
    }
}

/// An enqueue key or token: a literal, or a column of a CSV file.
package enum VisitorValue: Sendable, Equatable {
    case literal(String)
    case feeder(CSVFeeder)
}

package struct VisitorGroup: Sendable, Equatable {
    package var name: String
    package var weight: Double
    package var flow: VisitorFlow
    package var enqueueKey: VisitorValue?
    package var enqueueToken: VisitorValue?
    /// Android's invite code, sent as `code=` on the first queue URL.
    package var inviteCode: VisitorValue?
    /// nil: `client.platform`.
    package var platform: ClientPlatform?
    package var overrides: TargetOverrides

    package init(
        name: String, weight: Double = 1, flow: VisitorFlow = .run, enqueueKey: VisitorValue? = nil,
        enqueueToken: VisitorValue? = nil, overrides: TargetOverrides = TargetOverrides(),
        inviteCode: VisitorValue? = nil, platform: ClientPlatform? = nil
    ) {
        self.name = name
        self.weight = weight
        self.flow = flow
        self.enqueueKey = enqueueKey
        self.enqueueToken = enqueueToken
        self.inviteCode = inviteCode
        self.platform = platform
        self.overrides = overrides
    }
}

package enum RoomMode: String, Sendable, Equatable, CaseIterable {
    case queue
    case safetynet
    case disabled
    case idle
    case afterevent
}

/// The room's endpoints a fault can target.
package enum RoomEndpoint: String, Sendable, Equatable, CaseIterable {
    case enqueue
    case queuePage
    case protectedApi
    case any
}

package struct LatencySettings: Sendable, Equatable {
    package var enqueue: Duration
    package var queuePage: Duration
    package var protectedApi: Duration
    /// Uniform ± jitter added to every modelled latency (seeded).
    package var jitter: Duration

    package init(
        enqueue: Duration = .zero, queuePage: Duration = .zero, protectedApi: Duration = .zero,
        jitter: Duration = .zero
    ) {
        self.enqueue = enqueue
        self.queuePage = queuePage
        self.protectedApi = protectedApi
        self.jitter = jitter
    }
}

/// What a scripted fault does to a matching request.
package enum FaultEffect: Sendable, Equatable {
    /// Answer with this status and a JSON error body.
    case status(Int)
    /// Add this latency (± jitter) before answering normally.
    case latency(Duration, jitter: Duration)
    /// Close the connection without an answer.
    case reset
    /// Never answer (the client's request timeout fires).
    case timeout
    /// Answer 200 with a body that is not JSON.
    case malformedBody
    /// Queue page only: redirect to `queueit://close` or `queueit://restartSession`.
    case navigate(QueuePageNavigation)
    /// Switch the room's mode for the window (`to` absent: for the rest of the run).
    case mode(RoomMode)
}

package enum QueuePageNavigation: String, Sendable, Equatable, CaseIterable {
    case close
    case restartSession
}

package struct FaultRule: Sendable, Equatable {
    package var from: Duration
    /// nil: until the end of the run.
    package var to: Duration?
    package var endpoint: RoomEndpoint
    /// Share of matching requests hit, 0...1 (seeded per request). Ignored for `mode`.
    package var rate: Double
    package var effect: FaultEffect

    package init(
        from: Duration = .zero, to: Duration? = nil, endpoint: RoomEndpoint = .any, rate: Double = 1,
        effect: FaultEffect
    ) {
        self.from = from
        self.to = to
        self.endpoint = endpoint
        self.rate = rate
        self.effect = effect
    }
}

package struct WaitingRoomSettings: Sendable, Equatable {
    package var mode: RoomMode
    package var eventStart: Duration
    /// Max redirects per minute, as a per-second rate.
    package var outflowPerSecond: Double
    package var secretKey: String
    package var tokenValidity: Duration
    package var inviteOnly: Bool
    /// Known enqueue keys for invite-only rooms.
    package var enqueueKeys: CSVFeeder?
    /// Invite codes an invite-only room admits on its queue page (`code=`, Android's SDK).
    package var inviteCodes: [String]
    package var latency: LatencySettings
    package var faults: [FaultRule]

    package init(
        mode: RoomMode = .queue, eventStart: Duration = .zero, outflowPerSecond: Double = 10,
        secretKey: String = "dev-secret", tokenValidity: Duration = .seconds(180), inviteOnly: Bool = false,
        enqueueKeys: CSVFeeder? = nil, inviteCodes: [String] = [], latency: LatencySettings = LatencySettings(),
        faults: [FaultRule] = []
    ) {
        self.inviteCodes = inviteCodes
        self.mode = mode
        self.eventStart = eventStart
        self.outflowPerSecond = outflowPerSecond
        self.secretKey = secretKey
        self.tokenValidity = tokenValidity
        self.inviteOnly = inviteOnly
        self.enqueueKeys = enqueueKeys
        self.latency = latency
        self.faults = faults
    }
}

package struct RunSettings: Sendable, Equatable {
    /// Most visitors in flight at once (wall clock).
    package var concurrency: Int
    /// Hard stop; nil: until every visitor has finished.
    package var duration: Duration?
    /// `run.startAt`: a wall-clock run waits for this instant and makes it its second 0, so
    /// the shards of a sharded run line up (`--start-at` overrides it).
    package var startAt: Date?

    package init(concurrency: Int = 10_000, duration: Duration? = nil, startAt: Date? = nil) {
        self.concurrency = concurrency
        self.duration = duration
        self.startAt = startAt
    }
}
