import Logging
import QueueClientCore
import Synchronization

/// The embedded waiting room served on 127.0.0.1 for the length of a wall-clock run.
final class EmbeddedRoomHandle: Sendable {
    private let server: WaitingRoomServer
    private let task = Mutex<Task<Void, any Error>?>(nil)

    init(configuration: WaitingRoomConfiguration, clock: WallClock, logger: Logger) {
        let portBox = PortBox()
        self.portBox = portBox
        server = WaitingRoomServer(
            configuration: configuration, host: "127.0.0.1", port: 0, clock: clock, logger: logger,
            onServerRunning: { port in portBox.fulfill(port) })
    }

    private let portBox: PortBox

    /// Starts the server and returns its port; a server that is not listening within 10 s is
    /// a run that cannot start (exit 3).
    func start() async throws -> Int {
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
