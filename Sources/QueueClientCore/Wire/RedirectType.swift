/// The redirect types the SDKs know (Android's `RedirectType`), with the engine's decision.
///
/// The cases are the SDK's, in its order. What `run` does with each: `safetynet` passes,
/// `disabled`, `idle` and `afterevent` report the room disabled, every other one shows the queue.
public enum RedirectType: String, Sendable, Hashable, CaseIterable {
    /// A token without `~rt_…~`, or with a value the SDK does not know. Shows the queue.
    case unknown
    /// The visitor must wait: no token, or `rt_queue`. Shows the queue.
    case queue
    /// The room is protecting the site but traffic is under its outflow, so the visitor passes
    /// at once, without a queue page (`onQueuePassed`).
    case safetynet
    /// The room's event has ended, as far as the name tells (`onQueueDisabled`).
    case afterevent
    /// The room is switched off (`onQueueDisabled`).
    case disabled
    /// The visitor entered the room's URL directly, as far as the name tells. Shows the queue.
    case directLink
    /// The room is not running, e.g. before its queue opens, as far as the name tells
    /// (`onQueueDisabled`; the SDKs before 2021 showed the queue).
    case idle
    /// Turns on the KnownUser connector's diagnostics (Android 2.2.0+). Shows the queue.
    case debug
    /// Added with `debug` in Android 2.2.0; no source says what issues it. Shows the queue.
    case bypass

    /// From a token the way the SDK reads it: no token or an empty one → `queue`; a token
    /// without `~rt_…~` or with a value outside the enum → `unknown` (Android would crash on
    /// an unknown value; iOS keeps the raw string; both then show the queue).
    package init(token: String?) {
        guard let token, !token.isEmpty else {
            self = .queue
            return
        }
        self = QueueItToken.withRedirectTypeBytes(of: token) { $0.flatMap(RedirectType.init(bytes:)) } ?? .unknown
    }

    /// The case whose raw value has exactly these bytes (`init(rawValue:)` without a string).
    init?(bytes: UnsafeBufferPointer<UInt8>) {
        for (type, raw) in Self.rawBytes where raw.elementsEqual(bytes) {
            self = type
            return
        }
        return nil
    }

    private static let rawBytes = allCases.map { ($0, Array($0.rawValue.utf8)) }

    /// What the engine does with a redirect type (§1.5 of the SDK notes).
    package var engineDecision: EngineDecision {
        switch self {
        case .safetynet: .passed
        case .disabled, .afterevent, .idle: .disabled
        case .unknown, .queue, .directLink, .debug, .bypass: .showQueue
        }
    }

    package enum EngineDecision: Sendable, Hashable {
        case passed, disabled, showQueue
    }
}
