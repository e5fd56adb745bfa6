/// The redirect types the SDKs know (Android's `RedirectType`), with the engine's decision.
public enum RedirectType: String, Sendable, Hashable, CaseIterable {
    case unknown, queue, safetynet, afterevent, disabled, directLink, idle, debug, bypass

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
