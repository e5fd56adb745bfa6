/// What `onQueuePassed(info:)` carries.
public struct QueuePassedInfo: Sendable, Hashable {
    /// The queueittoken (nil when the target was reached without one). A credential.
    public var queueItToken: String?
    /// Made by the engine; public so an app can build one for its own tests of a listener.
    public init(queueItToken: String?) { self.queueItToken = queueItToken }
}

/// What `onQueueDisabled(info:)` carries: the disabled/idle/afterevent token.
public struct QueueDisabledInfo: Sendable, Hashable {
    /// The enqueue answer's `QueueitToken`, nil when it had none. A credential: a
    /// KnownUser-protected API accepts it as it accepts a passed token, so present it the same
    /// way (the SDKs' hybrid flow does).
    public var queueItToken: String?
    /// Made by the engine; public so an app can build one for its own tests of a listener.
    public init(queueItToken: String?) { self.queueItToken = queueItToken }
}

/// The callbacks of Queue-it's Swift SDK, in the same words. Callbacks may arrive on any task.
///
/// The engine calls them synchronously from the task that awaits `run`, `tryPass` or
/// `showQueue`, and waits for each to return: hop to your own actor (for UI, the main actor)
/// inside the callback rather than blocking in it.
public protocol QueueListener: Sendable {
    /// The visitor may go on to the protected part of the app: the room let it through
    /// (`safetynet`) or the queue page sent it to the target URL. Store `info.queueItToken`
    /// with its time and check that state before queueing again (README).
    func onQueuePassed(info: QueuePassedInfo)
    /// The queue view is about to open (before the view delay and the first page load): the
    /// place for a spinner. Fires for every `showQueue`, also one that then fails at once.
    func onQueueViewWillOpen()
    /// The waiting room is not queueing (redirect type `disabled`, `idle` or `afterevent`):
    /// let the visitor in. The SDKs report it apart from a pass, with the token.
    func onQueueDisabled(info: QueueDisabledInfo)
    /// Queue-it could not be reached: the enqueue call failed five times in a row (5xx,
    /// transport errors, unreadable answers) over about 15 s. Usually no network (README). On
    /// iOS the engine then also calls `onError(error: .queueUnavailable, …)`.
    func onQueueItUnavailable()
    /// The run failed for the reason `error` names (see `QueueError` for when each fires);
    /// `errorMessage` says it in words, for a log: the HTTP status and the server's message for
    /// a 4xx. Never carries a token.
    func onError(error: QueueError, errorMessage: String)
    /// The queue page sent `queueit://close`: the visitor chose to leave the queue.
    func onWebViewClosed()
    /// The queue page sent `queueit://restartSession`: the visit is over and the app should
    /// call `run` again to queue afresh (the SDK, too, only reports it).
    func onSessionRestart()
    /// The virtual WebView is now on another waiting-room page, `url` (useful for logging or
    /// analytics, README). Not called for pages outside the room.
    func onQueueUrlChanged(_ url: String)
    /// A queue page could not be loaded over TLS (handshake or certificate): the SDK's WebView
    /// SSL error. The queue visit ends with it.
    func onSSLError(_ errorMessage: String)
    /// Headless only: the queue page was still waiting when `maxQueueWait` ran out.
    func onQueueWaitExpired()
}

extension QueueListener {
    /// Optional, as in the SDK: by default a closed view needs nothing.
    public func onWebViewClosed() {}
    /// Optional, as in the SDK: by default nothing re-runs (call `run` yourself to queue again).
    public func onSessionRestart() {}
    /// Optional, as in the SDK: by default page changes go unheard.
    public func onQueueUrlChanged(_ url: String) {}
    /// Optional, as in the SDK: by default a TLS failure on the queue page ends the visit
    /// without a word.
    public func onSSLError(_ errorMessage: String) {}
    /// Optional (headless only): by default a wait that runs out ends the visit without a word.
    public func onQueueWaitExpired() {}
}
