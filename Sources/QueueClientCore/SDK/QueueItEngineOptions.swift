/// The SDK's engine options, plus what a WebView-less engine needs to know.
public struct QueueItEngineOptions: Sendable, Hashable {
    /// The user agent of the (virtual) WebView; also the enqueue body's `userAgent` and the
    /// `User-Agent` header of every request. Nil: `QueueItEngine.defaultUserAgent`.
    public var webViewUserAgent: String?
    /// Delay between `onQueueViewWillOpen` and the first queue page load, in milliseconds.
    public var viewDelayMs: Int
    /// The SDK's `setViewDelay` value in the platform's unit (iOS seconds, Android
    /// milliseconds); when set it wins over `viewDelayMs`.
    public var viewDelay: Int?
    /// Which SDK the engine behaves like (`ClientPlatform`).
    public var platform: ClientPlatform
    /// Android's `setInviteCode` (2.3+): sent as `code=` on the first queue URL. Ignored on iOS,
    /// which has no invite codes.
    public var inviteCode: String?
    /// Per-request timeout, over the whole exchange; nil: the platform's (iOS 60 s; Android
    /// 10 s for the enqueue call, its WebView's limits for queue pages).
    public var requestTimeout: Duration?
    /// Queue page poll interval without `Retry-After` (headless addition).
    public var queuePagePollInterval: Duration
    /// How long the virtual WebView waits in the queue before giving up (headless addition).
    public var maxQueueWait: Duration

    /// The SDK's options (`webViewUserAgent`, `viewDelayMs`) and the headless ones, each
    /// defaulting to what an app gets without it: no delay, the platform's timeout, a poll
    /// every 2 s, a 30-minute wait, iOS.
    public init(
        webViewUserAgent: String? = nil, viewDelayMs: Int = 0, requestTimeout: Duration? = nil,
        queuePagePollInterval: Duration = .seconds(2), maxQueueWait: Duration = .seconds(30 * 60),
        platform: ClientPlatform = .ios, viewDelay: Int? = nil, inviteCode: String? = nil
    ) {
        self.inviteCode = inviteCode
        self.webViewUserAgent = webViewUserAgent
        self.viewDelayMs = viewDelayMs
        self.viewDelay = viewDelay
        self.platform = platform
        self.requestTimeout = requestTimeout
        self.queuePagePollInterval = queuePagePollInterval
        self.maxQueueWait = maxQueueWait
    }
}

extension QueueItEngineOptions {
    /// The timeout of `call`: `requestTimeout` over the whole exchange when chosen, else the
    /// platform's own (`ClientPlatform.timeout(for:giveUpAt:)`: Android's WebView waits for a
    /// slow page until `giveUpAt`).
    func timeout(for call: PlatformCall, giveUpAt: RunInstant) -> RequestTimeout {
        guard let requestTimeout else { return platform.timeout(for: call, giveUpAt: giveUpAt) }
        return RequestTimeout(limit: requestTimeout, kind: .wholeExchange)
    }

    /// The view delay in force: `viewDelay` in the platform's unit, else `viewDelayMs`.
    var effectiveViewDelay: Duration { viewDelay.map(platform.viewDelay) ?? .milliseconds(viewDelayMs) }
}
