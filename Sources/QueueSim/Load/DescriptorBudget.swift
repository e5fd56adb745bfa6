import QueueClientCore

/// Whether a wall-clock plan's visitors in flight at once fit in the descriptors the process
/// may open. In the `device` model every visitor in flight holds its own connections — iOS two
/// (its enqueue calls' keep-alive connection and its WebView's), Android one (each enqueue call's
/// connection is closed with its answer, before the WebView opens its own), one more for the
/// app's protected API — and with the embedded room both ends of each are in this process.
/// `shared` groups ride at most the pool's connections.
package struct DescriptorBudget: Sendable, Equatable {
    /// Most shared HTTP connections a wall-clock run keeps open, over all its loops. Visitors
    /// spend their time waiting between polls, so far fewer requests are in flight than
    /// visitors; every open loopback connection costs memory on both ends (client and embedded
    /// room share the process). A request that finds every connection busy waits, and under a
    /// launch burst that wait shows in `enqueue_ms` (docs/benchmarks.md).
    package static let sharedConnectionLimit = 1024

    /// The most visitors in flight at once: the plan's peak, held to `run.concurrency`.
    package var peakInFlight: Int
    /// Whether `run.concurrency` is what holds the peak down (the message points at it).
    package var limitedByConcurrency: Bool
    package var connectionsPerVisitor: Int
    package var descriptorsPerConnection: Int
    package var needed: Int
    package var limit: Int

    /// Descriptors kept for everything else: the listening socket, report files, the loops'
    /// own, the standard streams, the room's timers.
    static let reserve = 256

    package init(scenario: Scenario, peakInFlight: Int, limit: Int) {
        let deviceGroups = scenario.groups.filter { ($0.connections ?? scenario.client.connections) == .device }
        connectionsPerVisitor =
            deviceGroups.flatMap { group in
                group.platforms(client: scenario.client).shares.map { share in
                    Self.connections(platform: share.platform, flow: group.flow)
                }
            }.max() ?? 0
        descriptorsPerConnection = scenario.target.endpoint == .embedded ? 2 : 1
        self.peakInFlight = peakInFlight
        limitedByConcurrency = peakInFlight >= scenario.run.concurrency
        let shared =
            deviceGroups.count == scenario.groups.count
            ? 0 : min(scenario.run.concurrency, Self.sharedConnectionLimit)
        needed =
            (peakInFlight * connectionsPerVisitor + shared) * descriptorsPerConnection + Self.reserve
        self.limit = limit
    }

    /// The connections one visitor of `platform` holds open at once at most.
    static func connections(platform: ClientPlatform, flow: VisitorFlow) -> Int {
        let sdk =
            switch platform {
            case .ios: 2
            case .android: 1
            }
        return sdk + (flow == .protectedApi ? 1 : 0)
    }

    package var fits: Bool { needed <= limit }

    package var refusal: String {
        let cap = limitedByConcurrency ? "run.concurrency allows" : "the plan has"
        let ends = descriptorsPerConnection == 2 ? " (both ends in this process, with the embedded room)" : ""
        return
            "\(cap) \(peakInFlight) visitors in flight at once, whose own connections (\(connectionsPerVisitor) each, `client.connections: device`)\(ends) need \(needed) file descriptors, but this process may open \(limit) (ulimit -n's hard limit); lower run.concurrency to about \(max(1, (limit - Self.reserve) / max(1, connectionsPerVisitor * descriptorsPerConnection))), raise the limit, shard the run over processes (docs/distributed.md), or use `connections: shared`"
    }
}
