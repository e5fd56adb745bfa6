/// Which of a visitor's three calls a request is. On a phone each rides its own HTTP stack,
/// with that stack's own limits: the SDK's enqueue call (NSURLConnection, OkHttp), the
/// WebView's page loads and polls (WKWebView, Chromium), the app's own protected API.
package enum PlatformCall: Sendable, Hashable {
    case enqueue
    case queuePage
    case protectedApi
}

/// How long a driver waits for the answer to one request, as the request's HTTP stack bounds it.
///
/// Drivers that see bytes arrive (the live engine) apply `kind` as written; drivers that only
/// see an answer arrive whole (the virtual clock, a transport such as `AsyncHTTPTransport`)
/// wait `answerBound(sentAt:)` for it.
package struct RequestTimeout: Sendable, Hashable {
    package enum Kind: Sendable, Hashable {
        /// `client.requestTimeout`: the whole exchange — waiting for a connection, connecting,
        /// TLS, the request and the whole answer — within `limit`.
        case wholeExchange
        /// The SDK stacks' own rule (`NSURLRequest.timeoutInterval`; OkHttp's connect, write and
        /// read timeouts): a connection and the request within `limit`, then each stretch
        /// without a byte of the answer within `limit`.
        case idle
        /// Chromium's (Android's WebView): a connection within `limit` (its connect job's
        /// 240 s), then no limit of the stack's own — nothing times out a page that is slow to
        /// answer. The visitor stops waiting at `giveUpAt` (the end of its `maxWait`).
        case connectThenUntil(giveUpAt: RunInstant)
    }

    package var limit: Duration
    package var kind: Kind

    package init(limit: Duration, kind: Kind) {
        self.limit = limit
        self.kind = kind
    }

    /// When a request sent at `now` fails unless its connection is up and its request written
    /// (and, for `.wholeExchange`, its answer complete).
    package func firstDeadline(sentAt now: RunInstant) -> RunInstant {
        switch kind {
        case .wholeExchange, .idle: now + limit
        case .connectThenUntil(let giveUpAt): max(now, min(now + limit, giveUpAt))
        }
    }

    /// The longest a driver that sees answers arrive whole waits for one sent at `now`: the
    /// limit, or for Chromium the time left until `giveUpAt`.
    package func answerBound(sentAt now: RunInstant) -> Duration {
        switch kind {
        case .wholeExchange, .idle: limit
        case .connectThenUntil(let giveUpAt): max(.zero, giveUpAt - now)
        }
    }
}

extension ClientPlatform {
    /// Chromium's `TransportConnectJob` timeout: the one limit Android's WebView puts on a page
    /// load (the SDK sets none on its `WebView`; Chromium has no read timeout).
    package static let chromiumConnectTimeout = Duration.seconds(240)

    /// The platform's own bound on `call`. `giveUpAt`: when the visitor stops waiting (a queue
    /// page's `maxWait`); only a bound with no end of its own uses it.
    ///
    /// iOS: every call is an `NSURLRequest` with the default `timeoutInterval`, 60 s without
    /// progress — the SDK's enqueue (`QueueITApiClient_NSURLConnection.m`) and the WKWebView's
    /// page loads (`QueueITWKViewController.m` loads `[NSURLRequest requestWithURL:]`).
    /// Android: the enqueue's `new OkHttpClient()` (`QueueITApiClient.java`) has 10 s connect,
    /// read and write timeouts; the WebView's loads have Chromium's (`chromiumConnectTimeout`,
    /// then `giveUpAt`). The protected API is the app's own client: the platform's stack default
    /// (NSURLSession's 60 s; OkHttp's 10 s).
    package func timeout(for call: PlatformCall, giveUpAt: RunInstant) -> RequestTimeout {
        switch (self, call) {
        case (.android, .queuePage):
            RequestTimeout(limit: Self.chromiumConnectTimeout, kind: .connectThenUntil(giveUpAt: giveUpAt))
        case (.ios, _), (.android, .enqueue), (.android, .protectedApi):
            RequestTimeout(limit: defaultRequestTimeout, kind: .idle)
        }
    }
}

extension VisitorGroupSettings {
    /// The timeout of `call` for a visitor of this group: `requestTimeout` over the whole
    /// exchange when the scenario set one (every call, every platform), else the platform's
    /// own per call (`requestTimeout` then holds the platform's idle figure, which the enqueue
    /// and protected API calls use).
    package func timeout(for call: PlatformCall, giveUpAt: RunInstant) -> RequestTimeout {
        guard requestTimeoutIsIdle else { return RequestTimeout(limit: requestTimeout, kind: .wholeExchange) }
        var timeout = platform.timeout(for: call, giveUpAt: giveUpAt)
        if timeout.kind == .idle { timeout.limit = requestTimeout }
        return timeout
    }
}
