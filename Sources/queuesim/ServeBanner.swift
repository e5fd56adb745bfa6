import QueueSim

/// What `queuesim serve` prints once it listens: the URLs a client must be configured with.
struct ServeBanner {
    let configuration: WaitingRoomConfiguration
    let host: String
    let port: Int

    var text: String {
        let local = "http://\(host.contains(":") ? "[\(host)]" : host):\(port)"
        let prefix = configuration.effectivePathPrefix.map { "/\($0)" } ?? ""
        let enqueuePath =
            "\(prefix)/api/mobileapp/queue/\(configuration.customerId)/\(configuration.waitingRoomId)/enqueue"
        var lines = [
            "queuesim serve: waiting room \(configuration.customerId)/\(configuration.waitingRoomId) listening on \(local)",
            "  enqueue (POST):  \(local)\(enqueuePath)",
            "  protected API:   \(local)/api/protected",
            "  room host:       \(configuration.roomHost) (the host in every URL the room hands out)",
            "  mode \(configuration.settings.mode.rawValue), outflow \(Int((configuration.settings.outflowPerSecond * 60).rounded()))/min",
        ]
        if configuration.waitingRoomDomain != nil {
            lines.append(
                "  requests must carry Host: \(configuration.roomHost) (waitingRoomDomain); other hosts get 404")
        }
        lines.append("  stop with Ctrl-C")
        return lines.joined(separator: "\n")
    }
}
