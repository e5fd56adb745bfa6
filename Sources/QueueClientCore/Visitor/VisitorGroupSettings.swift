/// What every visitor of a group shares: the waiting room, the client's settings and the flow.
/// A plain value; `VisitorConfiguration` keeps one copy of it per group.
package struct VisitorGroupSettings: Sendable, Hashable {
    package var customerId: String
    package var waitingRoomId: String
    package var waitingRoomDomain: String?
    package var queuePathPrefix: String?
    package var layoutName: String?
    package var language: String?
    /// Sent as the body's `userAgent`, the `User-Agent` header and the queue page's user agent.
    package var userAgent: String
    /// The app's own `User-Agent` on its protected-API calls (its HTTP stack's, not the
    /// WebView's); nil: the stack's own, CFNetwork's on iOS, `okhttp/4.9.2` on Android.
    package var apiUserAgent: String?
    package var sdkVersion: String
    package var requestTimeout: Duration
    /// Whose timeouts the visitor's requests have (`timeout(for:giveUpAt:)`): false, a
    /// scenario's `client.requestTimeout`, over the whole exchange of every request; true, the
    /// platform's own per call — `requestTimeout` without progress for the SDK stacks' calls
    /// (`NSURLRequest`'s idle timeout, OkHttp's per-read timeout), Chromium's limits for
    /// Android's page loads. Before the request is written (waiting for or opening a
    /// connection) the figure bounds that wait either way.
    package var requestTimeoutIsIdle: Bool = false
    /// Queue page poll interval when the server sends no `Retry-After`.
    package var pollInterval: Duration
    /// Measured from queue entry: still in the queue after it → `queued`.
    package var maxWait: Duration
    /// `queueit://restartSession` re-runs the visitor at most this often; one more → `restarted`.
    package var maxRestarts: Int
    package var flow: VisitorFlowKind
    /// The KnownUser-protected API URL (required for `.protectedApi`).
    package var protectedApiURL: String?
    /// The SDK the visitors behave like: where its requests, retries and decisions differ.
    package var platform: ClientPlatform
    /// What a failed queue page load does (the platform's unless chosen).
    package var queuePageRetry: QueuePageRetry

    package init(
        customerId: String, waitingRoomId: String, waitingRoomDomain: String? = nil, queuePathPrefix: String? = nil,
        layoutName: String? = nil, language: String? = nil, userAgent: String, sdkVersion: String,
        requestTimeout: Duration = .seconds(10), pollInterval: Duration = .seconds(2),
        maxWait: Duration = .seconds(30 * 60), maxRestarts: Int = 1, flow: VisitorFlowKind = .run,
        protectedApiURL: String? = nil, platform: ClientPlatform = .ios, queuePageRetry: QueuePageRetry? = nil,
        apiUserAgent: String? = nil
    ) {
        self.apiUserAgent = apiUserAgent
        self.customerId = customerId
        self.waitingRoomId = waitingRoomId
        self.waitingRoomDomain = waitingRoomDomain
        self.queuePathPrefix = queuePathPrefix
        self.layoutName = layoutName
        self.language = language
        self.userAgent = userAgent
        self.sdkVersion = sdkVersion
        self.requestTimeout = requestTimeout
        self.pollInterval = pollInterval
        self.maxWait = maxWait
        self.maxRestarts = maxRestarts
        self.flow = flow
        self.protectedApiURL = protectedApiURL
        self.platform = platform
        self.queuePageRetry = queuePageRetry ?? platform.queuePageRetry
    }
}
