import QueueClientCore

/// Everything the embedded waiting room needs to know, already resolved by the caller
/// (environment expanded, CSV files read). The room never reads files or the environment.
package struct WaitingRoomConfiguration: Sendable, Equatable {
    package var customerId: String
    package var waitingRoomId: String
    /// Proxy domain ("Bring Your Own CDN"). When set, requests for any other `Host` get 404.
    package var waitingRoomDomain: String?
    /// Path prefix in front of every room path; honoured only with `waitingRoomDomain` (as the SDK does).
    package var queuePathPrefix: String?
    package var settings: WaitingRoomSettings
    package var seed: UInt64
    /// Enqueue keys an invite-only room admits (loaded from the scenario's CSV by the caller).
    package var knownEnqueueKeys: Set<String>
    /// Where a visitor is sent at its turn (`EventTargetUrl`). Default `https://{customerId}.example/launch`.
    package var eventTargetURL: String
    /// Unix seconds of the run's origin: tokens carry absolute expiries (`ts`), our time is relative.
    /// Wall runs pass the real time at start; virtual runs a constant so bytes are deterministic.
    package var epochUnixSeconds: Int64
    package var protectedAPI: ProtectedAPISettings
    /// Further ways into the same room: a scenario's visitor groups may reach it through their
    /// own proxy domain and prefix (a partner CDN, say). Each gets the host and prefix checks of
    /// the primary entrance, and the queue URLs handed out keep the entrance a visitor came by.
    package var additionalEntrances: [RoomEntrance] = []
    /// False: tokens carry 64 zeros where the HMAC goes (`KnownUserToken.unsignedPlaceholder`).
    /// Only for a run that keeps its figures and nothing else, in which no visitor ever shows a
    /// token to a connector (`VirtualClockRunner`): a sweep's point, whose figures are the same
    /// either way and which otherwise spends a twentieth of its time signing tokens nobody reads.
    package var signsTokens = true

    package init(
        customerId: String, waitingRoomId: String, waitingRoomDomain: String? = nil,
        queuePathPrefix: String? = nil, settings: WaitingRoomSettings = WaitingRoomSettings(), seed: UInt64 = 1,
        knownEnqueueKeys: Set<String> = [], eventTargetURL: String? = nil,
        epochUnixSeconds: Int64 = WaitingRoomConfiguration.virtualEpochUnixSeconds,
        protectedAPI: ProtectedAPISettings = ProtectedAPISettings()
    ) {
        self.customerId = customerId
        self.waitingRoomId = waitingRoomId
        self.waitingRoomDomain = waitingRoomDomain
        self.queuePathPrefix = queuePathPrefix
        self.settings = settings
        self.seed = seed
        self.knownEnqueueKeys = knownEnqueueKeys
        self.eventTargetURL = eventTargetURL ?? "https://\(customerId).example/launch"
        self.epochUnixSeconds = epochUnixSeconds
        self.protectedAPI = protectedAPI
    }

    /// 2025-01-01T00:00:00Z: the fixed origin of virtual runs.
    package static let virtualEpochUnixSeconds: Int64 = 1_735_689_600

    /// The host the room answers on and writes into every URL it hands out (never 127.0.0.1:
    /// the runner's transport rewrites the connection target, the URLs keep public names).
    package var roomHost: String {
        primaryEntrance.host(customerId: customerId)
    }

    /// The sanitised prefix (no surrounding slashes), or nil when it does not apply.
    package var effectivePathPrefix: String? {
        primaryEntrance.effectivePathPrefix
    }

    /// `https://{host}[/{prefix}]` — the base of every room URL.
    package var roomBaseURL: String {
        primaryEntrance.baseURL(customerId: customerId)
    }

    var primaryEntrance: RoomEntrance {
        RoomEntrance(waitingRoomDomain: waitingRoomDomain, queuePathPrefix: queuePathPrefix)
    }

    /// The primary entrance (`waitingRoomDomain` and `queuePathPrefix`) then the additional ones,
    /// without repeats.
    package var entrances: [RoomEntrance] {
        var seen = Set<RoomEntrance>()
        return ([primaryEntrance] + additionalEntrances).filter { seen.insert($0.normalized).inserted }
    }

    /// Unix seconds at a point of the run.
    func unixSeconds(at now: RunInstant) -> Int64 {
        epochUnixSeconds + now.wholeSecondsSinceOrigin
    }
}

/// How the embedded KnownUser-protected API (`/api/protected`) behaves, as a V3 connector's
/// inline configuration would (`cookieValidityMinute`, `extendCookieValidity`).
package struct ProtectedAPISettings: Sendable, Equatable {
    /// Validity of the `QueueITAccepted` session cookie (the connector README's default is 10).
    package var cookieValidityMinutes: Int
    /// Re-issue the cookie with a fresh IssueTime on every valid request (sliding session).
    package var extendCookieValidity: Bool

    package init(cookieValidityMinutes: Int = 10, extendCookieValidity: Bool = true) {
        self.cookieValidityMinutes = cookieValidityMinutes
        self.extendCookieValidity = extendCookieValidity
    }
}

/// One way into the room: a proxy domain (or none: `{customerId}.queue-it.net`) and a path
/// prefix, which, as in the SDK, applies only with a domain.
package struct RoomEntrance: Sendable, Hashable {
    package var waitingRoomDomain: String?
    package var queuePathPrefix: String?

    package init(waitingRoomDomain: String?, queuePathPrefix: String?) {
        self.waitingRoomDomain = waitingRoomDomain
        self.queuePathPrefix = queuePathPrefix
    }

    /// Empty strings mean "not set"; the prefix is dropped without a domain.
    var normalized: RoomEntrance {
        let domain = waitingRoomDomain.flatMap { $0.isEmpty ? nil : $0.lowercased() }
        return RoomEntrance(waitingRoomDomain: domain, queuePathPrefix: domain == nil ? nil : effectivePathPrefix)
    }

    var hasDomain: Bool { normalized.waitingRoomDomain != nil }

    func host(customerId: String) -> String {
        normalized.waitingRoomDomain ?? "\(customerId.lowercased()).queue-it.net"
    }

    /// The sanitised prefix (no surrounding slashes), or nil when it does not apply.
    var effectivePathPrefix: String? {
        guard let domain = waitingRoomDomain, !domain.isEmpty, let prefix = queuePathPrefix else { return nil }
        let trimmed = prefix.split(separator: "/").joined(separator: "/")
        return trimmed.isEmpty ? nil : trimmed
    }

    func baseURL(customerId: String) -> String {
        let host = host(customerId: customerId)
        if let prefix = effectivePathPrefix { return "https://\(host)/\(prefix)" }
        return "https://\(host)"
    }
}
