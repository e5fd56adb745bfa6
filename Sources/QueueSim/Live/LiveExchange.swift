import QueueClientCore

/// Who the pool's exchanges belong to: the loop's shard (or the reachability probe).
protocol LiveExchangeOwner: AnyObject {
    /// Whether request `serial` of `slot` is still awaited (not timed out, not stopped).
    func awaits(slot: Int, serial: UInt32) -> Bool
    func exchangeCompleted(slot: Int, serial: UInt32, result: Result<IncomingResponse, TransportError>)
}

/// One request of one visitor, as the pool carries it.
struct LiveExchange {
    var slot: Int
    var serial: UInt32
    var request: OutgoingRequest
    /// Sent again once already (after a stale keep-alive connection): never twice.
    var resent = false
}
