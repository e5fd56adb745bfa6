import Synchronization

/// What a live run's TLS connections spoke, by endpoint: connections by the protocol ALPN
/// agreed on and the requests each carried, counted as each connection ends. One per run's
/// transport, shared by its loops' factories: a lock taken once per connection's end (beside a
/// TLS handshake, nothing).
final class ConnectionProtocolTally: Sendable {
    private struct Endpoint {
        var connections: [String: Int] = [:]
        var requests = 0
        var mostRequests = 0
    }

    private let endpoints = Mutex<[Int: Endpoint]>([:])

    /// A connection to endpoint `index` ended having spoken `spoken` ("h2", "http/1.1") and
    /// carried `requests` requests. A connection that never finished its handshake (`spoken`
    /// nil) spoke nothing and is not counted.
    func connectionEnded(endpoint index: Int, spoke spoken: String?, requests: Int) {
        guard let spoken else { return }
        endpoints.withLock { endpoints in
            var endpoint = endpoints[index] ?? Endpoint()
            endpoint.connections[spoken, default: 0] += 1
            endpoint.requests += requests
            endpoint.mostRequests = max(endpoint.mostRequests, requests)
            endpoints[index] = endpoint
        }
    }

    /// The figures by endpoint, in the run's endpoint order, named by `origins` (an endpoint's
    /// index in it); nil when no TLS connection was counted.
    func figures(origins: [String]) -> [EndpointProtocolFigures]? {
        let counted = endpoints.withLock { $0 }
        guard !counted.isEmpty else { return nil }
        return counted.keys.sorted().map { index in
            let endpoint = counted[index]!
            let total = endpoint.connections.values.reduce(0, +)
            return EndpointProtocolFigures(
                endpoint: index < origins.count ? origins[index] : "endpoint \(index)",
                connections: endpoint.connections,
                streamsPerConnectionMean: total > 0 ? Double(endpoint.requests) / Double(total) : 0,
                streamsPerConnectionMax: endpoint.mostRequests)
        }
    }
}
