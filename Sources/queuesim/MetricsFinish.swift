import Foundation
import Synchronization

/// The end of a run's metrics (`MetricsSession.finish`: the final push and the linger) as a
/// task that signals can end. The reports are written and the end screen printed before it
/// starts, so nothing is lost by cutting it short:
/// - the first SIGINT/SIGTERM cancels it (a push ends at once, mid-exchange; the linger too);
/// - another one ends the process at once, with the signal's exit code.
final class MetricsFinish: Sendable {
    private struct State {
        var active = false
        var task: Task<Bool, Never>?
        var signal: Int32?
    }

    private let state = Mutex(State())

    /// For the run's signal handler, before anything else: true when the signal was this
    /// finish's (so the handler does nothing more).
    func handle(_ signal: Int32) -> Bool {
        enum Action {
            case notOurs
            case cancel(Task<Bool, Never>?)
            case exitNow
        }
        let action = state.withLock { state -> Action in
            guard state.active else { return .notOurs }
            guard state.signal == nil else { return .exitNow }
            state.signal = signal
            return .cancel(state.task)
        }
        switch action {
        case .notOurs:
            return false
        case .cancel(let task):
            task?.cancel()
            return true
        case .exitNow:
            StandardError.print(
                "queuesim run: \(Self.name(signal)) again: ending now (the reports were written before the metrics push)"
            )
            Foundation.exit(128 + signal)
        }
    }

    /// Runs `finish` (which returns whether the push was cancelled) where a signal can cancel
    /// it. Returns the signal that cancelled the push, nil when it was not cancelled (a signal
    /// that only cut the linger short is not a cancelled push).
    func run(_ finish: @escaping @Sendable () async -> Bool) async -> Int32? {
        // Active before the push can start, so no signal falls between the two.
        state.withLock { $0.active = true }
        let task = Task { await finish() }
        let signalledAlready = state.withLock { state in
            state.task = task
            return state.signal != nil
        }
        if signalledAlready { task.cancel() }
        let pushCancelled = await task.value
        return pushCancelled ? state.withLock { $0.signal } : nil
    }

    static func name(_ signal: Int32) -> String { signal == SIGTERM ? "SIGTERM" : "SIGINT" }
}
