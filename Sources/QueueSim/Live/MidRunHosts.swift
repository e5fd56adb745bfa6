import NIOCore
import NIOPosix
import QueueClientCore
import Synchronization

/// The hosts visitors meet mid-run that no route of the run names (an off-host redirect to a
/// challenge page, a queue URL on a custom domain), resolved as a phone resolves them: by the
/// system's resolver (`HostNameResolver`), off the event loops, within `Policy.deadline`, once
/// per host for the whole run (a failure is kept for `Policy.failureLifetime`, then asked
/// again), each `scheme://host:port` then one more endpoint of the pools, numbered after the
/// run's own destinations (`LiveRoutes`), up to `LiveRoutes.mostDestinations` in all. A host
/// that does not resolve, or not in time, fails its requests as a phone's do: a connect
/// failure naming the host (never the URL: it may carry a queueittoken).
///
/// One per run, shared by its loops: a lock taken once per request to such a host.
final class MidRunHosts: Sendable {
    /// How hosts are resolved: the resolver, and how long an answer may take.
    struct Policy: Sendable {
        var resolver: any HostNameResolver = SystemHostResolver()
        /// How long a lookup may take before the host counts as not resolving: Android's
        /// resolver (DnsResolver) waits 5 s per try (`RES_TIMEOUT` 5000 ms) and tries twice
        /// (`RES_DFLRETRY` 2) per server. A request's own timeout still bounds its wait: the
        /// lookup counts against it, as URLSession's and OkHttp's call timeouts count DNS.
        var deadline: Duration = .seconds(10)
        /// How long a failed lookup is remembered before the host is asked again (a resolver's
        /// negative cache, bounded: the host may come up during the run).
        var failureLifetime: Duration = .seconds(30)
    }

    /// Where a request goes: `scheme://host:port` as its URL names it.
    struct Origin: Hashable, Sendable {
        var scheme: String
        /// Lowercased.
        var host: String
        /// The URL's port, nil when it is the scheme's default.
        var port: Int?

        /// The origin of a request for `scheme` whose URL names `authority`; nil when it is not
        /// http(s) or names no host.
        init?(scheme: String?, authority: String) {
            let scheme = (scheme ?? "https").lowercased()
            guard scheme == "http" || scheme == "https" else { return nil }
            let host = HostRoute.hostPart(of: authority)
            guard !host.isEmpty else { return nil }
            var port: Int?
            if authority.count > host.count, let colon = authority.lastIndex(of: ":") {
                port = Int(authority[authority.index(after: colon)...])
            }
            let defaultPort = scheme == "https" ? 443 : 80
            self.scheme = scheme
            self.host = host
            self.port = port == defaultPort ? nil : port
        }

        var effectivePort: Int { port ?? (scheme == "https" ? 443 : 80) }
        var target: ConnectTarget { ConnectTarget(scheme: scheme, host: host, port: port) }
        /// `host:port`, the port always written (run.json's `generator.resolved_hosts`).
        var hostAndPort: String { "\(host):\(effectivePort)" }
    }

    /// What a request to a host met mid-run gets: its endpoint, or why it cannot go.
    enum Answer: Sendable, Equatable {
        case endpoint(UInt8)
        case failed(TransportError)
    }

    private struct Waiter {
        var origin: Origin
        var loop: any EventLoop
        var deliver: @Sendable (Answer) -> Void
    }

    private enum Lookup {
        /// `attempt` tells this lookup's answer from a late one of an earlier attempt.
        case resolving(attempt: Int, waiters: [Waiter])
        case resolved([SocketAddress])
        case failed(TransportError, until: NIODeadline)
    }

    private struct State {
        var lookups: [String: Lookup] = [:]
        var attempts = 0
        var indexByOrigin: [Origin: UInt8] = [:]
        /// The endpoints made so far: endpoint `firstIndex + i` is `endpoints[i]`.
        var endpoints: [LiveEndpoint] = []
        var origins: [Origin] = []
        /// The run is over: nothing more is delivered (a loop may be shut down).
        var closed = false
    }

    let policy: Policy
    /// The index of the first endpoint made here: the run's own destinations come first.
    let firstIndex: Int
    private let caFile: String?
    private let applicationProtocols: [String]
    private let state = Mutex(State())

    init(policy: Policy = Policy(), firstIndex: Int, caFile: String?, applicationProtocols: [String]) {
        self.policy = policy
        self.firstIndex = firstIndex
        self.caFile = caFile
        self.applicationProtocols = applicationProtocols
    }

    /// The most endpoints hosts met mid-run may have.
    var capacity: Int { max(0, LiveRoutes.mostDestinations - firstIndex) }

    /// `origin`'s endpoint or why it has none, when that is known now; else nil, and
    /// `deliver` is called on `loop` (in a later turn) once the host's lookup is over.
    func endpoint(
        for origin: Origin, on loop: any EventLoop, deliver: @escaping @Sendable (Answer) -> Void
    ) -> Answer? {
        enum Next {
            case answer(Answer)
            case make([SocketAddress])
            case start(attempt: Int)
            case wait
        }
        let now = NIODeadline.now()
        let next: Next = state.withLock { state in
            if let index = state.indexByOrigin[origin] { return .answer(.endpoint(index)) }
            let waiter = Waiter(origin: origin, loop: loop, deliver: deliver)
            switch state.lookups[origin.host] {
            case .resolved(let addresses):
                return .make(addresses)
            case .failed(let error, let until) where until > now:
                return .answer(.failed(error))
            case .resolving(let attempt, var waiters):
                waiters.append(waiter)
                state.lookups[origin.host] = .resolving(attempt: attempt, waiters: waiters)
                return .wait
            case .failed, nil:
                state.attempts += 1
                state.lookups[origin.host] = .resolving(attempt: state.attempts, waiters: [waiter])
                return .start(attempt: state.attempts)
            }
        }
        switch next {
        case .answer(let answer): return answer
        case .make(let addresses): return makeEndpoint(origin, addresses: addresses)
        case .wait: return nil
        case .start(let attempt):
            lookUp(origin, attempt: attempt)
            return nil
        }
    }

    /// Asks the resolver on one of SwiftNIO's loops (never the asking one: the run's plain
    /// loops shut down with the run, an answer may come later), bounded by `policy.deadline`.
    private func lookUp(_ origin: Origin, attempt: Int) {
        let loop = MultiThreadedEventLoopGroup.singleton.any()
        let host = origin.host
        let deadline = policy.deadline
        let timer = loop.scheduleTask(in: .nanoseconds(deadline.wholeNanoseconds)) { [self] in
            finish(host, attempt: attempt, .failure(Self.noAnswerError(host, within: deadline)))
        }
        // An IPv6 literal is named `[v6]` in a URL, bare to the resolver.
        let name = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        policy.resolver.addresses(of: name, port: origin.effectivePort, on: loop).whenComplete { [self] result in
            timer.cancel()
            finish(host, attempt: attempt, result.mapError { Self.didNotResolveError(host, reason: "\($0)") })
        }
    }

    /// The lookup `attempt` of `host` is over (the first of its answer and its deadline):
    /// every waiter gets its endpoint or the failure on its own loop.
    ///
    /// The waiters' endpoints are made while the host is still `resolving`, here, on the
    /// lookup's loop: an https endpoint's TLS contexts take milliseconds to make, and a burst's
    /// visitors that ask meanwhile join the waiters instead of each making them again on its
    /// own run loop (a burst of four to an https host: a run loop's largest lag 45–80 ms
    /// before, 0.7–3.4 ms after, in a debug build).
    private func finish(_ host: String, attempt: Int, _ result: Result<[SocketAddress], TransportError>) {
        let until = NIODeadline.now() + .nanoseconds(policy.failureLifetime.wholeNanoseconds)
        let asking: [Waiter]? = state.withLock { state in
            guard !state.closed, case .resolving(attempt, let waiters) = state.lookups[host] else { return nil }
            return waiters
        }
        guard let asking else { return }
        var made: [Origin: Answer] = [:]
        if case .success(let addresses) = result {
            for waiter in asking where made[waiter.origin] == nil {
                made[waiter.origin] = makeEndpoint(waiter.origin, addresses: addresses)
            }
        }
        let waiters: [Waiter]? = state.withLock { state in
            guard !state.closed, case .resolving(attempt, let waiters) = state.lookups[host] else { return nil }
            switch result {
            case .success(let addresses): state.lookups[host] = .resolved(addresses)
            case .failure(let error): state.lookups[host] = .failed(error, until: until)
            }
            return waiters
        }
        guard let waiters else { return }
        var answers: [(Waiter, Answer)] = []
        for waiter in waiters {
            switch result {
            case .success(let addresses):
                answers.append((waiter, made[waiter.origin] ?? makeEndpoint(waiter.origin, addresses: addresses)))
            case .failure(let error): answers.append((waiter, .failed(error)))
            }
        }
        // Handed to the loops under the lock, so none after `close` (its loop may be gone).
        state.withLock { state in
            guard !state.closed else { return }
            for (waiter, answer) in answers {
                let deliver = waiter.deliver
                waiter.loop.execute { deliver(answer) }
            }
        }
    }

    /// `origin`'s endpoint at `addresses`, made once: an IPv4 one first (without Happy
    /// Eyeballs' race, the family a load generator's network is likeliest to route), the others
    /// in DNS's order after it, tried when a connect fails (`ConnectAddressFallback`).
    private func makeEndpoint(_ origin: Origin, addresses: [SocketAddress]) -> Answer {
        if let index = state.withLock({ $0.indexByOrigin[origin] }) { return .endpoint(index) }
        let first = addresses.firstIndex(where: { $0.protocol == .inet }) ?? addresses.startIndex
        guard first < addresses.endIndex else {
            return .failed(Self.didNotResolveError(origin.host, reason: "no address"))
        }
        var ordered = addresses
        ordered.insert(ordered.remove(at: first), at: 0)
        for index in ordered.indices { ordered[index].port = origin.effectivePort }
        var endpoint: LiveEndpoint
        do {
            endpoint = try LiveEndpoint.make(
                origin.target, address: ordered[0], serverName: origin.host, caFile: caFile,
                applicationProtocols: applicationProtocols)
            endpoint.fallbackAddresses = Array(ordered.dropFirst())
        } catch {
            return .failed(.connectFailed("TLS for \(origin.host) cannot be set up: \(error)"))
        }
        return state.withLock { state in
            if let index = state.indexByOrigin[origin] { return .endpoint(index) }
            guard state.endpoints.count < capacity else { return .failed(Self.tooManyError(origin.host, capacity)) }
            state.endpoints.append(endpoint)
            state.origins.append(origin)
            let index = UInt8(firstIndex + state.endpoints.count - 1)
            state.indexByOrigin[origin] = index
            return .endpoint(index)
        }
    }

    /// Endpoints `from` up to `through` (run-wide indices), for a pool that has fewer.
    func endpoints(from start: Int, through end: Int) -> [LiveEndpoint] {
        state.withLock { state in
            Array(state.endpoints[(start - firstIndex)...(end - firstIndex)])
        }
    }

    /// The origins of the endpoints made, by index (`scheme://host[:port]`).
    var origins: [String] { state.withLock { $0.origins.map(\.target.origin) } }

    /// `host:port` of every endpoint made, in the order they were met.
    var resolvedHosts: [String] { state.withLock { $0.origins.map(\.hostAndPort) } }

    /// The run is over: answers still to come are dropped.
    func close() {
        state.withLock { $0.closed = true }
    }

    // MARK: - Words

    static func didNotResolveError(_ host: String, reason: String) -> TransportError {
        .connectFailed("the host name \(host) did not resolve (\(reason)); it is in no route of the run")
    }

    static func noAnswerError(_ host: String, within deadline: Duration) -> TransportError {
        let seconds = Double(deadline.wholeNanoseconds) / 1e9
        return .connectFailed(
            "the host name \(host) did not resolve: no DNS answer within \(DecimalText.trimmed(seconds, decimals: 1)) s"
        )
    }

    static func tooManyError(_ host: String, _ capacity: Int) -> TransportError {
        .connectFailed(
            "no endpoint for the host name \(host): more than \(capacity) hosts met mid-run (a run has at most "
                + "\(LiveRoutes.mostDestinations) destinations)")
    }

    /// A loop whose transport carries no TLS and was given no side pool for it (the run's
    /// plain loops always are: `TLSSidePool`).
    static func plainTransportError(_ host: String) -> TransportError {
        .connectFailed("https to \(host), met mid-run, has no TLS transport on this loop")
    }
}
