import QueueClientCore
import Synchronization

/// Samples the embedded room's queue at the end of every second of a wall-clock run, for
/// metrics.prom's room series (a virtual run samples as its clock passes each second).
final class RoomSampler: Sendable {
    /// A class around the lock: the sampling task and `finish` share it.
    private final class Samples: Sendable {
        let series = Mutex(RoomSeries())
    }

    private let samples = Samples()
    private let task: Task<Void, Never>
    private let room: EmbeddedRoomHandle
    private let clock: WallClock

    init(room: EmbeddedRoomHandle, clock: WallClock) {
        self.room = room
        self.clock = clock
        let samples = samples
        task = Task {
            var second = Int(clock.now.sinceOrigin.components.seconds)
            while !Task.isCancelled {
                do { try await clock.sleep(until: .origin + .seconds(second + 1)) } catch { return }
                let figures = room.queueFigures()
                samples.series.withLock { $0.set(second: second, figures) }
                second += 1
            }
        }
    }

    func stop() {
        task.cancel()
    }

    /// Stops sampling and adds the room as the run leaves it, in the second it ends in.
    func finish() async -> RoomSeries {
        task.cancel()
        await task.value
        let second = Int(clock.now.sinceOrigin.components.seconds)
        let figures = room.queueFigures()
        return samples.series.withLock { series in
            series.set(second: second, figures)
            return series
        }
    }
}
