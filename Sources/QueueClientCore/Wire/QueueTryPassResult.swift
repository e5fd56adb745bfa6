/// What a `tryPass` learns from the enqueue API, shaped like the SDK's `QueueTryPassResult`.
public struct QueueTryPassResult: Sendable, Hashable {
    /// The page the WebView would load (`QueueUrl`), unchanged (iOS; no `userId=` rewrite).
    public var queueUrl: String?
    /// `EventTargetUrl`: reaching its host and path means the visitor passed.
    public var targetUrl: String?
    /// The `rt` of the token (`.queue` without a token): what `run` decides on, and what an app
    /// checks before `showQueue` (the README shows the queue for `.queue`).
    public var redirectType: RedirectType
    /// The token is non-empty (Android's rule; iOS also counts `""`).
    public var isPassedThrough: Bool
    /// `QueueitToken`, a credential: never log it.
    public var queueToken: String?

    /// The engine makes these in `tryPass`; public so an app can hand `showQueue` a result it
    /// kept, or test its own decision code.
    public init(
        queueUrl: String?, targetUrl: String?, redirectType: RedirectType, isPassedThrough: Bool, queueToken: String?
    ) {
        self.queueUrl = queueUrl
        self.targetUrl = targetUrl
        self.redirectType = redirectType
        self.isPassedThrough = isPassedThrough
        self.queueToken = queueToken
    }

    /// Derives the result from a parsed response, as the SDK's provider does.
    /// Consumed: its texts move into the result (taken out, not copied and released).
    package init(response: consuming EnqueueResponse) {
        let token = response.queueitToken.take()
        self.init(
            queueUrl: response.queueUrl.take(), targetUrl: response.eventTargetUrl.take(),
            redirectType: RedirectType(token: token), isPassedThrough: !(token ?? "").isEmpty, queueToken: token)
    }

    /// The redirect type as reports show it: the raw `rt` text when the token has one,
    /// `queue` without a token, `unknown` for a token without `~rt_…~`.
    package static func reportedRedirectType(token: String?) -> String {
        guard let token, !token.isEmpty else { return RedirectType.queue.rawValue }
        return QueueItToken.sdkRedirectType(of: token) ?? RedirectType.unknown.rawValue
    }
}
