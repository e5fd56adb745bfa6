import Foundation

/// The keys of a visitor's connections: `client.connections` and a group's, `client.sourceAddresses`,
/// `target.protectedApiEndpoint` and `target.caFile`.
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
}
