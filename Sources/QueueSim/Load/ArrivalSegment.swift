import Foundation
import QueueClientCore

/// One phase of `arrivals.phases`, placed on the timeline and with its rates already scaled.
///
/// A steady phase has the rate function `λ(t) = rate + slope·t` for `t` in `[0, duration]`
/// (seconds since the phase start), so its cumulative rate is `Λ(t) = rate·t + slope·t²/2`.
/// Both arrival processes work in that cumulative space: an arrival at cumulative value `m`
/// happens at `Λ⁻¹(m)`. That one inversion serves constant rates, ramps up and ramps down.
enum ArrivalSegment: Sendable, Equatable {
    case steady(SteadyRate)
    /// `count` visitors at `start`.
    case burst(start: Duration, count: Int)

    var start: Duration {
        switch self {
        case .steady(let steady): steady.start
        case .burst(let start, _): start
        }
    }
}

/// A steady (or ramping) phase: the rate at its start, the rate change per second, its length.
struct SteadyRate: Sendable, Equatable {
    /// Where the phase begins on the run's timeline.
    var start: Duration
    var duration: Duration
    /// Arrivals per second at the phase start.
    var rate: Double
    /// Change of the rate per second (`(rampTo - rate) / duration`); zero for a constant rate.
    var slope: Double

    init(start: Duration, duration: Duration, rate: Double, rampTo: Double?) {
        self.start = start
        self.duration = duration
        self.rate = max(0, rate)
        let seconds = duration.secondsDouble
        let endRate = max(0, rampTo ?? rate)
        self.slope = seconds > 0 ? (endRate - self.rate) / seconds : 0
    }

    private var durationSeconds: Double { duration.secondsDouble }

    /// `Λ(duration)`: the expected number of arrivals in the phase.
    var integral: Double {
        let seconds = durationSeconds
        return rate * seconds + slope * seconds * seconds / 2
    }

    /// Uniform arrivals sit where `Λ` reaches `k + ½` (k = 0, 1, …), the centre of each
    /// visitor's share of the phase. So a phase holds `Λ(duration)` rounded half up, every
    /// arrival lies inside the phase, and back-to-back phases of one rate stay evenly spaced
    /// across their boundary (10/s: 0.05 s, 0.15 s, …, 0.95 s, 1.05 s, …).
    var uniformCount: Int { Self.roundHalfUp(integral) }

    /// The instant where the cumulative rate reaches `cumulative` (clamped to the phase).
    ///
    /// Solves `rate·t + slope·t²/2 = m` in the cancellation-free form
    /// `t = 2m / (rate + √(rate² + 2·slope·m))`, valid for constant rates, ramps from zero
    /// (`t = √(2m/slope)`) and ramps down to zero.
    func instant(atCumulative cumulative: Double) -> RunInstant {
        let discriminant = max(0, rate * rate + 2 * slope * cumulative)
        let denominator = rate + discriminant.squareRoot()
        let seconds = denominator > 0 ? min(durationSeconds, 2 * cumulative / denominator) : 0
        // Nanosecond resolution keeps exact values exact (1/(2·10) s is 50 000 000 ns) and is
        // far below anything a report shows (milliseconds).
        let nanoseconds = Int64((seconds * 1e9).rounded())
        let offset = min(Duration.nanoseconds(nanoseconds), duration)
        return RunInstant(sinceOrigin: start + offset)
    }

    static func roundHalfUp(_ value: Double) -> Int {
        value <= 0 ? 0 : Int((value + 0.5).rounded(.down))
    }
}

extension ArrivalSegment {
    /// Lays the phases out one after another, multiplying every rate and burst size by `scale`.
    /// Pauses only move the timeline; zero-length or zero-rate phases add no segment.
    static func layout(_ phases: [ArrivalPhase], scale: Double) -> (segments: [ArrivalSegment], span: Duration) {
        var segments: [ArrivalSegment] = []
        var cursor = Duration.zero
        for phase in phases {
            switch phase {
            case .steady(let duration, let rate, let rampTo):
                let steady = SteadyRate(
                    start: cursor, duration: duration, rate: rate * scale, rampTo: rampTo.map { $0 * scale })
                if steady.integral > 0 { segments.append(.steady(steady)) }
                cursor += duration
            case .burst(let count):
                let scaled = scale == 1 ? count : SteadyRate.roundHalfUp(Double(count) * scale)
                if scaled > 0 { segments.append(.burst(start: cursor, count: scaled)) }
            case .pause(let duration):
                cursor += duration
            }
        }
        return (segments, cursor)
    }
}
