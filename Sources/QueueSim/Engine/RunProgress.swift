import Histogram
import QueueClientCore
import Synchronization

/// Counters the progress line reads while a run goes on, published by the runners' loops.
package final class RunProgress: Sendable {
    package struct Snapshot: Sendable {
        /// Time on the run's clock (simulated time in virtual runs).
        package var now: RunInstant = .origin
        package var planned: Int = 0
        package var arrived: Int = 0
        package var started: Int = 0
        package var inQueue: Int = 0
        package var finished: Int = 0
        package var outcomes: [VisitorOutcome: Int] = [:]
        package var requests: Int = 0
        package var enqueueP95Milliseconds: Int64?
        /// Live runs: whether the generator is saturated in the current second, and the
        /// largest event-loop lag seen in it.
        package var generatorSaturated = false
        package var loopLag: Duration = .zero

        /// Counts a visitor's move into or out of the queue page.
        mutating func phaseChanged(from before: VisitorPhase, to after: VisitorPhase) {
            if before != .inQueue, after == .inQueue { inQueue += 1 }
            if before == .inQueue, after != .inQueue { inQueue -= 1 }
        }

        mutating func add(_ other: Snapshot) {
            now = max(now, other.now)
            arrived += other.arrived
            started += other.started
            inQueue += other.inQueue
            finished += other.finished
            for (outcome, count) in other.outcomes { outcomes[outcome, default: 0] += count }
            requests += other.requests
            generatorSaturated = generatorSaturated || other.generatorSaturated
            loopLag = max(loopLag, other.loopLag)
        }

        package var passed: Int { outcomes[.passed, default: 0] }
        /// Everything that went wrong for the visitor: `error` and `unavailable`.
        package var errors: Int { outcomes[.error, default: 0] + outcomes[.unavailable, default: 0] }
    }

    private struct State {
        var planned = 0
        /// One snapshot per producer (the virtual loop, or each event loop of a live run).
        var parts: [Snapshot] = []
        var enqueue = Histogram<UInt64>(highestTrackableValue: 3_600_000, numberOfSignificantValueDigits: .two)
    }

    private let state = Mutex(State())

    package init(planned: Int) {
        state.withLock { $0.planned = planned }
    }

    /// Replaces one producer's counters at once: runners count locally and publish a few times a
    /// second, so nothing takes this lock per event.
    package func publish(_ snapshot: Snapshot, part: Int = 0) {
        state.withLock { state in
            if part >= state.parts.count {
                state.parts.append(contentsOf: repeatElement(Snapshot(), count: part + 1 - state.parts.count))
            }
            state.parts[part] = snapshot
        }
    }

    /// Enqueue times of finished visitors (milliseconds), for the live enqueue p95.
    package func recordEnqueueTimes(_ milliseconds: [Int64]) {
        state.withLock { state in
            for value in milliseconds { _ = state.enqueue.record(UInt64(max(0, min(value, 3_600_000)))) }
        }
    }

    package func snapshot(at now: RunInstant) -> Snapshot {
        state.withLock { state in
            var snapshot = Snapshot()
            snapshot.planned = state.planned
            for part in state.parts { snapshot.add(part) }
            snapshot.now = max(now, snapshot.now)
            if state.enqueue.totalCount > 0 {
                snapshot.enqueueP95Milliseconds = Int64(state.enqueue.valueAtPercentile(95))
            }
            return snapshot
        }
    }
}
