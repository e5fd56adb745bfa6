import QueueClientCore

/// Where a wall-clock run's requests go, by the host each request's URL names, as on a phone
/// whose DNS answers one place per host: a host of `target.hosts` to its own base URL; the
/// waiting room's hosts (its `{customerId}.queue-it.net`, a proxy domain) to the embedded room
/// or `target.endpoint` (connect-to); a protected API's host to `target.protectedApiEndpoint`
/// (connect-to) or to its own URL's host. Each place a request can go is one destination (an
/// endpoint of the pools): where to connect, and the host the requests name, which is also the
/// TLS server name and the name the certificate is checked against. A host no destination
/// serves is met mid-run: the loop driver has it resolved by DNS (`MidRunHosts`), and its
/// requests go to an endpoint made for it then, or fail as a host that does not resolve
/// fails on a phone.
/// Also whose connections each group's visitors ride (`client.connections`).
struct LiveRoutes: Sendable {
    /// One place requests go.
    struct Destination: Sendable, Hashable {
        /// Where to connect.
        var target: ConnectTarget
        /// The host the requests name (lowercased): SNI and the certificate's expected name.
        var host: String
        /// The embedded room, whose certificate stands in for every host it serves: its chain
        /// is verified, its name is not (it names 127.0.0.1, not `{customerId}.queue-it.net`).
        var isEmbeddedRoom = false
    }

    struct GroupRoute: Sendable, Equatable {
        var connections: ConnectionModel
        /// The destination of the group's waiting-room host (its enqueue calls and queue page).
        var roomEndpoint: UInt8
        /// The destination of the group's protected API calls (the room's when it has none).
        var protectedApiEndpoint: UInt8
    }

    /// Destinations by endpoint index; the first group's room's first.
    private(set) var destinations: [Destination] = []
    private(set) var groups: [GroupRoute] = []
    /// Hosts routed by name whatever the port (connect-to: `target.hosts`, the room's, a
    /// staging API's), lowercased.
    private var byHost: [String: UInt8] = [:]
    /// Hosts resolved by DNS, by `host[:port]` as their URL names them, lowercased.
    private var byAuthority: [String: UInt8] = [:]
    /// Endpoints a page may be sent to besides its room's (`target.hosts`'), for closing a
    /// visitor's WebView connections.
    private var extraPageEndpoints: [UInt8] = []

    /// The connect targets by endpoint index (the room's first).
    var targets: [ConnectTarget] { destinations.map(\.target) }

    /// Whether any group's visitors own their connections.
    var hasDeviceGroups: Bool { groups.contains { $0.connections == .device } }
    /// Whether every group rides the shared keep-alive connections.
    var isAllShared: Bool { !hasDeviceGroups }

    /// The most destinations a run has (`ConnectionOwner.endpoint` is one byte).
    static let mostDestinations = 256

    /// - Parameters:
    ///   - room: where the room's hosts connect (the embedded room, or `target.endpoint`).
    ///   - embedded: whether `room` is the embedded room.
    ///   - builtInAPI: the embedded room's own API URL, which groups without a `protectedApi`
    ///     call (the room answers it on any host).
    init(scenario: Scenario, room: ConnectTarget, embedded: Bool = false, builtInAPI: String? = nil) {
        let target = scenario.target
        var entries: [String: ConnectTarget] = [:]
        for entry in target.hosts {
            guard case .baseURL(let scheme, let host, let port) = entry.endpoint else { continue }
            entries[entry.host] = ConnectTarget(scheme: scheme, host: host, port: port)
        }
        for group in scenario.groups {
            let groupTarget = target.applying(group.overrides)
            let roomHost = Self.hostPart(of: groupTarget.roomAddress.host)
            let roomEndpoint =
                route(
                    roomHost, entries: entries,
                    else: Destination(target: room, host: roomHost, isEmbeddedRoom: embedded))
                ?? 0
            var apiEndpoint = roomEndpoint
            if let api = groupTarget.protectedApi ?? builtInAPI, let url = SimpleURL(api),
                url.scheme == "http" || url.scheme == "https"
            {
                let host = url.host.lowercased()
                if groupTarget.protectedApi == nil {
                    // The embedded room answers its built-in API on any host.
                    apiEndpoint =
                        route(
                            host, entries: entries,
                            else: Destination(target: room, host: host, isEmbeddedRoom: embedded))
                        ?? roomEndpoint
                } else {
                    apiEndpoint = routeAPI(url, entries: entries, staging: target.protectedApiEndpoint) ?? roomEndpoint
                }
            }
            groups.append(
                GroupRoute(
                    connections: group.connections ?? scenario.client.connections, roomEndpoint: roomEndpoint,
                    protectedApiEndpoint: apiEndpoint))
        }
        if destinations.isEmpty {
            _ = add(Destination(target: room, host: room.host.lowercased(), isEmbeddedRoom: embedded))
        }
        // The hosts only a redirect names, last: the room's destination stays the first.
        for entry in target.hosts {
            if let index = route(entry.host, entries: entries, else: nil) { extraPageEndpoints.append(index) }
        }
    }

    /// A protected API's host: its `target.hosts` entry or the room's when it has one (one host,
    /// one place), else the staging base URL (connect-to), else its own URL (DNS).
    private mutating func routeAPI(_ url: SimpleURL, entries: [String: ConnectTarget], staging: Endpoint?) -> UInt8? {
        let host = url.host.lowercased()
        if case .baseURL(let scheme, let stagingHost, let port) = staging {
            let staged = ConnectTarget(scheme: scheme, host: stagingHost, port: port)
            return route(host, entries: entries, else: Destination(target: staged, host: host))
        }
        if let index = route(host, entries: entries, else: nil) { return index }
        let authority = host + (url.port.map { ":\($0)" } ?? "")
        if let index = byAuthority[authority] { return index }
        let index = add(
            Destination(target: ConnectTarget(scheme: url.scheme, host: url.host, port: url.port), host: host))
        if let index { byAuthority[authority] = index }
        return index
    }

    /// `host`'s destination, routed by name: the one it has, its `target.hosts` entry, or
    /// `fallback` (nil: none).
    private mutating func route(_ host: String, entries: [String: ConnectTarget], else fallback: Destination?)
        -> UInt8?
    {
        if let index = byHost[host] { return index }
        guard let destination = entries[host].map({ Destination(target: $0, host: host) }) ?? fallback else {
            return nil
        }
        let index = add(destination)
        if let index { byHost[host] = index }
        return index
    }

    /// `destination`'s index, added if new; nil when the run has as many as it can hold.
    private mutating func add(_ destination: Destination) -> UInt8? {
        if let index = destinations.firstIndex(of: destination) { return UInt8(index) }
        guard destinations.count < Self.mostDestinations else { return nil }
        destinations.append(destination)
        return UInt8(destinations.count - 1)
    }

    /// The endpoint of a request whose URL names `authority` (`host[:port]`), or nil when no
    /// destination serves its host.
    func endpoint(forAuthority authority: String) -> UInt8? {
        if let index = byHost[authority] ?? byAuthority[authority] { return index }
        let lowered = authority.lowercased()
        return byHost[Self.hostPart(of: lowered)] ?? byAuthority[lowered]
    }

    /// `host` of `host[:port]` or `[v6]:port`, lowercased.
    static func hostPart(of authority: String) -> String { HostRoute.hostPart(of: authority) }

    /// `device`, `shared`, or `device (a, b), shared (c)` when the groups differ.
    func summary(groupNames: [String]) -> String {
        let models = ConnectionModel.allCases.filter { model in groups.contains { $0.connections == model } }
        guard models.count > 1 else { return models.first?.rawValue ?? ConnectionModel.device.rawValue }
        return models.map { model in
            let names = zip(groupNames, groups).filter { $0.1.connections == model }.map(\.0)
            return "\(model.rawValue) (\(names.joined(separator: ", ")))"
        }.joined(separator: ", ")
    }

    /// The owner of a request of visitor `visitor` (plan index) of group `group` to `authority`
    /// (the host its URL names), and whether it wants a connection of its own for one
    /// exchange; nil when no destination serves the host.
    func owner(
        visitor: Int, group: Int, kind: RequestStatistics.Endpoint, authority: String?,
        platform: @autoclosure () -> ClientPlatform?
    ) -> (owner: ConnectionOwner, oneUse: Bool)? {
        let endpoint: UInt8
        if let authority {
            guard let routed = self.endpoint(forAuthority: authority) else { return nil }
            endpoint = routed
        } else {
            endpoint = kind == .protectedApi ? groups[group].protectedApiEndpoint : groups[group].roomEndpoint
        }
        return owner(visitor: visitor, group: group, kind: kind, endpoint: endpoint, platform: platform())
    }

    /// The owner of a request of visitor `visitor` of group `group` to endpoint `endpoint` (one
    /// of the run's, or of a host met mid-run: `MidRunHosts`), and whether it wants a
    /// connection of its own for one exchange.
    func owner(
        visitor: Int, group: Int, kind: RequestStatistics.Endpoint, endpoint: UInt8,
        platform: @autoclosure () -> ClientPlatform?
    ) -> (owner: ConnectionOwner, oneUse: Bool) {
        let route = groups[group]
        guard route.connections == .device else { return (.shared(endpoint: endpoint), false) }
        switch kind {
        case .enqueue:
            // Android's SDK builds a new OkHttpClient (and so a new connection) for every
            // enqueue call; iOS keeps the URLSession's.
            let android = platform() == .android
            return (ConnectionOwner(visitor: visitor, role: .enqueue, endpoint: endpoint), android)
        case .queuePage:
            return (ConnectionOwner(visitor: visitor, role: .webView, endpoint: endpoint), false)
        case .protectedApi:
            return (ConnectionOwner(visitor: visitor, role: .protectedApi, endpoint: endpoint), false)
        }
    }

    /// Every owner a device visitor of `group` may have held, to close when it ends: its room's
    /// for the enqueue calls, its room's and `target.hosts`' for its WebView, its API's.
    func ownersOfVisitor(_ visitor: Int, group: Int) -> [ConnectionOwner] {
        let route = groups[group]
        guard route.connections == .device else { return [] }
        var owners = [
            ConnectionOwner(visitor: visitor, role: .enqueue, endpoint: route.roomEndpoint),
            ConnectionOwner(visitor: visitor, role: .webView, endpoint: route.roomEndpoint),
            ConnectionOwner(visitor: visitor, role: .protectedApi, endpoint: route.protectedApiEndpoint),
        ]
        for endpoint in extraPageEndpoints where endpoint != route.roomEndpoint {
            owners.append(ConnectionOwner(visitor: visitor, role: .webView, endpoint: endpoint))
        }
        return owners
    }

    /// Why a request to `authority` was not sent when it cannot be resolved mid-run (a URL that
    /// is not http(s), a driver without `MidRunHosts`): the SDK reads it as it reads a host name
    /// that does not resolve (no connection could be opened).
    static func unroutedError(authority: String) -> TransportError {
        let host = hostPart(of: authority)
        return .connectFailed(
            "no route to the host name \(host): its URL is not http(s), or this run resolves no host met mid-run; add \(host) to target.hosts"
        )
    }
}
