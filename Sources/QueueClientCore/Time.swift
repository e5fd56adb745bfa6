/// A point on a run's timeline, measured from the run's origin.
///
/// Machines and models never read a clock: drivers pass `RunInstant`s in. The wall-clock driver
/// derives them from `ContinuousClock`; the virtual-clock driver from its event heap. One
/// vocabulary for both is what makes virtual time and byte-identical reports possible.
package struct RunInstant: Comparable, Hashable, Sendable, CustomStringConvertible {
    /// Time elapsed since the run's origin.
    package var sinceOrigin: Duration

    package init(sinceOrigin: Duration) {
        self.sinceOrigin = sinceOrigin
    }

    package static let origin = RunInstant(sinceOrigin: .zero)

    package static func < (lhs: RunInstant, rhs: RunInstant) -> Bool {
        lhs.sinceOrigin < rhs.sinceOrigin
    }

    package static func + (lhs: RunInstant, rhs: Duration) -> RunInstant {
        RunInstant(sinceOrigin: lhs.sinceOrigin + rhs)
    }

    package static func - (lhs: RunInstant, rhs: Duration) -> RunInstant {
        RunInstant(sinceOrigin: lhs.sinceOrigin - rhs)
    }

    package static func - (lhs: RunInstant, rhs: RunInstant) -> Duration {
        lhs.sinceOrigin - rhs.sinceOrigin
    }

    /// Whole milliseconds since the origin, rounded down (the unit of every report column).
    package var milliseconds: Int64 { sinceOrigin.wholeMilliseconds }

    /// Whole nanoseconds since the origin, truncated: the integer unit of the room's schedule.
    package var wholeNanoseconds: Int64 { sinceOrigin.wholeNanoseconds }

    package init(wholeNanoseconds: Int64) {
        self.init(sinceOrigin: .nanoseconds(wholeNanoseconds))
    }

    package var description: String { "\(sinceOrigin)" }
}

/// Every conversion of a `Duration` to a number lives here, so each unit has one rounding rule.
extension Duration {
    /// Whole nanoseconds, rounded toward zero: the room's schedule arithmetic and NIO's
    /// `TimeAmount` unit.
    package var wholeNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }

    /// Whole milliseconds, rounded toward negative infinity.
    package var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        let millis = attoseconds / 1_000_000_000_000_000
        let rounded = attoseconds < 0 && attoseconds % 1_000_000_000_000_000 != 0 ? millis - 1 : millis
        return seconds * 1000 + rounded
    }

    /// The duration as fractional seconds (for rates and display; never for ordering).
    package var secondsDouble: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}

/// The clock a driver runs on. The wall clock sleeps for real; a virtual clock is advanced by
/// its event loop. State machines never see this protocol: only drivers do.
package protocol RunClock: Sendable {
    var now: RunInstant { get }
    func sleep(until deadline: RunInstant) async throws
}

/// Real time, measured from the moment the clock was created.
package struct WallClock: RunClock {
    private let origin: ContinuousClock.Instant

    package init(origin: ContinuousClock.Instant = .now) {
        self.origin = origin
    }

    package var now: RunInstant {
        RunInstant(sinceOrigin: ContinuousClock.now - origin)
    }

    /// `moment` on this clock (the origin for a moment before it).
    package func instant(of moment: ContinuousClock.Instant) -> RunInstant {
        RunInstant(sinceOrigin: max(.zero, moment - origin))
    }

    package func sleep(until deadline: RunInstant) async throws {
        try await ContinuousClock().sleep(until: origin + deadline.sinceOrigin, tolerance: nil)
    }
}
