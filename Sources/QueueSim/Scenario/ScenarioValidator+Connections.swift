import Foundation

/// The keys of a visitor's connections: `client.connections` and a group's, `client.sourceAddresses`,
/// `target.protectedApiEndpoint`, `target.hosts` and `target.caFile`.
extension ScenarioValidator {
    /// The most loopback source addresses a run spreads visitors over (127.0.0.0/8 has 16.7
    /// million; a longer range is a typo).
    static let mostSourceAddresses = 65_536

    mutating func connectionModel(_ raw: Positioned<String>?, key: String) -> ConnectionModel? {
        guard let raw else { return nil }
        return choice(raw, key: key, default: ConnectionModel.device)
    }

    /// `127.0.0.2-127.0.0.200`: loopback only, since a run binds its sockets to them (another
    /// address would have to belong to this machine, and sharding spreads real addresses).
    mutating func sourceAddresses(_ raw: Positioned<String>?) -> SourceAddressRange? {
        guard let raw else { return nil }
        guard let range = SourceAddressRange.parse(raw.value) else {
            fail(
                "`client.sourceAddresses` must be an IPv4 address or a range such as 127.0.0.2-127.0.0.200, found \"\(raw.value)\"",
                at: raw.mark)
            return nil
        }
        guard range.first >> 24 == 127, range.last >> 24 == 127 else {
            fail(
                "`client.sourceAddresses` must be loopback addresses (127.x.x.x), found \"\(raw.value)\"; to spread visitors over real addresses, shard the run over machines (docs/distributed.md)",
                at: raw.mark)
            return nil
        }
        guard range.count <= Self.mostSourceAddresses else {
            fail(
                "`client.sourceAddresses` names \(range.count) addresses; at most \(Self.mostSourceAddresses)",
                at: raw.mark)
            return nil
        }
        return range
    }

    /// A base URL (scheme, host, port), like `target.endpoint` without `embedded`.
    mutating func protectedApiEndpoint(_ raw: Positioned<String>?) -> Endpoint? {
        guard let raw, checkPrintable(raw, key: "target.protectedApiEndpoint") else { return nil }
        switch Endpoint.parseBaseURL(raw.value) {
        case .success(let endpoint): return endpoint
        case .failure(let problem):
            fail(
                "`target.protectedApiEndpoint` must be a base URL such as https://staging.shop.example or http://127.0.0.1:8081 (scheme, host and port only)\(problem.detail)",
                at: raw.mark)
            return nil
        }
    }

    /// A PEM file relative to the scenario's folder, readable, holding at least one certificate.
    mutating func caFile(_ raw: Positioned<String>?) -> String? {
        guard let raw, checkPrintable(raw, key: "target.caFile") else { return nil }
        let path =
            raw.value.hasPrefix("/") ? raw.value : PathText.appending(raw.value, to: scenarioDirectory)
        guard let data = FileManager.default.contents(atPath: path) else {
            fail("`target.caFile`: cannot read \(raw.value)", at: raw.mark)
            return nil
        }
        guard String(decoding: data, as: UTF8.self).contains("-----BEGIN CERTIFICATE-----") else {
            fail("`target.caFile`: \(raw.value) holds no PEM certificate (-----BEGIN CERTIFICATE-----)", at: raw.mark)
            return nil
        }
        return path
    }

    static let hostsExample = "{ challenge.example.com: \"https://127.0.0.1:8443\" }"

    /// `target.hosts: { host: base URL }`: a host name each (no scheme, port or path), once,
    /// and where its requests connect.
    mutating func hostRoutes(_ node: YamlNode) -> [HostRoute] {
        guard case .mapping(let pairs) = node.content else {
            if !node.isNull {
                fail(
                    "`target.hosts` must be a mapping of host names to base URLs, such as \(Self.hostsExample), found \(node.kindDescription)",
                    at: node.mark)
            }
            return []
        }
        var routes: [HostRoute] = []
        for pair in pairs {
            let name = pair.key.scalarText ?? ""
            guard Self.isHostName(name) else {
                fail(
                    "`target.hosts`: \"\(name)\" is not a host name; write the host alone (no scheme, port or path), such as challenge.example.com",
                    at: pair.key.mark)
                continue
            }
            guard !routes.contains(where: { $0.host == name.lowercased() }) else {
                fail("`target.hosts` names \(name) twice", at: pair.key.mark)
                continue
            }
            guard let text = pair.value.scalarText, !pair.value.isNull else {
                fail(
                    "`target.hosts.\(name)` must be a base URL such as https://127.0.0.1:8443, found \(pair.value.kindDescription)",
                    at: pair.value.mark)
                continue
            }
            switch Endpoint.parseBaseURL(text) {
            case .success(let endpoint): routes.append(HostRoute(host: name, endpoint: endpoint))
            case .failure(let problem):
                fail(
                    "`target.hosts.\(name)` must be a base URL such as https://staging.example or http://127.0.0.1:8443 (scheme, host and port only)\(problem.detail)",
                    at: pair.value.mark)
            }
        }
        return routes
    }

    /// Letters, digits, `-` and `.`, as DNS names are written (an IPv4 address is one too).
    static func isHostName(_ text: String) -> Bool {
        !text.isEmpty && text.count <= 253 && !text.hasPrefix(".") && !text.hasSuffix(".")
            && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == ".") }
    }
}
