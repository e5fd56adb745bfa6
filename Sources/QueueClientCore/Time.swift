/// A point on a run's timeline, measured from the run's origin.
///
/// Machines and models never read a clock: drivers pass `Instant`s in. The wall-clock driver
/// derives them from `ContinuousClock`; the virtual-clock driver from its event heap. One
/// vocabulary for both is what makes virtual time and byte-identical reports possible.
public struct Instant: Comparable, Hashable, Sendable, CustomStringConvertible {
    /// Time elapsed since the run's origin.
    public var sinceOrigin: Duration

    public init(sinceOrigin: Duration) {
        self.sinceOrigin = sinceOrigin
    }

    public static let origin = Instant(sinceOrigin: .zero)

    public static func < (lhs: Instant, rhs: Instant) -> Bool {
        lhs.sinceOrigin < rhs.sinceOrigin
    }

    public static func + (lhs: Instant, rhs: Duration) -> Instant {
        Instant(sinceOrigin: lhs.sinceOrigin + rhs)
    }

    public static func - (lhs: Instant, rhs: Duration) -> Instant {
        Instant(sinceOrigin: lhs.sinceOrigin - rhs)
    }

    public static func - (lhs: Instant, rhs: Instant) -> Duration {
        lhs.sinceOrigin - rhs.sinceOrigin
    }

    /// Whole milliseconds since the origin, rounded down (the unit of every report column).
    public var milliseconds: Int64 { sinceOrigin.wholeMilliseconds }

    public var description: String { "\(sinceOrigin)" }
}

extension Duration {
    /// Whole milliseconds, rounded toward negative infinity.
    public var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        let millis = attoseconds / 1_000_000_000_000_000
        let rounded = attoseconds < 0 && attoseconds % 1_000_000_000_000_000 != 0 ? millis - 1 : millis
        return seconds * 1000 + rounded
    }

    /// The duration as fractional seconds (for rates and display; never for ordering).
    public var secondsDouble: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}

/// The clock a driver runs on. The wall clock sleeps for real; a virtual clock is advanced by
/// its event loop. State machines never see this protocol: only drivers do.
public protocol RunClock: Sendable {
    var now: Instant { get }
    func sleep(until deadline: Instant) async throws
}

/// Real time, measured from the moment the clock was created.
public struct WallClock: RunClock {
    private let origin: ContinuousClock.Instant

    public init(origin: ContinuousClock.Instant = .now) {
        self.origin = origin
    }

    public var now: Instant {
        Instant(sinceOrigin: ContinuousClock.now - origin)
    }

    /// `moment` on this clock (the origin for a moment before it).
    public func instant(of moment: ContinuousClock.Instant) -> Instant {
        Instant(sinceOrigin: max(.zero, moment - origin))
    }

    public func sleep(until deadline: Instant) async throws {
        try await ContinuousClock().sleep(until: origin + deadline.sinceOrigin, tolerance: nil)
    }
}
