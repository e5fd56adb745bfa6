/// What `onQueuePassed(info:)` carries.
public struct QueuePassedInfo: Sendable, Hashable {
    /// The queueittoken (nil when the target was reached without one). A credential.
    public var queueItToken: String?
    public init(queueItToken: String?) { self.queueItToken = queueItToken }
}

/// What `onQueueDisabled(info:)` carries: the disabled/idle/afterevent token.
public struct QueueDisabledInfo: Sendable, Hashable {
    public var queueItToken: String?
    public init(queueItToken: String?) { self.queueItToken = queueItToken }
}

/// The errors `onError(error:errorMessage:)` reports (Android's `Error` plus iOS's runtime codes).
public enum QueueError: String, Sendable, Hashable, CaseIterable {
    /// An HTTP 4xx from the enqueue API (wrong customer id, waiting room or CNAME).
    case invalidResponse
    /// A TLS failure, and also (as in Android) a queue or target URL missing from the answer.
    case sslError
    case networkUnavailable
    /// `run`/`tryPass` called while another call of the same engine is still running.
    case requestAlreadyInProgress
    /// iOS's provider failure code 3: enqueue retries used up. iOS sends it together with
    /// `onQueueItUnavailable`; Android sends only the latter.
    case queueUnavailable
    /// Headless only: a queue page failed to load and the platform's WebView does not recover
    /// (iOS at once, Android after its reloads). The SDK leaves its view on that page with no
    /// callback; an engine without a screen must end, so it says this.
    case queuePageFailed
}

/// The callbacks of Queue-it's Swift SDK, in the same words. Callbacks may arrive on any task.
public protocol QueueListener: Sendable {
    func onQueuePassed(info: QueuePassedInfo)
    func onQueueViewWillOpen()
    func onQueueDisabled(info: QueueDisabledInfo)
    func onQueueItUnavailable()
    func onError(error: QueueError, errorMessage: String)
    func onWebViewClosed()
    func onSessionRestart()
    func onQueueUrlChanged(_ url: String)
    func onSSLError(_ errorMessage: String)
    /// Headless only: the queue page was still waiting when `maxQueueWait` ran out.
    func onQueueWaitExpired()
}

extension QueueListener {
    public func onWebViewClosed() {}
    public func onSessionRestart() {}
    public func onQueueUrlChanged(_ url: String) {}
    public func onSSLError(_ errorMessage: String) {}
    public func onQueueWaitExpired() {}
}

extension QueueItEngineOptions {
    /// The request timeout in force: the chosen one, else the platform's.
    var effectiveRequestTimeout: Duration { requestTimeout ?? platform.defaultRequestTimeout }

    /// The view delay in force: `viewDelay` in the platform's unit, else `viewDelayMs`.
    var effectiveViewDelay: Duration { viewDelay.map(platform.viewDelay) ?? .milliseconds(viewDelayMs) }
}

/// The SDK's engine options, plus what a WebView-less engine needs to know.
public struct QueueItEngineOptions: Sendable, Hashable {
    /// The user agent of the (virtual) WebView; also the enqueue body's `userAgent`.
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
    /// Per-request timeout; nil: the platform's (iOS 60 s, Android 10 s).
    public var requestTimeout: Duration?
    /// Queue page poll interval without `Retry-After` (headless addition).
    public var queuePagePollInterval: Duration
    /// How long the virtual WebView waits in the queue before giving up (headless addition).
    public var maxQueueWait: Duration

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
