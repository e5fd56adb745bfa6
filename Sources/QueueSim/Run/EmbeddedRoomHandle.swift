import Logging
import QueueClientCore
import Synchronization

/// The embedded waiting room served on 127.0.0.1 for the length of a wall-clock run: plain
/// HTTP, or HTTPS (h2 or HTTP/1.1 by ALPN) when the scenario has `waitingRoom.tls`.
final class EmbeddedRoomHandle: Sendable {
    private let server: WaitingRoomServer
    private let task = Mutex<Task<Void, any Error>?>(nil)
    /// Why `waitingRoom.tls` could not be loaded (checked when the scenario was, so only a file
    /// changed since): the run cannot start.
    private let tlsProblem: RoomTLSError?

    init(configuration: WaitingRoomConfiguration, clock: WallClock, logger: Logger) {
        let portBox = PortBox()
        self.portBox = portBox
        var tls: RoomTLS?
        var tlsProblem: RoomTLSError?
        if let files = configuration.settings.tls {
            do {
                tls = try RoomTLS.load(certificate: files.certificate, key: files.key)
            } catch {
                tlsProblem = error
            }
        }
        self.tlsProblem = tlsProblem
        server = WaitingRoomServer(
            configuration: configuration, host: "127.0.0.1", port: 0, clock: clock, logger: logger, tls: tls,
            onServerRunning: { port in portBox.fulfill(port) })
    }

    private let portBox: PortBox

    /// How the run's visitors reach the room: `https` with `waitingRoom.tls`, else `http`.
    var scheme: String { tlsProblem == nil ? server.scheme : "https" }

    /// The certificate the run's visitors trust for the room when `target.caFile` names none:
    /// the room's own (a self-signed one is its own root).
    var certificateFile: String? { server.tls?.certificatePath }

    /// Starts the server and returns its port; a server that is not listening within 10 s is
    /// a run that cannot start (exit 3).
    func start() async throws -> Int {
        if let tlsProblem { throw RunAbort("the embedded waiting room cannot serve TLS: \(tlsProblem)") }
        let server = server
        let portBox = portBox
        let running = Task {
            do {
                try await server.run()
                portBox.fail(RunAbort("the embedded waiting room stopped before it listened"))
            } catch {
                portBox.fail(
                    RunAbort(
                        "the embedded waiting room could not listen on 127.0.0.1: \(LiveTransportErrors.plain(error))"))
                throw error
            }
        }
        task.withLock { $0 = running }
        let timeout = Task {
            try await Task.sleep(for: .seconds(10))
            portBox.fail(RunAbort("the embedded waiting room did not start listening within 10 s"))
        }
        defer { timeout.cancel() }
        return try await portBox.value()
    }

    /// The room's queue now.
    /// What the room's Queue-it rules did (run.json's `room`).
    func ruleCounts() -> RoomRuleCounts { server.ruleCounts() }

    func queueFigures() -> RunProgress.RoomFigures {
        server.queueFigures()
    }

    func stop() {
        task.withLock { $0?.cancel() }
    }
}

/// A one-shot value handed from the server's start callback to the runner.
private final class PortBox: Sendable {
    private enum State {
        case waiting([CheckedContinuation<Int, any Error>])
        case ready(Int)
        case failed(RunAbort)
    }

    private let state = Mutex(State.waiting([]))

    func fulfill(_ port: Int) { resolve(.ready(port)) }

    func fail(_ error: RunAbort) { resolve(.failed(error)) }

    private func resolve(_ final: State) {
        let waiters: [CheckedContinuation<Int, any Error>] = state.withLock { state in
            guard case .waiting(let waiters) = state else { return [] }
            state = final
            return waiters
        }
        for waiter in waiters {
            switch final {
            case .ready(let port): waiter.resume(returning: port)
            case .failed(let error): waiter.resume(throwing: error)
            case .waiting: break
            }
        }
    }

    func value() async throws -> Int {
        try await withCheckedThrowingContinuation { continuation in
            let immediate: State? = state.withLock { state in
                if case .waiting(var waiters) = state {
                    waiters.append(continuation)
                    state = .waiting(waiters)
                    return nil
                }
                return state
            }
            switch immediate {
            case .ready(let port): continuation.resume(returning: port)
            case .failed(let error): continuation.resume(throwing: error)
            case .waiting, .none: break
            }
        }
    }
}
