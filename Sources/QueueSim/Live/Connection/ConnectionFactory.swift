import NIOCore
import QueueClientCore

/// Makes one event loop's connections for its pool (`LiveConnectionPool`): the pool decides
/// when a connection opens, to which endpoint and for whom (`ConnectionPoolStateMachine`); a
/// factory only makes it, as AsyncHTTPClient's `HTTPConnectionPool` keeps `+StateMachine`
/// apart from `+Factory`. A factory comes with its loop in a `LiveTransport`, chosen once per
/// run, so a connection is never made on a loop that cannot carry it (TLS on queuesim's own
/// plain loop, say): nothing downcasts a loop to learn what it can do.
///
/// Loop-confined: every call is on `eventLoop`.
///
/// HTTP/2 (issue 55) is one more `PooledConnection`, not a branch: a TLS connection of
/// `NIOConnectionFactory` is a `LiveTLSConnection`, which speaks h2 (`H2Session` on
/// queuesim's own frame layer, `H2FrameCodec`) when ALPN agrees on it and HTTP/1.1 otherwise.
/// A visitor's requests are sequential, so its connection carries one stream at a time, and
/// the machine's rule of one exchange per connection holds; the pool hands a connection the
/// exchange (`write`), and the connection frames it in its protocol.
protocol ConnectionFactory: AnyObject {
    /// The loop the factory's connections live on: the pool's.
    var eventLoop: any EventLoop { get }

    /// Whether it can make connections to `endpoint` (a plain-HTTP factory refuses TLS). A
    /// pool is only ever built with endpoints its factory carries.
    func carries(_ endpoint: LiveEndpoint) -> Bool

    /// Starts making connection `request.id` to `endpoint` for `pool`. The factory later calls
    /// the pool's `connectionEstablished(_:connection:)` or `connectFailed(_:error:)` once;
    /// the connection it made reports its answers and its end to the pool by its id.
    func connect(_ request: ConnectionRequest, to endpoint: borrowing LiveEndpoint, for pool: LiveConnectionPool)

    /// A device's visitor ended: whatever the factory kept for it (its TLS sessions) goes.
    func deviceEnded(_ visitor: Int)
}

extension ConnectionFactory {
    func deviceEnded(_ visitor: Int) {}
}

/// What the pool asks a factory for: which connection, whose, from where, within what bound.
struct ConnectionRequest {
    var id: ConnectionID
    /// The endpoint's place in the pool's list (a factory may keep things per endpoint).
    var endpointIndex: Int
    /// A visitor owns the connection (a phone's own), rather than the run's shared pool.
    var forVisitor: Bool
    /// The local address to leave from; nil: the system's choice.
    var source: SocketAddress?
    var timeout: TimeAmount
    /// The phone whose connection it is, as its TLS client resumes sessions (nil: the run's
    /// shared pool, or a visitor whose platform the pool has not been told).
    var device: ConnectionDevice? = nil
}

/// A visitor's phone as its TLS client sees it: which device, which platform, and which of its
/// clients makes the connection (`role`: the app's HTTP client or its WebView).
struct ConnectionDevice {
    var visitor: Int
    var platform: ClientPlatform
    var role: ConnectionRole

    /// The device's TLS session cache the connection uses: iOS keeps one per process, the
    /// app's (URLSession: enqueue calls, the app's API calls) and WKWebView's networking
    /// process (page loads), which share none.
    var sessionCache: Int { role == .webView ? 1 : 0 }
}

/// One connection as its pool sees it, whatever carries its bytes. The pool hands it encoded
/// requests and closes it; it reports answers and its end back to the pool by its `id`. It
/// decides nothing about the pool and never times itself out: the loop's calendar holds every
/// exchange's deadline and aborts through the pool.
protocol PooledConnection: AnyObject {
    var id: ConnectionID { get }
    /// When the exchange in flight last made progress (the idle timeout's clock).
    var lastProgress: RunInstant { get }
    /// The connect completed, `duration` after it began.
    func connected(after duration: Duration)
    /// The exchange the connection was opened for: its answer carries the handshake.
    func markFirstExchange(_ exchange: ExchangeID)
    /// The handshake of the connection's first exchange, once: nil for any later exchange.
    func takeHandshake() -> Handshake?
    /// The HTTP version its answers come in (read when one has come: the handshake is over).
    var spokenProtocol: SpokenProtocol { get }
    /// Writes `exchange`'s request, sent at the next `flush`, in the connection's protocol:
    /// HTTP/1.1 bytes (`LiveRequestEncoding`, with the pool's encoded shared `heads`) or h2
    /// frames. `defaultAuthority`: the `Host` of a request that names none. `keep`: the
    /// connection is shared, so an HTTP/1.1 connection writes into its last request's buffer
    /// and keeps this one's. `now`: the pool's reading of the clock for this event.
    func write(
        _ exchange: borrowing LiveExchange, defaultAuthority: String, heads: inout EncodedHeads, keep: Bool,
        at now: RunInstant)
    /// Sends what `write` handed over.
    func flush()
    /// Closes the connection; its end reaches the pool as `connectionEnded`.
    func close()
}
