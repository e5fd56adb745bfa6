import Histogram
import QueueClientCore
import Synchronization

/// Counters the progress line reads while a run goes on. Cheap to update from many tasks.
public final class LiveRunStatus: Sendable {
    public struct Snapshot: Sendable {
        /// Time on the run's clock (simulated time in virtual runs).
        public var now: Instant = .origin
        public var planned: Int = 0
        public var arrived: Int = 0
        public var started: Int = 0
        public var inQueue: Int = 0
        public var finished: Int = 0
        public var outcomes: [VisitorOutcome: Int] = [:]
        public var requests: Int = 0
        public var enqueueP95Milliseconds: Int64?

        public var passed: Int { outcomes[.passed, default: 0] }
        /// Everything that went wrong for the visitor: `error` and `unavailable`.
        public var errors: Int { outcomes[.error, default: 0] + outcomes[.unavailable, default: 0] }
    }

    private struct State {
        var snapshot = Snapshot()
        var enqueue = Histogram<UInt64>(highestTrackableValue: 3_600_000, numberOfSignificantValueDigits: .two)
    }

    private let state = Mutex(State())

    public init(planned: Int) {
        state.withLock { $0.snapshot.planned = planned }
    }

    public func arrived(count: Int = 1) { state.withLock { $0.snapshot.arrived += count } }
    public func started() { state.withLock { $0.snapshot.started += 1 } }
    public func requestSent() { state.withLock { $0.snapshot.requests += 1 } }

    public func phaseChanged(from old: VisitorPhase, to new: VisitorPhase) {
        guard old != new else { return }
        state.withLock { state in
            if old == .inQueue { state.snapshot.inQueue -= 1 }
            if new == .inQueue { state.snapshot.inQueue += 1 }
        }
    }

    public func finished(_ outcome: VisitorOutcome, enqueueMilliseconds: Int64?) {
        state.withLock { state in
            state.snapshot.finished += 1
            state.snapshot.outcomes[outcome, default: 0] += 1
            if let enqueueMilliseconds {
                _ = state.enqueue.record(UInt64(max(0, min(enqueueMilliseconds, 3_600_000))))
            }
        }
    }

    /// Replaces the counters at once (the virtual-time runner counts locally and publishes
    /// every few thousand events, so it never takes the lock per event).
    public func publish(_ snapshot: Snapshot) {
        state.withLock { $0.snapshot = snapshot }
    }

    public func snapshot(at now: Instant) -> Snapshot {
        state.withLock { state in
            var snapshot = state.snapshot
            snapshot.now = max(now, snapshot.now)
            if state.enqueue.totalCount > 0 {
                snapshot.enqueueP95Milliseconds = Int64(state.enqueue.valueAtPercentile(95))
            }
            return snapshot
        }
    }
}
