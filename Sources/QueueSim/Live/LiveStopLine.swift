import QueueClientCore
import Synchronization

/// Where a stopping run ends, for every loop at once: set (once) by the stop signal's
/// handler before the loops hear of the stop, read by the loops before every start.
final class LiveStopLine: Sendable {
    private let nanoseconds = Atomic<Int64>(.max)

    /// `RunInstant` far in the future until the run is stopped.
    var instant: RunInstant {
        RunInstant(sinceOrigin: .nanoseconds(nanoseconds.load(ordering: .acquiring)))
    }

    func draw(at instant: RunInstant) {
        nanoseconds.store(instant.sinceOrigin.wholeNanoseconds, ordering: .releasing)
    }
}
