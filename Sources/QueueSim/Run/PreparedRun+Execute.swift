import Logging
import QueueClientCore

extension PreparedRun {
    /// Runs the scenario on its clock to the end (or the stop signal) and writes the reports:
    /// the wall clock's `WallClockRunner` or the virtual clock's `VirtualClockRunner`, the one
    /// choice of runner there is. Throws `RunAbort` when the run cannot start.
    /// - Parameter roomLogger: the embedded room's logger on the wall clock.
    package func execute(
        progress: RunProgress, stopSignal: RunStopSignal, roomLogger: Logger
    ) async throws -> RunReport {
        switch clock {
        case .wall:
            try await WallClockRunner(run: self, progress: progress, stopSignal: stopSignal, logger: roomLogger)
                .execute()
        case .virtual:
            try await VirtualClockRunner(run: self, progress: progress, stopSignal: stopSignal)
                .executeOnItsOwnThread()
        }
    }
}
