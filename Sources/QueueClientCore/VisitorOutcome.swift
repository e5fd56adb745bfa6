/// How one visitor's journey ended: the words of the `outcome` report column.
///
/// The raw values are a promise to users (docs/contract.md): never rename them.
package enum VisitorOutcome: String, Sendable, Hashable, CaseIterable, Codable {
    /// Safetynet token, or the queue page led to the target URL.
    case passed
    /// Redirect type disabled, idle or afterevent.
    case disabled
    /// Still in the queue when `maxWait` ran out or the run ended.
    case queued
    /// The SDK's retries (1, 2, 4, 8 s) ran out on 5xx, transport errors or bad JSON.
    case unavailable
    /// A 4xx from the enqueue API, an SSL error, a missing queue or target URL.
    case error
    /// The queue page navigated to `queueit://close`.
    case closed
    /// `queueit://restartSession` more often than `maxRestarts` allows.
    case restarted
    /// Stopped by SIGINT/SIGTERM while in flight, or by the run's end before its enqueue was decided.
    case interrupted
    /// Closed the app on the queue page when its drawn `patience` ran out (and did not come
    /// back, or came back and gave up again). Last, so the outcomes before it keep their order.
    case abandoned
}

extension VisitorOutcome {
    /// The outcome's place in `allCases` (the reports' column order), without making the array
    /// and searching it: the row writer asks three times for every visitor.
    package var ordinal: Int {
        switch self {
        case .passed: 0
        case .disabled: 1
        case .queued: 2
        case .unavailable: 3
        case .error: 4
        case .closed: 5
        case .restarted: 6
        case .interrupted: 7
        case .abandoned: 8
        }
    }
}
