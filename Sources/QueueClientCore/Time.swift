/// A point on a run's timeline, measured from the run's origin.
///
/// Machines and models never read a clock: drivers pass `RunInstant`s in. The wall-clock driver
/// derives them from `ContinuousClock`; the virtual-clock driver from its event heap. One
/// vocabulary for both is what makes virtual time and byte-identical reports possible.
package struct RunInstant: Comparable, Hashable, Sendable, CustomStringConvertible {
    /// Whole nanoseconds since the run's origin: the stored form. Eight bytes, not `Duration`'s
    /// sixteen — a virtual run keeps several instants for each of a million waiting visitors —
    /// and every instant the engines make is whole nanoseconds already (arrivals, the room's
    /// schedule, scenario durations, the wall clock's readings).
    package var wholeNanoseconds: Int64

    package init(wholeNanoseconds: Int64) {
        self.wholeNanoseconds = wholeNanoseconds
    }

    /// Time elapsed since the run's origin; a duration finer than a nanosecond is truncated.
    package var sinceOrigin: Duration {
        get { .nanoseconds(wholeNanoseconds) }
        set { wholeNanoseconds = newValue.saturatingNanoseconds }
    }

    /// Whole seconds since the run's origin, truncated toward zero: `sinceOrigin.components.seconds`
    /// without making a `Duration` and splitting it (every answer of a virtual run asks which
    /// second it falls in, every token asks for its Unix time).
    package var wholeSecondsSinceOrigin: Int64 {
        wholeNanoseconds / 1_000_000_000
    }

    package init(sinceOrigin: Duration) {
        self.wholeNanoseconds = sinceOrigin.saturatingNanoseconds
    }

    package static let origin = RunInstant(wholeNanoseconds: 0)

    package static func < (lhs: RunInstant, rhs: RunInstant) -> Bool {
        lhs.wholeNanoseconds < rhs.wholeNanoseconds
    }

    package static func + (lhs: RunInstant, rhs: Duration) -> RunInstant {
        RunInstant(wholeNanoseconds: saturatingSum(lhs.wholeNanoseconds, rhs.saturatingNanoseconds))
    }

    package static func - (lhs: RunInstant, rhs: Duration) -> RunInstant {
        let nanoseconds = rhs.saturatingNanoseconds
        return RunInstant(
            wholeNanoseconds: saturatingSum(lhs.wholeNanoseconds, nanoseconds == .min ? .max : -nanoseconds))
    }

    package static func - (lhs: RunInstant, rhs: RunInstant) -> Duration {
        // One `Duration` made instead of two and a subtraction of 128-bit numbers; the same value.
        let (difference, overflow) = lhs.wholeNanoseconds.subtractingReportingOverflow(rhs.wholeNanoseconds)
        return overflow
            ? .nanoseconds(lhs.wholeNanoseconds) - .nanoseconds(rhs.wholeNanoseconds) : .nanoseconds(difference)
    }

    /// Whole milliseconds since the origin, rounded down (the unit of every report column).
    package var milliseconds: Int64 {
        let (quotient, remainder) = wholeNanoseconds.quotientAndRemainder(dividingBy: 1_000_000)
        return remainder < 0 ? quotient - 1 : quotient
    }

    /// "Never" deadlines (`.seconds(Int64.max)`) stay at the end of time instead of wrapping.
    private static func saturatingSum(_ lhs: Int64, _ rhs: Int64) -> Int64 {
        let (sum, overflow) = lhs.addingReportingOverflow(rhs)
        return overflow ? (rhs > 0 ? .max : .min) : sum
    }

    package var description: String { "\(sinceOrigin)" }
}

/// Every conversion of a `Duration` to a number lives here, so each unit has one rounding rule.
///
/// `components` divides a 128-bit count of attoseconds in software, and the engines convert a
/// duration at most events (a deadline, a timeout, a report's milliseconds): 1.5 % of a
/// virtual run. A non-negative duration that is not too long takes a shortcut with the same
/// result: the attoseconds shifted right by the divisor's power of two fit in 64 bits, and the
/// odd rest of the divisor (1e9 = 2^9 · 5^9, 1e15 = 2^15 · 5^15) divides those. Flooring twice
/// floors once (⌊⌊a / 2^k⌋ / m⌋ = ⌊a / (2^k·m)⌋), so the shortcut is exact.
extension Duration {
    /// Whole nanoseconds, rounded toward zero: the room's schedule arithmetic and NIO's
    /// `TimeAmount` unit.
    package var wholeNanoseconds: Int64 {
        if let nanoseconds = shortNanoseconds { return nanoseconds }
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }

    /// Whole nanoseconds, rounded toward zero, clamped to `Int64`'s range (a `RunInstant`).
    package var saturatingNanoseconds: Int64 {
        if let nanoseconds = shortNanoseconds { return nanoseconds }
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return seconds > 0 ? .max : .min }
        let (sum, sumOverflow) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000)
        return sumOverflow ? (seconds > 0 ? .max : .min) : sum
    }

    /// Whole milliseconds, rounded toward negative infinity.
    package var wholeMilliseconds: Int64 {
        // Non-negative and under 2^79 attoseconds (about a week): the shortcut.
        let attoseconds = self.attoseconds
        if attoseconds >= 0 && attoseconds >> 79 == 0 {
            return Int64(UInt64(truncatingIfNeeded: attoseconds >> 15) / 30_517_578_125)
        }
        let (seconds, attosecondsPart) = components
        let millis = attosecondsPart / 1_000_000_000_000_000
        let rounded = attosecondsPart < 0 && attosecondsPart % 1_000_000_000_000_000 != 0 ? millis - 1 : millis
        return seconds * 1000 + rounded
    }

    /// Whole nanoseconds of a non-negative duration under 2^73 attoseconds (about 2.6 hours);
    /// nil for any other, which takes `components`.
    private var shortNanoseconds: Int64? {
        let attoseconds = self.attoseconds
        guard attoseconds >= 0 && attoseconds >> 73 == 0 else { return nil }
        return Int64(UInt64(truncatingIfNeeded: attoseconds >> 9) / 1_953_125)
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
