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
