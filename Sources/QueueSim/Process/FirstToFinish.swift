import Synchronization

/// An outbound exchange against its timer and the caller's cancellation (a metrics push, an
/// Admin API request): the first to finish resumes the caller and cancels the others, without
/// waiting for them — an exchange stuck in a read that ignores cancellation cannot hold the
/// caller past its deadline.
final class FirstToFinish<Outcome: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Outcome, Never>?
        var outcome: Outcome?
        var tasks: [Task<Void, Never>] = []
    }

    private let state = Mutex(State())

    func begin(_ continuation: CheckedContinuation<Outcome, Never>) {
        let finished: Outcome? = state.withLock { state in
            if let outcome = state.outcome { return outcome }
            state.continuation = continuation
            return nil
        }
        if let finished { continuation.resume(returning: finished) }
    }

    func add(_ task: Task<Void, Never>) {
        let alreadyFinished = state.withLock { state in
            if state.outcome != nil { return true }
            state.tasks.append(task)
            return false
        }
        if alreadyFinished { task.cancel() }
    }

    func finish(_ outcome: Outcome) {
        let taken = state.withLock { state -> (CheckedContinuation<Outcome, Never>?, [Task<Void, Never>])? in
            guard state.outcome == nil else { return nil }
            state.outcome = outcome
            defer {
                state.continuation = nil
                state.tasks = []
            }
            return (state.continuation, state.tasks)
        }
        guard let (continuation, tasks) = taken else { return }
        for task in tasks { task.cancel() }
        continuation?.resume(returning: outcome)
    }
}
