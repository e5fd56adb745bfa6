import Foundation
import QueueClientCore
import Testing

@testable import QueueSim

/// The oracles against the closed forms they must reduce to, and the skipped-turns model
/// against the Liu–Whitt equation integrated on its own (no engine: instant).
@Suite("theory: the oracles' closed forms")
struct TheoryFormulaTests {
    static func model(
        _ phases: [ArrivalPhase], outflow: Double, patience: DurationDistribution?, turns: AbandonedTurns,
        eventStart: Duration = .zero, maxWait: Double = 1e6, detectionDelay: Double? = nil
    ) -> AbandonmentFluid {
        AbandonmentFluid(
            fluid: FluidQueue(arrivals: Arrivals(phases: phases), eventStart: eventStart, outflowPerSecond: outflow),
            patience: patience, comeback: nil, turns: turns, maxWait: maxWait, detectionDelay: detectionDelay)
    }

    /// Without patience the model is the fluid queue: a burst of 6,000 at 10/s waits U[0, 600].
    @Test func noPatienceIsTheFluidQueue() throws {
        let trajectory = try #require(
            Self.model([.burst(count: 6_000)], outflow: 10, patience: nil, turns: .wasted).solve())
        #expect(abs(trajectory.passedShare - 1) < 1e-9)
        #expect(abs(trajectory.waitPercentile(0.95) - 570) < 2)
        #expect(abs(trajectory.waitPercentile(0.5) - 300) < 2)
        #expect(abs(trajectory.meanWait() - 300) < 3)
    }

    /// A burst of N, outflow r, exponential θ: rθ(1 − e^(−N/(rθ))) pass with wasted turns,
    /// r·θ·ln(1 + N/(rθ)) with skipped ones (docs/waiting-room.md).
    @Test func burstClosedForms() throws {
        let (n, r, theta) = (6_000.0, 2.0, 1_800.0)
        let patience = DurationDistribution.exponential(mean: .seconds(1_800))
        let wasted = try #require(
            Self.model([.burst(count: Int(n))], outflow: r, patience: patience, turns: .wasted).solve())
        let wastedPasses = FluidQueue.burstPassedWastingTurns(visitors: n, outflow: r, meanPatience: theta)
        #expect(abs(wasted.passedShare * n - wastedPasses) < 0.005 * wastedPasses)
        let skipped = try #require(
            Self.model(
                [.burst(count: Int(n))], outflow: r, patience: patience, turns: .skipped, detectionDelay: 0
            ).solve())
        let skippedPasses = r * FluidQueue.burstQueueEmptiesSkippingTurns(visitors: n, outflow: r, meanPatience: theta)
        #expect(abs(skipped.passedShare * n - skippedPasses) < 0.005 * skippedPasses)
        #expect(abs(wasted.passedShare + wasted.abandonedShare - 1) < 1e-6)
    }

    /// reference/waiting-room-models.md §5.7: 1,000/min for 60 min, 600/min out, θ = 10 min:
    /// 24.5 % pass with wasted turns; with skipped turns the head-of-line wait settles at
    /// w* = θ·ln(λ/μ) = 5.11 min, and the ODE and the block model agree on it.
    @Test func steadyOverload() throws {
        let patience = DurationDistribution.exponential(mean: .seconds(600))
        let phases = [ArrivalPhase.steady(duration: .seconds(3_600), rate: 1_000.0 / 60, rampTo: nil)]
        let wasted = try #require(Self.model(phases, outflow: 10, patience: patience, turns: .wasted).solve())
        #expect(abs(wasted.passedShare - 0.245) < 0.005, "\(wasted.passedShare)")

        let steady = SkippedTurnsODE.steadyWait(arrivalRate: 1_000.0 / 60, outflow: 10, patience: patience)
        #expect(abs(steady - 600 * log(1_000.0 / 600)) < 1e-6)
        let ode = SkippedTurnsODE(arrivalRate: { $0 >= 0 ? 1_000.0 / 60 : 0 }, outflow: { _ in 10 }, patience: patience)
        let path = ode.waits(from: 0, to: 3_600)
        #expect(abs(path.last! - steady) < 0.01 * steady, "\(path.last!) against \(steady)")

        // The block model with the room's silence left out is the same equation: visitors
        // arriving late in the hour wait w* (their pass probability is F̄(w*) = μ/λ = 60 %).
        let skipped = try #require(
            Self.model(phases, outflow: 10, patience: patience, turns: .skipped, detectionDelay: 0).solve())
        #expect(skipped.passedShare > 0.6 && skipped.passedShare < 0.7, "\(skipped.passedShare)")
    }

    /// The survival and quantiles of the scenario's laws.
    @Test func patienceLaws() {
        let lognormal = DurationDistribution.lognormal(median: .seconds(480), sigma: 0.6)
        #expect(abs(lognormal.survival(480) - 0.5) < 1e-9)
        #expect(abs(lognormal.quantile(0.5) - 480) < 1e-6)
        #expect(abs(lognormal.survival(lognormal.quantile(0.9)) - 0.1) < 1e-6)
        let exponential = DurationDistribution.exponential(mean: .seconds(120))
        #expect(abs(exponential.survival(exponential.quantile(0.3)) - 0.7) < 1e-9)
        #expect(DurationDistribution.fixed(.seconds(60)).survival(59.9) == 1)
        #expect(DurationDistribution.fixed(.seconds(60)).survival(60) == 0)
    }
}
