import QueueClientCore

/// Whether a wall-clock plan's visitors in flight at once fit in the descriptors the process
/// may open. In the `device` model every visitor in flight holds its own connections — iOS two
/// (its enqueue calls' keep-alive connection and its WebView's), Android one (its WebView's),
/// one more for the app's protected API — and with the embedded room both ends of each are in
/// this process. `shared` groups ride at most the pool's connections.
///
/// Android's enqueue connections outlive their visitors: OkHttp leaves each in the abandoned
/// client's pool, open, until the server closes it or 5 minutes pass (`IdleLifetime`). Held
/// at once: the Android arrivals of the busiest span of the lesser of 5 minutes and the server's
/// idle timeout — the embedded room's 60 s, or, for a server whose timeout is not known ahead,
/// the 5 minutes (one attempt per visitor; a retried attempt holds one more).
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
    /// Of those, the WebView's connections to `target.hosts` hosts other than the room's and
    /// the API's (`otherPageHosts`).
    package var pageHostConnections: Int
    package var descriptorsPerConnection: Int
    package var needed: Int
    package var limit: Int
    /// Android enqueue connections held open idle at once, at most (about: expected arrivals).
    package var heldConnections: Int
    /// How long each is assumed held: the lesser of OkHttp's 5 minutes and the server's idle
    /// timeout, when known (the embedded room's).
    package var heldFor: Duration
    /// Whether `heldFor` is the server's own timeout (the embedded room's), not an assumption.
    package var serverIdleTimeoutKnown: Bool

    /// How long OkHttp 4.9's pool keeps an idle connection: `ConnectionPool()` is
    /// `ConnectionPool(5, 5, TimeUnit.MINUTES)` (okhttp3/ConnectionPool.kt at parent-4.9.2).
    /// The live pool's `IdleLifetime.okHttpKeepAlive` is this one.
    package static let okHttpKeepAlive: Duration = .seconds(300)
    /// The embedded room's idle timeout (`WaitingRoomServer.defaultIdleTimeout`, which a test
    /// holds equal: this layer is below the room's).
    package static let embeddedRoomIdleTimeout: Duration = .seconds(60)

    /// Descriptors kept for everything else: the listening socket, report files, the loops'
    /// own, the standard streams, the room's timers.
    static let reserve = 256

    /// - Parameters:
    ///   - arrivalScale: the factor `--visitors` applied to the plan's rates and bursts.
    ///   - shards: the processes the plan is shared among (`--shard K/N`): each holds its share.
    package init(scenario: Scenario, peakInFlight: Int, limit: Int, arrivalScale: Double = 1, shards: Int = 1) {
        let deviceGroups = scenario.groups.filter { ($0.connections ?? scenario.client.connections) == .device }
        connectionsPerVisitor =
            deviceGroups.flatMap { group in
                let pageHosts = Self.otherPageHosts(scenario, group)
                return group.platforms(client: scenario.client).shares.map { share in
                    Self.connections(platform: share.platform, flow: group.flow) + pageHosts
                }
            }.max() ?? 0
        pageHostConnections = deviceGroups.map { Self.otherPageHosts(scenario, $0) }.max() ?? 0
        descriptorsPerConnection = scenario.target.endpoint == .embedded ? 2 : 1
        self.peakInFlight = peakInFlight
        limitedByConcurrency = peakInFlight >= scenario.run.concurrency
        let shared =
            deviceGroups.count == scenario.groups.count
            ? 0 : min(scenario.run.concurrency, Self.sharedConnectionLimit)
        serverIdleTimeoutKnown = scenario.target.endpoint == .embedded
        heldFor =
            serverIdleTimeoutKnown
            ? min(Self.okHttpKeepAlive, Self.embeddedRoomIdleTimeout) : Self.okHttpKeepAlive
        let android = Self.androidDeviceFraction(scenario)
        let arrivals = android > 0 ? scenario.arrivals.busiest(within: heldFor.secondsDouble) * arrivalScale : 0
        heldConnections = Int((arrivals * android / Double(max(1, shards))).rounded(.up))
        needed =
            (peakInFlight * connectionsPerVisitor + shared + heldConnections) * descriptorsPerConnection + Self.reserve
        self.limit = limit
    }

    /// The share of the plan's visitors who are Android phones owning their connections.
    static func androidDeviceFraction(_ scenario: Scenario) -> Double {
        let total = scenario.groups.reduce(0) { $0 + max(0, $1.weight) }
        guard total > 0 else { return 0 }
        return scenario.groups.reduce(0) { fraction, group in
            guard (group.connections ?? scenario.client.connections) == .device else { return fraction }
            let android = group.platforms(client: scenario.client).shares.filter { $0.platform == .android }
            return fraction + max(0, group.weight) / total * android.reduce(0) { $0 + $1.fraction }
        }
    }

    /// `target.hosts` entries a device's page may be sent to besides its room's host and its
    /// API's (a challenge page, a queue on another domain): a WebView keeps a connection per
    /// host, so a visitor sent there holds one more while its room's stays open until it ends
    /// or idles out. Hosts met mid-run that only DNS names cannot be known before the run.
    static func otherPageHosts(_ scenario: Scenario, _ group: VisitorGroup) -> Int {
        guard !scenario.target.hosts.isEmpty else { return 0 }
        let target = scenario.target.applying(group.overrides)
        var own: Set<String> = [HostRoute.hostPart(of: target.roomAddress.host)]
        if let api = target.protectedApi, let url = SimpleURL(api) { own.insert(url.host.lowercased()) }
        return Set(scenario.target.hosts.map(\.host)).subtracting(own).count
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

    private var pageHostsNote: String {
        pageHostConnections == 0
            ? "" : ", \(pageHostConnections) of them for `target.hosts` hosts a page may be sent to"
    }

    /// Whether Android's held connections, not the visitors in flight, need the most: the
    /// arrivals are then what to change, not `run.concurrency`.
    package var heldConnectionsDominate: Bool { heldConnections > peakInFlight * connectionsPerVisitor }

    package var refusal: String {
        let cap = limitedByConcurrency ? "run.concurrency allows" : "the plan has"
        let ends = descriptorsPerConnection == 2 ? " (both ends in this process, with the embedded room)" : ""
        let perVisitor = max(1, connectionsPerVisitor * descriptorsPerConnection)
        let room = (limit - Self.reserve) / descriptorsPerConnection - heldConnections
        let concurrency = room * descriptorsPerConnection / perVisitor
        let lower =
            heldConnections == 0
            ? "lower run.concurrency to about \(max(1, (limit - Self.reserve) / perVisitor))"
            : concurrency >= 1
                ? "lower the Android arrival rate or run.concurrency (to about \(concurrency))"
                : "lower the Android arrival rate"
        return
            "\(cap) \(peakInFlight) visitors in flight at once, whose own connections (\(connectionsPerVisitor) each\(pageHostsNote), `client.connections: device`)\(held)\(ends) need \(needed) file descriptors, but this process may open \(limit) (ulimit -n's hard limit); \(lower), raise the limit, shard the run over processes (docs/distributed.md), or use `connections: shared`"
    }

    /// The held Android connections' part of the refusal; empty when there are none.
    private var held: String {
        guard heldConnections > 0 else { return "" }
        let seconds = Int(heldFor.secondsDouble)
        let span =
            serverIdleTimeoutKnown
            ? "the embedded room closes idle connections after \(seconds) s"
            : "the server's idle timeout is not known ahead, so OkHttp's 5 minutes are assumed"
        return
            ", and about \(heldConnections) Android enqueue connections held open idle after their answers (OkHttp keeps each until the server closes it or 5 minutes pass; \(span): the Android arrivals of the busiest \(seconds) s)"
    }
}
