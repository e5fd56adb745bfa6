import Foundation
import Hummingbird
import Logging
import NIOCore
import QueueClientCore
import ServiceLifecycle
import UnixSignals

/// The embedded waiting room as a real HTTP server (Hummingbird 2): a thin adapter that turns
/// each request into `(HTTPRequest, body)`, asks `WaitingRoomService` under a lock with
/// `now = clock.now`, sleeps the reply's delay and answers.
///
/// - `.reset`: the connection is closed with `SO_LINGER 0` (an RST) without an answer.
/// - `.noAnswer`: the request is held until the client gives up, at most `noAnswerHold`, or
///   until the server shuts down; then the connection is closed without an answer.
///
/// Prints nothing; logs one line per request at debug level (method, path without the query —
/// queries can carry tokens — status, delay).
public struct WaitingRoomServer: Sendable {
    public let configuration: WaitingRoomConfiguration
    public let host: String
    public let port: Int
    private let clock: any RunClock
    private let logger: Logger
    private let onServerRunning: @Sendable (Int) async -> Void
    private let service: LockedWaitingRoomService

    /// Pending connections the listening socket queues. A launch opens with a burst (800
    /// visitors in the same millisecond, say); with the usual 256 the kernel drops the SYNs
    /// past it, and those visitors' first enqueue waits out TCP's 1 s SYN retransmit — a
    /// delay the real Queue-it edge would not add. The kernel caps it at `somaxconn`.
    public static let listenBacklog = 8192

    /// Longest time a `.noAnswer` request is held open.
    public static let noAnswerHold: Duration = .seconds(60)

    /// - Parameters:
    ///   - clock: the run's clock, so the room's `now` is relative to the run's start.
    ///   - onServerRunning: called with the bound port once the server listens (port 0 binds a free one).
    public init(
        configuration: WaitingRoomConfiguration, host: String = "127.0.0.1", port: Int = 0,
        clock: any RunClock = WallClock(), logger: Logger,
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) {
        self.configuration = configuration
        self.host = host
        self.port = port
        self.clock = clock
        self.logger = logger
        self.onServerRunning = onServerRunning
        service = LockedWaitingRoomService(WaitingRoomService(configuration: configuration))
    }

    /// Runs until the task is cancelled. Cancellation becomes a graceful shutdown (open
    /// requests finish, then the listener closes), so stopping a run or `serve` logs no
    /// errors; SIGINT/SIGTERM handling is the caller's choice.
    /// - Parameter gracefulShutdownSignals: signals (SIGINT, SIGTERM for `queuesim serve`) that
    ///   stop the server gracefully, without the cancellation noise Hummingbird logs otherwise.
    public func run(gracefulShutdownSignals: [UnixSignal] = []) async throws {
        let responder = RoomResponder(service: service, clock: clock, logger: logger)
        let onRunning = onServerRunning
        let app = Application(
            responder: responder,
            configuration: .init(
                address: .hostname(host, port: port), serverName: nil, backlog: Self.listenBacklog),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? 0) },
            logger: logger)
        let group = ServiceGroup(
            configuration: .init(services: [app], gracefulShutdownSignals: gracefulShutdownSignals, logger: logger))
        // The group runs in its own task: run inside the cancelled caller, Hummingbird's child
        // tasks would inherit the cancellation and log "CancellationError" and "Already closed"
        // as errors instead of shutting down gracefully.
        let running = Task { try await group.run() }
        try await withTaskCancellationHandler {
            try await running.value
        } onCancel: {
            Task { await group.triggerGracefulShutdown() }
        }
    }

    /// The enqueue path to configure in a client, prefix included; requests must carry
    /// `Host: {configuration.roomHost}` when a `waitingRoomDomain` is set.
    public var enqueuePath: String {
        let prefix = configuration.effectivePathPrefix.map { "/\($0)" } ?? ""
        return "\(prefix)/api/mobileapp/queue/\(configuration.customerId)/\(configuration.waitingRoomId)/enqueue"
    }

    /// The KnownUser-protected API's path (any host).
    public static let protectedAPIPath = "/api/protected"

    /// Reads the service's state (for tests and end-of-run summaries), under the lock.
    public func withService<T: Sendable>(_ body: (WaitingRoomService) -> T) -> T {
        service.withLock(body)
    }
}

/// The service behind a lock: the server's handlers run concurrently, the service is not thread-safe.
final class LockedWaitingRoomService: @unchecked Sendable {
    private let lock = NSLock()
    private let service: WaitingRoomService

    init(_ service: WaitingRoomService) { self.service = service }

    func withLock<T>(_ body: (WaitingRoomService) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(service)
    }
}

/// Keeps the connection's channel so a reset fault can close it.
struct RoomRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}

struct RoomResponder: HTTPResponder {
    typealias Context = RoomRequestContext
    static let maximumBodySize = 1 << 20

    let service: LockedWaitingRoomService
    let clock: any RunClock
    let logger: Logger

    func respond(to request: Request, context: RoomRequestContext) async throws -> Response {
        var request = request
        let buffer = try await request.collectBody(upTo: Self.maximumBodySize)
        let bytes = Array(buffer: buffer)
        let head = request.head
        let reply = service.withLock { $0.handle(head, body: bytes, at: clock.now) }
        let path = head.path.map { String($0.prefix(while: { $0 != "?" })) } ?? "/"
        switch reply {
        case .response(let responseHead, let responseBody, let delay):
            if delay > .zero { try await Task.sleep(for: delay) }
            logger.debug("\(head.method) \(path) \(responseHead.status.code) delay=\(delay)")
            return Response(
                status: responseHead.status, headers: responseHead.headerFields,
                body: .init(byteBuffer: ByteBuffer(bytes: responseBody)))
        case .reset(let delay):
            if delay > .zero { try await Task.sleep(for: delay) }
            logger.debug("\(head.method) \(path) reset")
            try await Self.resetConnection(context.channel)
        case .noAnswer:
            logger.debug("\(head.method) \(path) no-answer")
            _ = try? await cancelWhenGracefulShutdown {
                try await Task.sleep(for: WaitingRoomServer.noAnswerHold)
            }
            try await Self.resetConnection(context.channel)
        }
        // The channel is closed: Hummingbird's attempt to write this fails and is dropped.
        return Response(status: .internalServerError)
    }

    /// Closes the connection abortively (RST) so the client sees a reset, not a clean close.
    private static func resetConnection(_ channel: any Channel) async throws {
        if let options = channel as? any SocketOptionProvider {
            try? await options.setSoLinger(linger(l_onoff: 1, l_linger: 0)).get()
        }
        try? await channel.close()
    }
}
