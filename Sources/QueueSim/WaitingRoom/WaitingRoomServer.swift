import Foundation
import HTTPTypes
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import QueueClientCore
import Synchronization

/// The embedded waiting room as a real HTTP/1.1 server on SwiftNIO (or, with `tls`, HTTPS
/// speaking h2 or HTTP/1.1 by ALPN: WaitingRoomServer+TLS.swift): a thin adapter that turns
/// each request into `(HTTPRequest, body)`, asks `WaitingRoomService` under a lock with
/// `now = clock.now`, and answers after the reply's delay on an event-loop timer.
///
/// - `.reset`: the connection is closed with `SO_LINGER 0` (an RST) without an answer.
/// - `.noAnswer`: the request is held until the client gives up, at most `noAnswerHold`, or
///   until the server stops; then the connection is reset.
/// - A body over `maximumBodySize` is answered 413 and the connection closed.
/// - A request that cannot be read as HTTP/1.1 is answered 400 and the connection closed.
/// - A connection that sends nothing for `idleTimeout` (between requests, or in the middle of
///   one) is closed.
/// - Stopping (task cancellation, or one of `gracefulShutdownSignals`) closes the listener,
///   lets answers in flight go out for up to `shutdownGrace`, then closes every connection.
///
/// Hummingbird served the room before; its router and request/response types cost more per
/// request than the room's own work (docs/benchmarks.md), and the room's routes are the
/// service's, not a router's. Logs one line per request at debug level (method, path without
/// the query — queries can carry tokens — status, delay).
package struct WaitingRoomServer: Sendable {
    package let configuration: WaitingRoomConfiguration
    package let host: String
    package let port: Int
    private let clock: any RunClock
    private let logger: Logger
    private let onServerRunning: @Sendable (Int) async -> Void
    private let service: LockedWaitingRoomService
    package let idleTimeout: Duration
    /// `queuesim serve`: one info line per second with traffic (`RoomTraffic.line`). Off, the
    /// room counts nothing (a `run`'s embedded room keeps its lock as short as before).
    package let logsEverySecond: Bool
    /// `queuesim serve`: the `Queuesim-Room-Start` header on every answer and
    /// `GET /queuesim/status` (nil: neither, as in a run's own room).
    package let announcement: RoomAnnouncement?
    /// TLS with ALPN `h2, http/1.1` (WaitingRoomServer+TLS.swift); nil: plain HTTP/1.1.
    package let tls: RoomTLS?

    /// `https` over TLS, else `http`.
    package var scheme: String { tls == nil ? "http" : "https" }

    /// Pending connections the listening socket queues. A launch opens with a burst (800
    /// visitors in the same millisecond, say); with the usual 256 the kernel drops the SYNs
    /// past it, and those visitors' first enqueue waits out TCP's 1 s SYN retransmit — a
    /// delay the real Queue-it edge would not add. The kernel caps it at `somaxconn`.
    package static let listenBacklog = 8192
    /// Longest time a `.noAnswer` request is held open.
    package static let noAnswerHold: Duration = .seconds(60)
    /// A connection silent this long (no request, or a request that stopped arriving) is
    /// closed, unless `init` is given another bound.
    package static let defaultIdleTimeout: Duration = .seconds(60)
    /// Larger request bodies are answered 413 (an enqueue body is a few hundred bytes).
    package static let maximumBodySize = 1 << 20
    /// How long answers in flight may take to go out once the server is stopping.
    package static let shutdownGrace: Duration = .seconds(5)

    /// - Parameters:
    ///   - clock: the run's clock, so the room's `now` is relative to the run's start.
    ///   - idleTimeout: how long a connection may stay silent.
    ///   - logsEverySecond: count requests and log a line per second with any (`queuesim serve`).
    ///   - tls: serve TLS (h2 or HTTP/1.1 by ALPN) with this certificate and key.
    ///   - onServerRunning: called with the bound port once the server listens (port 0 binds a free one).
    package init(
        configuration: WaitingRoomConfiguration, host: String = "127.0.0.1", port: Int = 0,
        clock: any RunClock = WallClock(), logger: Logger, idleTimeout: Duration = defaultIdleTimeout,
        logsEverySecond: Bool = false, announcement: RoomAnnouncement? = nil, tls: RoomTLS? = nil,
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) {
        self.tls = tls
        self.announcement = announcement
        self.logsEverySecond = logsEverySecond
        self.idleTimeout = idleTimeout
        self.configuration = configuration
        self.host = host
        self.port = port
        self.clock = clock
        self.logger = logger
        self.onServerRunning = onServerRunning
        service = LockedWaitingRoomService(
            WaitingRoomService(configuration: configuration), countsTraffic: logsEverySecond)
    }

    /// Serves until the task is cancelled or one of `gracefulShutdownSignals` (SIGINT, SIGTERM
    /// for `queuesim serve`) arrives, then stops gracefully. Throws when it cannot listen.
    package func run(gracefulShutdownSignals: [Int32] = []) async throws {
        // Every phone in the room holds a connection or two: as many descriptors as allowed.
        DescriptorLimit.raiseToHardLimit()
        let connections = RoomConnections()
        let (service, clock, logger, idleTimeout, announcement, tls) = (
            service, clock, logger, idleTimeout, announcement, tls
        )
        // Accepted connections inherit TCP_NODELAY from the listener, where ServerBootstrap sets
        // it by default. (A child option `.socketOption(.tcp_nodelay)` was here: level
        // SOL_SOCKET, where option 1 is SO_DEBUG, which needs CAP_NET_ADMIN: for a user other
        // than root every accepted connection failed.)
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.backlog, value: Int32(Self.listenBacklog))
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                if let tls {
                    connections.add(channel)
                    return Self.configureTLS(
                        channel, tls: tls, service: service, clock: clock, logger: logger, idleTimeout: idleTimeout,
                        announcement: announcement)
                }
                do {
                    try Self.configure(
                        channel.pipeline.syncOperations, service: service, clock: clock, logger: logger,
                        idleTimeout: idleTimeout, announcement: announcement)
                    connections.add(channel)
                    return channel.eventLoop.makeSucceededVoidFuture()
                } catch {
                    return channel.eventLoop.makeFailedFuture(error)
                }
            }
            .bind(host: host, port: port)
            .get()
        let stop = StopLatch()
        let signals =
            gracefulShutdownSignals.isEmpty ? nil : SignalTrap(signals: gracefulShutdownSignals) { stop.fire() }
        defer { signals?.restore() }
        await onServerRunning(listener.localAddress?.port ?? 0)
        let summaries =
            logsEverySecond ? Task { await Self.logEverySecond(service, clock: clock, logger: logger) } : nil
        await withTaskCancellationHandler {
            await stop.wait()
        } onCancel: {
            stop.fire()
        }
        summaries?.cancel()
        try? await listener.close()
        await connections.closeAll(after: Self.shutdownGrace)
    }

    /// One connection's handlers. NIO's own 400 for an unreadable request is off: it leaves
    /// the connection open, and `RoomHTTPHandler` answers and closes it instead.
    static func configure(
        _ pipeline: ChannelPipeline.SynchronousOperations, service: LockedWaitingRoomService, clock: any RunClock,
        logger: Logger, idleTimeout: Duration, announcement: RoomAnnouncement? = nil, scheme: String = "http"
    ) throws {
        try pipeline.configureHTTPServerPipeline(withErrorHandling: false)
        try pipeline.addHandler(IdleStateHandler(readTimeout: .nanoseconds(idleTimeout.wholeNanoseconds)))
        try pipeline.addHandler(
            RoomHTTPHandler(
                service: service, clock: clock, logger: logger, announcement: announcement, scheme: scheme))
    }

    /// The enqueue path to configure in a client, prefix included; requests must carry
    /// `Host: {configuration.roomHost}` when a `waitingRoomDomain` is set.
    package var enqueuePath: String {
        let prefix = configuration.effectivePathPrefix.map { "/\($0)" } ?? ""
        return "\(prefix)/api/mobileapp/queue/\(configuration.customerId)/\(configuration.waitingRoomId)/enqueue"
    }

    /// The KnownUser-protected API's path (any host).
    package static let protectedAPIPath = "/api/protected"

    /// The room's queue now (`/metrics`' room series).
    package func queueFigures() -> RunProgress.RoomFigures {
        let now = clock.now
        let (queueLength, released) = service.withLock { $0.model.queueFigures(at: now) }
        return RunProgress.RoomFigures(queueLength: queueLength, released: released)
    }

    /// What the room's Queue-it rules did so far (run.json's `room`).
    package func ruleCounts() -> RoomRuleCounts {
        service.withLock { $0.model.ruleCounts }
    }

    /// Logs what the room answered in each second of its timeline that had requests, at the
    /// start of the next one; quiet seconds print nothing.
    private static func logEverySecond(_ service: LockedWaitingRoomService, clock: any RunClock, logger: Logger) async {
        guard logger.logLevel <= .info else { return }
        while !Task.isCancelled {
            // Wake just after the room's next whole second, so a line covers one second of it.
            let now = clock.now.sinceOrigin
            let second = Self.floorSeconds(now)
            let next = Duration.seconds(second + 1) - now
            try? await Task.sleep(for: next + .milliseconds(1))
            if Task.isCancelled { return }
            let (traffic, tickets) = service.takeTraffic()
            if traffic.total > 0 { logger.info("\(traffic.line(second: second, tickets: tickets))") }
        }
    }

    private static func floorSeconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return attoseconds < 0 ? seconds - 1 : seconds
    }

}

/// The service behind a lock: connections on every event loop share one room.
final class LockedWaitingRoomService: Sendable {
    // The service is a class of mutable state that only this lock ever touches.
    private nonisolated(unsafe) let service: WaitingRoomService
    /// Counted under the room's own lock, which every request takes anyway; only when asked.
    private nonisolated(unsafe) var traffic = RoomTraffic()
    private let countsTraffic: Bool
    private let lock = Mutex(())

    init(_ service: WaitingRoomService, countsTraffic: Bool = false) {
        self.service = service
        self.countsTraffic = countsTraffic
    }

    func withLock<T>(_ body: (WaitingRoomService) -> T) -> T {
        lock.withLock { _ in body(service) }
    }

    /// The room's reply to one request, counted by route and answer.
    func handle(_ request: HTTPRequest, body: [UInt8], path: Substring, at now: RunInstant) -> RoomReply {
        lock.withLock { _ in
            let reply = service.handle(request, body: body, at: now)
            if countsTraffic { traffic.count(path: path, reply: reply) }
            return reply
        }
    }

    /// The requests counted since the last call, and the visitors enqueued so far.
    func takeTraffic() -> (traffic: RoomTraffic, tickets: Int) {
        lock.withLock { _ in
            defer { traffic = RoomTraffic() }
            return (traffic, service.model.ticketCount)
        }
    }
}

/// Fires once; `wait` returns once it has.
private final class StopLatch: Sendable {
    private let state = Mutex<(fired: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func fire() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard !state.fired else { return [] }
            state.fired = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let fired = state.withLock { state in
                if !state.fired { state.waiters.append(continuation) }
                return state.fired
            }
            if fired { continuation.resume() }
        }
    }
}

/// The open connections, so a stop can close them.
private final class RoomConnections: Sendable {
    private let open = Mutex<[ObjectIdentifier: any Channel]>([:])

    func add(_ channel: any Channel) {
        open.withLock { $0[ObjectIdentifier(channel)] = channel }
        channel.closeFuture.whenComplete { [self] _ in
            _ = open.withLock { $0.removeValue(forKey: ObjectIdentifier(channel)) }
        }
    }

    /// Waits up to `grace` for the connections to finish their answers, then closes them.
    func closeAll(after grace: Duration) async {
        let deadline = ContinuousClock.now + grace
        for channel in open.withLock({ Array($0.values) }) {
            // A connection with nothing in flight closes at once; one with a delayed answer
            // or a held `.noAnswer` request gets the grace period.
            channel.pipeline.fireUserInboundEventTriggered(RoomHTTPHandler.Stopping())
        }
        while ContinuousClock.now < deadline, !open.withLock({ $0.isEmpty }) {
            try? await Task.sleep(for: .milliseconds(20))
        }
        for channel in open.withLock({ Array($0.values) }) { try? await channel.close() }
    }
}
