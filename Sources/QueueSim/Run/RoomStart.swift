import Foundation
import QueueClientCore

/// Second 0 of a room served on its own (`queuesim serve`): when the process starts, or the
/// common start of a sharded run (`--start-at`, `run.startAt`) when there is one.
///
/// The room's timeline — event start, scripted faults and mode changes, the times in its
/// tokens — is measured from second 0. A room that started its timeline when `serve` started
/// would be minutes ahead of shards that wait for `--start-at`: its event start would be over
/// before their first visitor, and their waits would not be the single-process run's. With the
/// common start, the room's second 0 is the shards' second 0, as it is in one process.
///
/// Before second 0 the room's clock reads negative: the room answers as the scenario describes
/// the time before `eventStart` — the mode of second 0, no fault (fault windows start at second
/// 0 or later), and in `queue`/`safetynet` mode every enqueue waits in the pre-queue, shuffled
/// at the event start (docs/distributed.md, "A common start").
package struct RoomStart: Sendable {
    /// The wall-clock instant of second 0.
    package let startedAt: Date
    /// Second 0 on the process's monotonic clock (the room's `WallClock` origin).
    package let origin: ContinuousClock.Instant
    /// True when second 0 is the common start rather than when the process started.
    package let isCommonStart: Bool

    /// - Parameters:
    ///   - startAt: the common start, or nil for "now".
    ///   - wallNow, now: the same moment on the wall clock and on the monotonic clock (injected
    ///     by tests).
    package init(startAt: Date?, wallNow: Date = Date(), now: ContinuousClock.Instant = .now) {
        guard let startAt else {
            startedAt = wallNow
            origin = now
            isCommonStart = false
            return
        }
        // Ahead of now (positive) for a start still to come; behind it for one that is past.
        let ahead = Duration.nanoseconds(Int64((startAt.timeIntervalSince(wallNow) * 1e9).rounded()))
        startedAt = startAt
        origin = now + ahead
        isCommonStart = true
    }

    /// The room's clock: negative before second 0.
    package var clock: WallClock { WallClock(origin: origin) }

    /// The Unix time of second 0, as the room's tokens count it.
    package var epochUnixSeconds: Int64 { Int64(startedAt.timeIntervalSince1970.rounded(.down)) }

    /// The room's time at `moment` (negative before second 0; `WallClock.instant(of:)` clamps).
    package func instant(at moment: ContinuousClock.Instant) -> RunInstant {
        RunInstant(sinceOrigin: moment - origin)
    }
}
