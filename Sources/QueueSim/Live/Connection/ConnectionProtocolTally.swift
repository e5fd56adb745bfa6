import QueueClientCore
import Synchronization

/// What a live run's TLS connections spoke, by endpoint: connections by the protocol ALPN
/// agreed on and the requests each carried, counted once per connection when it is closed or
/// ends, whichever comes first (a connection still open at the run's end is counted when its
/// pool closes it). One per run's transport, shared by its loops' factories: a lock taken
/// once per connection (beside a TLS handshake, nothing).
final class ConnectionProtocolTally: Sendable {
    private struct Endpoint {
        var connections: [String: Int] = [:]
        var requests = 0
        var mostRequests = 0
    }

    private let endpoints = Mutex<[Int: Endpoint]>([:])
    /// Visitors' TLS handshakes by platform: how many resumed a session, how many were full.
    private let handshakes = Mutex<[ClientPlatform: TLSHandshakeFigures]>([:])

    /// A visitor's TLS handshake on `platform` completed, resuming a session or not.
    func handshakeCompleted(platform: ClientPlatform, resumed: Bool) {
        handshakes.withLock { handshakes in
            var figures = handshakes[platform] ?? TLSHandshakeFigures(full: 0, resumed: 0)
            if resumed { figures.resumed += 1 } else { figures.full += 1 }
            handshakes[platform] = figures
        }
    }

    /// Visitors' handshakes by platform (`ios`, `android`); nil when none was counted.
    var handshakeFigures: [String: TLSHandshakeFigures]? {
        let counted = handshakes.withLock { $0 }
        guard !counted.isEmpty else { return nil }
        return Dictionary(uniqueKeysWithValues: counted.map { ($0.key.rawValue, $0.value) })
    }

    /// A connection to endpoint `index` ended, or was closed, having spoken `spoken` ("h2",
    /// "http/1.1") and carried `requests` requests. A connection that never finished its handshake (`spoken`
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
    /// index in it); nil when no TLS connection was counted. Endpoints of one origin (the
    /// embedded room and its built-in API, both at the room's address) are one server: their
    /// connections are counted together, on one line.
    func figures(origins: [String]) -> [EndpointProtocolFigures]? {
        let counted = endpoints.withLock { $0 }
        guard !counted.isEmpty else { return nil }
        var names: [String] = []
        var byName: [String: Endpoint] = [:]
        for index in counted.keys.sorted() {
            let name = index < origins.count ? origins[index] : "endpoint \(index)"
            let endpoint = counted[index]!
            guard var merged = byName[name] else {
                names.append(name)
                byName[name] = endpoint
                continue
            }
            merged.connections.merge(endpoint.connections, uniquingKeysWith: +)
            merged.requests += endpoint.requests
            merged.mostRequests = max(merged.mostRequests, endpoint.mostRequests)
            byName[name] = merged
        }
        return names.map { name in
            let endpoint = byName[name]!
            let total = endpoint.connections.values.reduce(0, +)
            return EndpointProtocolFigures(
                endpoint: name, connections: endpoint.connections,
                streamsPerConnectionMean: total > 0 ? Double(endpoint.requests) / Double(total) : 0,
                streamsPerConnectionMax: endpoint.mostRequests)
        }
    }
}

/// Which HTTP version a live run's TLS connections to one endpoint spoke, and how many
/// requests each carried (`run.json`'s `generator.protocols_by_endpoint`; report.html's
/// generator section). Wall-clock runs only: a virtual run opens no connection. Plain-HTTP
/// endpoints are not listed: they speak HTTP/1.1, never h2 (no h2c).
package struct EndpointProtocolFigures: Sendable, Equatable, Codable {
    /// The endpoint's origin (`https://host[:port]`).
    var endpoint: String
    /// Connections by the protocol ALPN agreed on: `h2`, `http/1.1` (also when none was offered).
    var connections: [String: Int]
    /// Requests (h2 streams) a connection carried: mean and most.
    var streamsPerConnectionMean: Double
    var streamsPerConnectionMax: Int

    enum CodingKeys: String, CodingKey {
        case endpoint, connections
        case streamsPerConnectionMean = "streams_per_connection_mean"
        case streamsPerConnectionMax = "streams_per_connection_max"
    }

    package init(
        endpoint: String, connections: [String: Int], streamsPerConnectionMean: Double, streamsPerConnectionMax: Int
    ) {
        self.endpoint = endpoint
        self.connections = connections
        self.streamsPerConnectionMean = (streamsPerConnectionMean * 100).rounded() / 100
        self.streamsPerConnectionMax = streamsPerConnectionMax
    }

    /// One line for report.html, every number with its unit: `https://host: h2 on 20
    /// connections; 3 requests per connection (at most 5 on one connection)`.
    var summary: String {
        let spoken = connections.sorted { $0.key < $1.key }.map { name, count in
            "\(name) on \(count) connection\(count == 1 ? "" : "s")"
        }
        let mean = DecimalText.trimmed(streamsPerConnectionMean, decimals: 1)
        return "\(endpoint): \(spoken.joined(separator: ", ")); \(mean) request\(mean == "1" ? "" : "s") per connection"
            + " (at most \(streamsPerConnectionMax) on one connection)"
    }
}

/// One platform's visitors' TLS handshakes (`run.json`'s `generator.tls_handshakes`): iOS
/// resumes a device's session across its connections, as URLSession's TLS session cache does;
/// Android's SDK builds a new `OkHttpClient` per attempt, with nothing to resume.
package struct TLSHandshakeFigures: Sendable, Equatable, Codable {
    var full: Int
    var resumed: Int

    package init(full: Int, resumed: Int) {
        self.full = full
        self.resumed = resumed
    }

    /// report.html's line, visitors' handshakes: `TLS handshakes: ios 3 resumed of 20; android 0
    /// resumed of 12`.
    static func summary(_ byPlatform: [String: TLSHandshakeFigures]) -> String {
        "TLS handshakes: "
            + byPlatform.sorted { $0.key > $1.key }.map { platform, figures in
                "\(platform) \(figures.resumed) resumed of \(figures.full + figures.resumed)"
            }.joined(separator: "; ")
    }
}
