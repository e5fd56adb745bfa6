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

/// The SDK's engine options, plus what a WebView-less engine needs to know.
public struct QueueItEngineOptions: Sendable, Hashable {
    /// The user agent of the (virtual) WebView; also the enqueue body's `userAgent`.
    public var webViewUserAgent: String?
    /// Delay between `onQueueViewWillOpen` and the first queue page load, in milliseconds.
    public var viewDelayMs: Int
    /// Per-request timeout (headless addition).
    public var requestTimeout: Duration
    /// Queue page poll interval without `Retry-After` (headless addition).
    public var queuePagePollInterval: Duration
    /// How long the virtual WebView waits in the queue before giving up (headless addition).
    public var maxQueueWait: Duration

    public init(
        webViewUserAgent: String? = nil, viewDelayMs: Int = 0, requestTimeout: Duration = .seconds(10),
        queuePagePollInterval: Duration = .seconds(2), maxQueueWait: Duration = .seconds(30 * 60)
    ) {
        self.webViewUserAgent = webViewUserAgent
        self.viewDelayMs = viewDelayMs
        self.requestTimeout = requestTimeout
        self.queuePagePollInterval = queuePagePollInterval
        self.maxQueueWait = maxQueueWait
    }
}
