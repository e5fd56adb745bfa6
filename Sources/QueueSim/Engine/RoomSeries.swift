/// The embedded room's queue at the end of each second of a run, for metrics.prom's
/// `queuesim_room_queue_length` and `queuesim_room_released_total`: sampled by the virtual
/// driver as its clock passes each second, and by a wall-clock run's sampler once a second.
/// Here, beside `RunProgress.RoomFigures`, because the clocks fill it and `Metrics/` (above
/// them) reads it.
package struct RoomSeries: Sendable, Equatable {
    private(set) var queueLength: [Int] = []
    private(set) var released: [Int] = []

    package init() {}

    /// The figures at the end of `second`; a second left out (no sample came for it) keeps the
    /// value before it.
    package mutating func set(second: Int, _ figures: RunProgress.RoomFigures) {
        guard second >= 0 else { return }
        while queueLength.count < second {
            queueLength.append(queueLength.last ?? 0)
            released.append(released.last ?? 0)
        }
        if second < queueLength.count {
            queueLength[second] = figures.queueLength
            released[second] = figures.released
        } else {
            queueLength.append(figures.queueLength)
            released.append(figures.released)
        }
    }

    package var sampledSeconds: Int { queueLength.count }

    /// The figures at the end of `second`: the last sample for seconds after the last one.
    func figures(atSecond second: Int) -> (queueLength: Int, released: Int)? {
        guard !queueLength.isEmpty else { return nil }
        let index = min(second, queueLength.count - 1)
        return (queueLength[index], released[index])
    }
}
