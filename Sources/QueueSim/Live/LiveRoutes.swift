import QueueClientCore

/// Where a wall-clock run's requests go, as on a phone: the waiting room's hosts (its
/// `{customerId}.queue-it.net`, a proxy domain) to the embedded room or `target.endpoint`
/// (connect-to), and a group's protected API to its own URL's host, or to
/// `target.protectedApiEndpoint` (connect-to). Also whose connections each group's visitors
/// ride (`client.connections`).
struct LiveRoutes: Sendable {
    struct GroupRoute: Sendable, Equatable {
        var connections: ConnectionModel
        /// The endpoint of the group's protected API calls (0: the room's, which serves its
        /// built-in API).
        var protectedApiEndpoint: UInt8
    }

    /// Connect targets by endpoint index; the room's first.
    var targets: [ConnectTarget]
    var groups: [GroupRoute]

    /// Whether any group's visitors own their connections.
    var hasDeviceGroups: Bool { groups.contains { $0.connections == .device } }
    /// Whether every group rides the shared keep-alive connections.
    var isAllShared: Bool { !hasDeviceGroups }

    init(scenario: Scenario, room: ConnectTarget) {
        var targets = [room]
        var groups: [GroupRoute] = []
        for group in scenario.groups {
            var endpoint: UInt8 = 0
            if let api = scenario.target.applying(group.overrides).protectedApi {
                let target = Self.connectTarget(forAPI: api, staging: scenario.target.protectedApiEndpoint)
                if let target {
                    if let index = targets.firstIndex(of: target) {
                        endpoint = UInt8(index)
                    } else if targets.count < 256 {
                        targets.append(target)
                        endpoint = UInt8(targets.count - 1)
                    }
                }
            }
            groups.append(
                GroupRoute(
                    connections: group.connections ?? scenario.client.connections, protectedApiEndpoint: endpoint))
        }
        self.targets = targets
        self.groups = groups
    }

    /// `device`, `shared`, or `device (a, b), shared (c)` when the groups differ.
    func summary(groupNames: [String]) -> String {
        let models = ConnectionModel.allCases.filter { model in groups.contains { $0.connections == model } }
        guard models.count > 1 else { return models.first?.rawValue ?? ConnectionModel.device.rawValue }
        return models.map { model in
            let names = zip(groupNames, groups).filter { $0.1.connections == model }.map(\.0)
            return "\(model.rawValue) (\(names.joined(separator: ", ")))"
        }.joined(separator: ", ")
    }

    /// The API URL's own scheme, host and port, or the staging base URL when there is one.
    static func connectTarget(forAPI url: String, staging: Endpoint?) -> ConnectTarget? {
        if case .baseURL(let scheme, let host, let port) = staging {
            return ConnectTarget(scheme: scheme, host: host, port: port)
        }
        guard let parsed = SimpleURL(url), parsed.scheme == "http" || parsed.scheme == "https" else { return nil }
        return ConnectTarget(scheme: parsed.scheme, host: parsed.host, port: parsed.port)
    }

    /// The owner of a request of visitor `visitor` (plan index) of group `group`, and whether it
    /// wants a connection of its own for one exchange.
    func owner(
        visitor: Int, group: Int, kind: RequestStatistics.Endpoint, platform: @autoclosure () -> ClientPlatform?
    ) -> (owner: ConnectionOwner, oneUse: Bool) {
        let route = groups[group]
        let endpoint: UInt8 = kind == .protectedApi ? route.protectedApiEndpoint : 0
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

    /// Every owner a device visitor of `group` may have held, to close when it ends.
    func ownersOfVisitor(_ visitor: Int, group: Int) -> [ConnectionOwner] {
        let route = groups[group]
        guard route.connections == .device else { return [] }
        return [
            ConnectionOwner(visitor: visitor, role: .enqueue, endpoint: 0),
            ConnectionOwner(visitor: visitor, role: .webView, endpoint: 0),
            ConnectionOwner(visitor: visitor, role: .protectedApi, endpoint: route.protectedApiEndpoint),
        ]
    }
}
