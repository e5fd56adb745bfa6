import HTTPTypes
import NIOCore
import QueueClientCore

/// One request through the live engine's own client (the same connect, TLS and HTTP path the
/// visitors will use), answered or failed within `timeout`: `WallClockRunner` asks it whether
/// a base URL is reachable before any visitor starts.
final class LiveProbe: LiveExchangeOwner {
    private let pool: LiveConnectionPool
    private var promise: EventLoopPromise<Result<IncomingResponse, TransportError>>?

    private init(connections: any ConnectionFactory, endpoint: LiveEndpoint, timeout: Duration) {
        pool = LiveConnectionPool(connections: connections, endpoint: endpoint, limit: 1, connectTimeout: timeout)
        pool.owner = self
    }

    static func send(
        _ request: OutgoingRequest, to endpoint: LiveEndpoint, on transportLoop: LiveTransport.Loop, timeout: Duration
    ) async -> Result<IncomingResponse, TransportError> {
        let loop = transportLoop.eventLoop
        let future = loop.flatSubmit {
            let probe = LiveProbe(
                connections: transportLoop.makeConnectionFactory(), endpoint: endpoint, timeout: timeout)
            let promise = loop.makePromise(of: Result<IncomingResponse, TransportError>.self)
            probe.promise = promise
            probe.pool.send(LiveExchange(slot: 0, serial: 1, request: request))
            loop.assumeIsolated().scheduleTask(in: .nanoseconds(timeout.wholeNanoseconds)) {
                probe.pool.abort(slot: 0, serial: 1)
                probe.exchangeCompleted(
                    slot: 0, serial: 1, result: .failure(.timedOut), handshake: nil, at: probe.pool.clock.now)
            }
            return promise.futureResult
        }
        do {
            return try await future.get()
        } catch {
            return .failure(LiveTransportErrors.map(error))
        }
    }

    func awaits(slot: Int, serial: UInt32) -> Bool { promise != nil }

    func exchangeCompleted(
        slot: Int, serial: UInt32, result: Result<IncomingResponse, TransportError>, handshake: Handshake?,
        at now: RunInstant
    ) {
        guard let promise else { return }
        self.promise = nil
        pool.closeAll()
        pool.owner = nil
        promise.succeed(result)
    }
}
