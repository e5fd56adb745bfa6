/// Sends one request and waits for its whole response. Implementations never follow
/// redirects: the navigator must see every `Location`.
///
/// Give `QueueItEngine` one of your own to send through your app's HTTP stack, a proxy or a
/// test double; `AsyncHTTPTransport` is the default. The engine calls it from many tasks at
/// once and keeps no state in it, cookies included: the machines set `Cookie` themselves.
public protocol HTTPTransport: Sendable {
    /// Sends `request` as it is and returns the answer, whatever its status, or why there was
    /// none. Errors are values, not throws, because the machines decide what a failure means
    /// (retry, give up, an SSL error). Give up after `timeout` with `.timedOut`: the engine does
    /// not bound a request itself.
    func execute(_ request: OutgoingRequest, timeout: Duration) async -> Result<IncomingResponse, TransportError>
}
