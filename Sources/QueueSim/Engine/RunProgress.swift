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
        /// Live runs: seconds so far in which the generator was saturated (the largest count
        /// of any loop: a second one loop missed is a second the generator missed).
        package var saturatedSeconds = 0
        /// Per visitor group (the scenario's order), what `/metrics` shows by group.
        package var groups: [GroupCounts] = []
        /// Answers so far by endpoint and status, and their times: `/metrics`' request series.
        package var answers = RequestTotals()

        /// Counts a visitor's move into or out of the queue page.
        mutating func phaseChanged(from before: VisitorPhase, to after: VisitorPhase, group: Int) {
            if before != .inQueue, after == .inQueue {
                inQueue += 1
                withGroup(group) { $0.inQueue += 1 }
            }
            if before == .inQueue, after != .inQueue {
                inQueue -= 1
                withGroup(group) { $0.inQueue -= 1 }
            }
        }

        mutating func arrived(group: Int) {
            arrived += 1
            withGroup(group) { $0.arrived += 1 }
        }

        /// A finished visitor: its outcome and, if it reached the queue page, its wait.
        mutating func finished(group: Int, outcome: VisitorOutcome, waitSeconds: Double?) {
            finished += 1
            withGroup(group) { counts in
                counts.finished[GroupCounts.outcomeIndex(outcome)] += 1
                if let waitSeconds { counts.wait.record(seconds: waitSeconds) }
            }
        }

        /// Lends group `group`'s counts in place (added when new). A subscript's get and set
        /// copied them at every event, and the copy's arrays were then copied again to change.
        private mutating func withGroup(_ group: Int, _ change: (inout GroupCounts) -> Void) {
            if group >= groups.count {
                groups.append(contentsOf: repeatElement(GroupCounts(), count: group + 1 - groups.count))
            }
            change(&groups[group])
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
            saturatedSeconds = max(saturatedSeconds, other.saturatedSeconds)
            for (group, counts) in other.groups.enumerated() { withGroup(group) { $0.add(counts) } }
            answers.add(other.answers)
        }

        package var passed: Int { outcomes[.passed, default: 0] }
        /// Everything that went wrong for the visitor: `error` and `unavailable`.
        package var errors: Int { outcomes[.error, default: 0] + outcomes[.unavailable, default: 0] }
    }

    /// One visitor group's live counts.
    package struct GroupCounts: Sendable {
        package var arrived = 0
        package var inQueue = 0
        /// By outcome, in `VisitorOutcome.allCases` order.
        package var finished = Array(repeating: 0, count: VisitorOutcome.allCases.count)
        /// Waits of the finished visitors who reached the queue page (`wait_ms`), in seconds.
        package var wait = BucketCounts(bounds: CountingBuckets.waits)

        static func outcomeIndex(_ outcome: VisitorOutcome) -> Int {
            VisitorOutcome.allCases.firstIndex(of: outcome)!
        }

        mutating func add(_ other: GroupCounts) {
            arrived += other.arrived
            inQueue += other.inQueue
            for index in finished.indices { finished[index] += other.finished[index] }
            wait.add(other.wait)
        }
    }

    private struct State {
        var planned = 0
        /// One snapshot per producer (the virtual loop, or each event loop of a live run).
        var parts: [Snapshot] = []
        var enqueue = Histogram<UInt64>(highestTrackableValue: 3_600_000, numberOfSignificantValueDigits: .two)
    }

    private let state = Mutex(State())

    /// The embedded room's figures at one instant (`/metrics`' room series).
    package struct RoomFigures: Sendable, Equatable {
        /// Queue numbers given and not yet released.
        package var queueLength: Int
        /// Queue numbers released by the outflow so far.
        package var released: Int

        package init(queueLength: Int, released: Int) {
            self.queueLength = queueLength
            self.released = released
        }
    }

    private enum Room {
        case none
        case live(@Sendable () -> RoomFigures)
        /// The room has stopped with the run: its last figures, for the scrapes that linger.
        case frozen(RoomFigures)
    }

    private let room = Mutex<Room>(.none)

    /// Reads the embedded room's figures whenever they are asked for, from now on.
    package func attachRoom(_ figures: @escaping @Sendable () -> RoomFigures) {
        room.withLock { $0 = .live(figures) }
    }

    /// Keeps the room's figures as they are now, before the room stops.
    package func freezeRoom() {
        room.withLock { room in
            if case .live(let figures) = room { room = .frozen(figures()) }
        }
    }

    /// The embedded room's figures now; nil without an embedded room.
    package func roomFigures() -> RoomFigures? {
        let state = room.withLock { $0 }
        switch state {
        case .none: return nil
        case .live(let figures): return figures()
        case .frozen(let figures): return figures
        }
    }

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
