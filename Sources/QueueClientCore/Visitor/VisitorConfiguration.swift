/// Which SDK entry point a visitor uses.
public enum VisitorFlowKind: String, Sendable, Hashable, CaseIterable, Codable {
    /// `run()` / `runWithEnqueueKey` / `runWithEnqueueToken`: enqueue, then the queue page.
    case run
    /// `tryPass()` then `showQueue(queueTryPassResult:)`: the same decisions, the same outcome.
    case tryPass
    /// The hybrid KnownUser flow: the protected API first, the waiting room when it redirects.
    case protectedApi
}

/// Everything one simulated visitor needs. Group-level strings are shared between visitors
/// (Swift strings are reference-counted copy-on-write), so a million copies stay cheap.
public struct VisitorConfiguration: Sendable, Hashable {
    public var customerId: String
    public var waitingRoomId: String
    public var waitingRoomDomain: String?
    public var queuePathPrefix: String?
    public var layoutName: String?
    public var language: String?
    public var enqueueKey: String?
    public var enqueueToken: String?
    public var userId: String
    /// Sent as the body's `userAgent`, the `User-Agent` header and the queue page's user agent.
    public var userAgent: String
    public var sdkVersion: String
    public var requestTimeout: Duration
    /// Queue page poll interval when the server sends no `Retry-After`.
    public var pollInterval: Duration
    /// Measured from queue entry: still in the queue after it → `queued`.
    public var maxWait: Duration
    /// `queueit://restartSession` re-runs the visitor at most this often; one more → `restarted`.
    public var maxRestarts: Int
    public var flow: VisitorFlowKind
    /// The KnownUser-protected API URL (required for `.protectedApi`).
    public var protectedApiURL: String?

    public init(
        customerId: String, waitingRoomId: String, waitingRoomDomain: String? = nil, queuePathPrefix: String? = nil,
        layoutName: String? = nil, language: String? = nil, enqueueKey: String? = nil, enqueueToken: String? = nil,
        userId: String, userAgent: String, sdkVersion: String, requestTimeout: Duration = .seconds(10),
        pollInterval: Duration = .seconds(2), maxWait: Duration = .seconds(30 * 60), maxRestarts: Int = 1,
        flow: VisitorFlowKind = .run, protectedApiURL: String? = nil
    ) {
        self.customerId = customerId
        self.waitingRoomId = waitingRoomId
        self.waitingRoomDomain = waitingRoomDomain
        self.queuePathPrefix = queuePathPrefix
        self.layoutName = layoutName
        self.language = language
        self.enqueueKey = enqueueKey
        self.enqueueToken = enqueueToken
        self.userId = userId
        self.userAgent = userAgent
        self.sdkVersion = sdkVersion
        self.requestTimeout = requestTimeout
        self.pollInterval = pollInterval
        self.maxWait = maxWait
        self.maxRestarts = maxRestarts
        self.flow = flow
        self.protectedApiURL = protectedApiURL
    }

    public var address: WaitingRoomAddress {
        WaitingRoomAddress(
            customerId: customerId, waitingRoomId: waitingRoomId, waitingRoomDomain: waitingRoomDomain,
            queuePathPrefix: queuePathPrefix)
    }

    /// The enqueue call for the configured waiting room. An enqueue token wins over a key, as
    /// the README sample picks `runWithEnqueueToken` first.
    public var enqueueParameters: EnqueueParameters {
        enqueueParameters(for: address, enqueueToken: enqueueToken, layoutName: layoutName, language: language)
    }

    func enqueueParameters(
        for address: WaitingRoomAddress, enqueueToken: String?, layoutName: String?, language: String?
    ) -> EnqueueParameters {
        let token = enqueueToken.flatMap { $0.isEmpty ? nil : $0 }
        return EnqueueParameters(
            address: address, userId: userId, userAgent: userAgent, sdkVersion: sdkVersion, layoutName: layoutName,
            language: language, enqueueToken: token, enqueueKey: token == nil ? enqueueKey : nil)
    }

    var navigatorSettings: QueuePageNavigator.Settings {
        QueuePageNavigator.Settings(pollInterval: pollInterval, maxWait: maxWait, userAgent: userAgent)
    }
}
