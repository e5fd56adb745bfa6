import Foundation
import QueueClientCore

// The scenario model v1 (SCENARIO-CONTRACT.md), after decoding, defaulting and validation.
// Every duration is a `Duration`, every rate a per-second `Double`, every percentage a fraction.
// The YAML reader produces these values; planning, runners, the room and reports consume them.

public struct Scenario: Sendable, Equatable {
    public var version: Int
    public var name: String
    public var seed: UInt64
    public var clock: ClockKind
    public var target: Target
    public var client: ClientSettings
    public var arrivals: Arrivals
    public var groups: [VisitorGroup]
    /// Present only with `endpoint: embedded` (validation refuses it otherwise); when the
    /// scenario has no `waitingRoom:` block and the endpoint is embedded, the defaults apply.
    public var waitingRoom: WaitingRoomSettings?
    public var run: RunSettings
    public var thresholds: [Threshold]
    /// Report directory, resolved against the current directory (default `reports/<name>`, the
    /// name made safe for a folder by `ReportFolderName`).
    public var reportsDirectory: String
    /// The scenario file as given on the command line, and the SHA-256 of its bytes (hex).
    public var sourcePath: String
    public var sourceSHA256: String
    /// Where parts of the plan are written, so problems found by the preflight (a feeder that
    /// runs out, a plan over the memory budget) point into the file too.
    public var positions = ScenarioPositions()

    public init(
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

public struct ScenarioPositions: Sendable, Equatable {
    /// `arrivals:` (the key), `target:` (the key).
    public var arrivals: YamlMark?
    public var target: YamlMark?
    /// `clock:` (the key), `run:` (the key); nil when the file does not set them.
    public var clock: YamlMark?
    public var run: YamlMark?
    /// Each CSV feeder's `csv:` value, by the resolved path.
    public var feeders: [String: YamlMark] = [:]

    public init() {}
}

public enum ClockKind: String, Sendable, Equatable, CaseIterable {
    case wall
    case virtual
}

public enum Endpoint: Sendable, Equatable {
    /// The embedded waiting room, started in-process (wall clock: on 127.0.0.1, a free port).
    case embedded
    /// A base URL (`https://host`, `http://127.0.0.1:8080`) that replaces scheme, host and port
    /// of every request while the `Host` header keeps the real waiting-room host.
    case baseURL(scheme: String, host: String, port: Int?)
}

/// The keys a visitor group may override (all but `endpoint`).
public struct TargetOverrides: Sendable, Equatable {
    public var customerId: String?
    public var waitingRoomId: String?
    public var waitingRoomDomain: String?
    public var queuePathPrefix: String?
    public var layoutName: String?
    public var language: String?
    public var protectedApi: String?

    public init(
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

public struct Target: Sendable, Equatable {
    public var customerId: String
    public var waitingRoomId: String
    public var waitingRoomDomain: String?
    public var queuePathPrefix: String?
    public var layoutName: String?
    public var language: String?
    public var endpoint: Endpoint
    public var protectedApi: String?

    public init(
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
    public func applying(_ overrides: TargetOverrides) -> Target {
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

public enum ArrivalProcess: String, Sendable, Equatable, CaseIterable {
    /// Evenly spaced arrivals.
    case uniform
    /// Exponential gaps (seeded).
    case poisson
}

public enum ArrivalPhase: Sendable, Equatable {
    /// `{ duration, rate, rampTo? }`: `rate` per second, ramping linearly to `rampTo` if given.
    case steady(duration: Duration, rate: Double, rampTo: Double?)
    /// `{ burst: N }`: N visitors at once, at this point of the timeline.
    case burst(count: Int)
    /// `{ pause: 30s }`: no arrivals for a while (an extension of the contract).
    case pause(duration: Duration)
}

public struct Arrivals: Sendable, Equatable {
    public var process: ArrivalProcess
    public var phases: [ArrivalPhase]
    public var maxVisitors: Int?

    public init(process: ArrivalProcess = .uniform, phases: [ArrivalPhase], maxVisitors: Int? = nil) {
        self.process = process
        self.phases = phases
        self.maxVisitors = maxVisitors
    }
}

public enum VisitorFlow: String, Sendable, Equatable, CaseIterable {
    case run
    case tryPass
    case protectedApi
}

public enum FeederOrder: String, Sendable, Equatable, CaseIterable {
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
public struct CSVFeeder: Sendable, Equatable {
    public var path: String
    public var column: String
    public var order: FeederOrder

    public init(path: String, column: String, order: FeederOrder = .sequence) {
        self.path = path
        self.column = column
        self.order = order
    }
}

/// An enqueue key or token: a literal, or a column of a CSV file.
public enum VisitorValue: Sendable, Equatable {
    case literal(String)
    case feeder(CSVFeeder)
}

public struct VisitorGroup: Sendable, Equatable {
    public var name: String
    public var weight: Double
    public var flow: VisitorFlow
    public var enqueueKey: VisitorValue?
    public var enqueueToken: VisitorValue?
    /// Android's invite code, sent as `code=` on the first queue URL.
    public var inviteCode: VisitorValue?
    /// nil: `client.platform`.
    public var platform: ClientPlatform?
    public var overrides: TargetOverrides

    public init(
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

public enum RoomMode: String, Sendable, Equatable, CaseIterable {
    case queue
    case safetynet
    case disabled
    case idle
    case afterevent
}

/// The room's endpoints a fault can target.
public enum RoomEndpoint: String, Sendable, Equatable, CaseIterable {
    case enqueue
    case queuePage
    case protectedApi
    case any
}

public struct LatencySettings: Sendable, Equatable {
    public var enqueue: Duration
    public var queuePage: Duration
    public var protectedApi: Duration
    /// Uniform ± jitter added to every modelled latency (seeded).
    public var jitter: Duration

    public init(
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
public enum FaultEffect: Sendable, Equatable {
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

public enum QueuePageNavigation: String, Sendable, Equatable, CaseIterable {
    case close
    case restartSession
}

public struct FaultRule: Sendable, Equatable {
    public var from: Duration
    /// nil: until the end of the run.
    public var to: Duration?
    public var endpoint: RoomEndpoint
    /// Share of matching requests hit, 0...1 (seeded per request). Ignored for `mode`.
    public var rate: Double
    public var effect: FaultEffect

    public init(
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

public struct WaitingRoomSettings: Sendable, Equatable {
    public var mode: RoomMode
    public var eventStart: Duration
    /// Max redirects per minute, as a per-second rate.
    public var outflowPerSecond: Double
    public var secretKey: String
    public var tokenValidity: Duration
    public var inviteOnly: Bool
    /// Known enqueue keys for invite-only rooms.
    public var enqueueKeys: CSVFeeder?
    /// Invite codes an invite-only room admits on its queue page (`code=`, Android's SDK).
    public var inviteCodes: [String]
    public var latency: LatencySettings
    public var faults: [FaultRule]

    public init(
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

public struct RunSettings: Sendable, Equatable {
    /// Most visitors in flight at once (wall clock).
    public var concurrency: Int
    /// Hard stop; nil: until every visitor has finished.
    public var duration: Duration?
    /// `run.startAt`: a wall-clock run waits for this instant and makes it its second 0, so
    /// the shards of a sharded run line up (`--start-at` overrides it).
    public var startAt: Date?

    public init(concurrency: Int = 10_000, duration: Duration? = nil, startAt: Date? = nil) {
        self.concurrency = concurrency
        self.duration = duration
        self.startAt = startAt
    }
}
