/// The errors `onError(error:errorMessage:)` reports (Android's `Error` plus iOS's runtime codes).
public enum QueueError: String, Sendable, Hashable, CaseIterable {
    /// An HTTP 4xx from the enqueue API (wrong customer id, waiting room or CNAME).
    case invalidResponse
    /// A TLS failure, and also (as in Android) a queue or target URL missing from the answer.
    case sslError
    /// Never reported by this engine; kept so code written against the SDK compiles. The SDKs
    /// send it when a connectivity check before the first request finds no network (Android's
    /// `NO_CONNECTION`, iOS's `NetworkUnavailable`); a headless engine does not check, and a
    /// missing network shows as failed requests and then `onQueueItUnavailable()`.
    case networkUnavailable
    /// Never reported by this engine; kept so code written against the SDK compiles. Neither
    /// SDK refuses a second `run`/`tryPass` while an enqueue call is in flight any more: iOS
    /// 3.3+ never sets its `requestInProgress` flag, and Android clears its flag as soon as the
    /// HTTP call has started (it still throws during its offline wait, which a headless engine
    /// does not have).
    case requestAlreadyInProgress
    /// iOS's provider failure code 3: enqueue retries used up. iOS sends it together with
    /// `onQueueItUnavailable`; Android sends only the latter.
    case queueUnavailable
    /// Headless only: a queue page failed to load and the platform's WebView does not recover
    /// (iOS at once, Android after its reloads). The SDK leaves its view on that page with no
    /// callback; an engine without a screen must end, so it says this.
    case queuePageFailed
}
