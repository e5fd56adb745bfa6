/// The time an import waits on: the wall clock in the command, a virtual one in tests, so the
/// rate limit's minute-long waits are tested without sleeping.
package protocol ImportClock: Sendable {
    /// Time since an arbitrary origin, never going back.
    var now: Duration { get }
    /// Waits `duration`; throws `CancellationError` when the task is cancelled (SIGINT).
    func sleep(for duration: Duration) async throws
}

package struct WallImportClock: ImportClock {
    private let origin = ContinuousClock.now

    package init() {}

    package var now: Duration { ContinuousClock.now - origin }

    package func sleep(for duration: Duration) async throws {
        try await Task.sleep(for: duration)
    }
}

/// At most `limit` requests in any `window` (Queue-it's statistics API: about 10 a minute per
/// event). A request that would be one too many waits until the oldest of the window is
/// `window` old, telling `progress` how long it waits.
package final class RequestBudget: @unchecked Sendable {
    package let limit: Int
    package let window: Duration
    private let clock: any ImportClock
    /// When each of the last `limit` requests was sent. Touched by one task at a time: the
    /// import asks in order (`@unchecked Sendable` for that reason).
    private var sent: [Duration] = []

    package init(limit: Int = 10, window: Duration = .seconds(60), clock: any ImportClock) {
        self.limit = max(1, limit)
        self.window = window
        self.clock = clock
    }

    /// Waits until one more request keeps within the budget, then counts it as sent.
    package func take(progress: (Duration) -> Void) async throws {
        let now = clock.now
        sent.removeAll { now - $0 >= window }
        if sent.count >= limit, let oldest = sent.first {
            let wait = oldest + window - now
            progress(wait)
            try await clock.sleep(for: wait)
            let later = clock.now
            sent.removeAll { later - $0 >= window }
        }
        sent.append(clock.now)
    }
}
