import QueueClientCore

/// How long a visitor's connection stays open with nothing to carry, as its phone's HTTP stack
/// keeps it (docs/live-engine.md, "How long a connection lives").
enum IdleLifetime: Equatable, Sendable {
    /// Open until its visitor ends or the server closes it: shared connections, and Android's
    /// WebView.
    case whileVisitorLasts
    /// URLSession's (iOS: enqueue calls, WKWebView, the app's API): closed after `Duration`
    /// idle, or at the visitor's end, whichever comes first.
    case closesAfterIdle(Duration)
    /// Android's enqueue call: the SDK builds a new `OkHttpClient` per call and abandons it
    /// after the answer. The connection stays in that client's pool, idle, owned by nobody and
    /// never used again, until the server closes it or the pool evicts it after `Duration`.
    case abandonedAfterUse(Duration)

    /// OkHttp 4.9's `ConnectionPool()`: `ConnectionPool(5, 5, TimeUnit.MINUTES)`, an idle
    /// connection evicted after 5 minutes (okhttp/src/main/kotlin/okhttp3/ConnectionPool.kt at
    /// parent-4.9.2; `RealConnectionPool.cleanup` evicts on `keepAliveDuration`).
    static let okHttpKeepAlive = DescriptorBudget.okHttpKeepAlive

    /// URLSession's idle close, measured by others (Apple documents none): an app on
    /// `URLSessionConfiguration.default` closed its idle HTTP/1.1 connection after about 30 s on
    /// Wi-Fi, though the server offered 300 s (Stack Overflow, "Keep-alive not working properly
    /// on iOS", server-side capture), and at once over cellular.
    static let urlSessionIdle: Duration = .seconds(30)

    /// The lifetime of a connection an exchange of `platform` rides. `oneUse`: the exchange wants
    /// a connection of its own (Android's enqueue). Shared owners' connections last the run.
    init(owner: ConnectionOwner, platform: ClientPlatform?, oneUse: Bool) {
        guard owner.isVisitor, let platform else {
            self = .whileVisitorLasts
            return
        }
        switch platform {
        case .android: self = oneUse ? .abandonedAfterUse(Self.okHttpKeepAlive) : .whileVisitorLasts
        case .ios: self = .closesAfterIdle(Self.urlSessionIdle)
        }
    }

    /// How long the connection may stay idle before the pool closes it; nil: no bound of its own.
    var idleBound: Duration? {
        switch self {
        case .whileVisitorLasts: nil
        case .closesAfterIdle(let bound), .abandonedAfterUse(let bound): bound
        }
    }
}
