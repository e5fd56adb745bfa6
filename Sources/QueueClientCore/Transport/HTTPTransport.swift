/// Sends one request and waits for its whole response. Implementations never follow
/// redirects: the navigator must see every `Location`.
public protocol HTTPTransport: Sendable {
    func execute(_ request: OutgoingRequest, timeout: Duration) async -> Result<IncomingResponse, TransportError>
}
