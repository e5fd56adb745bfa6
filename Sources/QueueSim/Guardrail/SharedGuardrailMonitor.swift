import QueueClientCore
import Synchronization

/// A wall-clock run's `GuardrailMonitor`, fed by every event loop's visitors and judged by a
/// once-a-second timer. One lock per finished visitor: its cost is small next to the row's.
package final class SharedGuardrailMonitor: Sendable {
    private let monitor: Mutex<GuardrailMonitor>

    package init?(thresholds: [Threshold], groupNames: [String], waitCap: MeasurementCap? = nil) {
        guard let monitor = GuardrailMonitor(thresholds: thresholds, groupNames: groupNames, waitCap: waitCap)
        else { return nil }
        self.monitor = Mutex(monitor)
    }

    func record(_ visitor: FinishedVisitor) {
        let sample = WindowSample(visitor)
        monitor.withLock { $0.record(sample) }
    }

    package func advance(to instant: RunInstant) -> GuardrailTrip? {
        monitor.withLock { $0.advance(to: instant) }
    }

    /// `stoppedAt`: where the run actually stopped on its clock, recorded as the trip's instant
    /// (a wall clock stops a little after the second that closed the window).
    package func trip(stoppedAt: RunInstant?) -> GuardrailTrip? {
        monitor.withLock { monitor in
            guard var trip = monitor.trip else { return nil }
            if let stoppedAt { trip.at = max(trip.at, stoppedAt) }
            return trip
        }
    }

    package func finish(at end: RunInstant) -> GuardrailTrip? {
        monitor.withLock { $0.finish(at: end) }
    }

    package var results: GuardrailResults { monitor.withLock { $0.results } }
}

/// A live loop's rows with the run's guardrails in front: each finished visitor is told to the
/// guardrails, then handed on. `Run/` gives one to each loop driver, which sees only a sink.
struct GuardedRows<Rows: FinishedVisitorSink>: FinishedVisitorSink {
    var rows: Rows
    let guardrails: SharedGuardrailMonitor

    mutating func accept(_ finished: FinishedVisitor) throws {
        guardrails.record(finished)
        try rows.accept(finished)
    }

    mutating func flush() throws {
        try rows.flush()
    }
}
