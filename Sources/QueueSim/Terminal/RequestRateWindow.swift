import QueueClientCore

/// Requests per second over the last second or more of wall time.
///
/// The line refreshes four times a second; a rate over one quarter-second jumps with every
/// batch the event loops publish (and reads 0 between two), so the rate is taken against the
/// newest sample at least `window` old, and there is none until a whole window has passed.
package struct RequestRateWindow: Sendable {
    private var samples: [(wall: Duration, requests: Int)] = [(.zero, 0)]
    private let window: Duration

    package init(window: Duration = .seconds(1)) {
        self.window = window
    }

    /// Records the request count at `wall` and returns the rate since the newest earlier
    /// sample at least `window` before it; nil while the run is younger than `window`.
    package mutating func rate(at wall: Duration, requests: Int) -> Double? {
        // Keep the newest sample that is already old enough, and everything after it.
        if let base = samples.lastIndex(where: { wall - $0.wall >= window }), base > 0 {
            samples.removeFirst(base)
        }
        defer { samples.append((wall, requests)) }
        guard let base = samples.first, wall - base.wall >= window else { return nil }
        return Double(requests - base.requests) / (wall - base.wall).secondsDouble
    }
}
