import QueueClientCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Why a run is told to stop early, shared by the signal handler, the `run.duration` deadline
/// and the visitors (which read the reason when they are cancelled: a visitor in the queue at
/// the end of `run.duration` is `queued`, one stopped by SIGINT is `interrupted`).
package final class RunStopSignal: Sendable {
    private struct State {
        var reason: StopReason?
        var signal: Int32?
        var stoppedAt: ContinuousClock.Instant?
        var handlers: [@Sendable () -> Void] = []
    }

    private let state = Mutex(State())

    package init() {}

    /// Stops the run. The first reason wins: a SIGINT after the deadline does not turn
    /// `queued` into `interrupted`. Returns whether this call was the one that stopped it.
    /// `signal`: the signal that asked for the stop (SIGTERM makes the exit code 143).
    @discardableResult
    package func stop(_ reason: StopReason, signal: Int32? = nil) -> Bool {
        let handlers: [@Sendable () -> Void]? = state.withLock { state in
            guard state.reason == nil else { return nil }
            state.reason = reason
            state.signal = signal
            state.stoppedAt = .now
            defer { state.handlers = [] }
            return state.handlers
        }
        guard let handlers else { return false }
        for handler in handlers { handler() }
        return true
    }

    /// Runs `handler` when the run is stopped (at once if it already is).
    package func onStop(_ handler: @escaping @Sendable () -> Void) {
        let alreadyStopped = state.withLock { state in
            if state.reason != nil { return true }
            state.handlers.append(handler)
            return false
        }
        if alreadyStopped { handler() }
    }

    package var reason: StopReason? { state.withLock { $0.reason } }

    package var wasInterrupted: Bool { reason == .interrupted }

    /// When `stop` was called: a stop that comes while the run is still starting takes effect
    /// at that moment, not when the runner gets round to it.
    package var stoppedAt: ContinuousClock.Instant? { state.withLock { $0.stoppedAt } }

    /// Stopped by SIGTERM (a CI runner's timeout, `docker stop`, Kubernetes): exit 143, not 130.
    package var wasTerminated: Bool { state.withLock { $0.signal == SIGTERM } }
}
