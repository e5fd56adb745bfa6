import Foundation

/// The head-of-line wait of a fluid queue whose room skips the turns of visitors who left:
/// while the queue is not empty, the visitor at its head at time t arrived at t − w(t), and
///
///     w′(t) = 1 − μ(t) / (λ(t − w)·F̄(w))
///
/// (the rate form of the boundary-waiting-time equation of Liu & Whitt, "The G_t/GI/s_t+GI
/// many-server fluid queue", Queueing Systems 71, 2012: the head moves through arrival time at
/// the rate the room releases visitors, divided by the density of those still there). In
/// steady overload F̄(w*) = μ/λ: for exponential patience w* = θ·ln(λ/μ).
///
/// Integrated by the classical Runge–Kutta method with a fixed step; w stays at 0 while the
/// room keeps up (the queue is empty). A visitor arriving at s has its turn when t − w(t) = s
/// and passes with probability F̄(w(t)). It is the independent check of `AbandonmentFluid`'s
/// `skipped` rule (which adds a pre-queue, bursts and the room's 60 s of silence): the two are
/// held to each other in TheoryOracleTests.
package struct SkippedTurnsODE: Sendable {
    /// Arrivals per second at a time (seconds); positive where the queue is to be followed.
    package var arrivalRate: @Sendable (Double) -> Double
    /// Releases per second at a time.
    package var outflow: @Sendable (Double) -> Double
    package var patience: DurationDistribution

    package init(
        arrivalRate: @escaping @Sendable (Double) -> Double, outflow: @escaping @Sendable (Double) -> Double,
        patience: DurationDistribution
    ) {
        self.arrivalRate = arrivalRate
        self.outflow = outflow
        self.patience = patience
    }

    func slope(_ time: Double, _ wait: Double) -> Double {
        let density = arrivalRate(time - wait) * patience.survival(wait)
        guard density > 1e-12 else { return 1 }
        return 1 - outflow(time) / density
    }

    /// w(t) at `start`, `start + step`, … up to `end`, from w(start) = `initial`.
    package func waits(from start: Double, to end: Double, step: Double = 0.5, initial: Double = 0) -> [Double] {
        var wait = initial
        var time = start
        var path = [wait]
        while time + step <= end + 1e-9 {
            let k1 = slope(time, wait)
            let k2 = slope(time + step / 2, wait + step / 2 * k1)
            let k3 = slope(time + step / 2, wait + step / 2 * k2)
            let k4 = slope(time + step, wait + step * k3)
            wait = max(0, wait + step / 6 * (k1 + 2 * k2 + 2 * k3 + k4))
            time += step
            path.append(wait)
        }
        return path
    }

    /// The steady head-of-line wait under constant overload λ > μ: F̄(w*) = μ/λ, by bisection.
    package static func steadyWait(arrivalRate: Double, outflow: Double, patience: DurationDistribution) -> Double {
        guard arrivalRate > outflow else { return 0 }
        let target = outflow / arrivalRate
        var low = 0.0
        var high = 1.0
        while patience.survival(high) > target, high < 1e9 { high *= 2 }
        for _ in 0..<80 {
            let middle = (low + high) / 2
            if patience.survival(middle) > target { low = middle } else { high = middle }
        }
        return (low + high) / 2
    }
}
