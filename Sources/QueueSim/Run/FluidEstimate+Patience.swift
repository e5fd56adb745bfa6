import Foundation
import QueueClientCore

/// `validate`'s fluid estimate when visitors leave before their turn (`patience`, the same in
/// every group, or `noShow`, pooled over the groups by weight: `FluidCrowd`):
/// the sweep's oracle, `AbandonmentFluid` (docs/waiting-room.md, "The oracles"), under the
/// scenario's patience, comebacks and `waitingRoom.abandonedTurns` — with wasted turns a
/// visitor arriving at t passes with probability F̄(W(t)), with skipped turns the head-of-line
/// wait follows Liu & Whitt's equation. The model without abandonment would say everyone
/// waits and passes: here most of the launch question's answer is who is still there.
package struct PatienceEstimate: Sendable, Equatable {
    /// `patience exponential, mean 10m, turns wasted` (with the comebacks and no-shows when any).
    package var condition: String
    /// Of all visitors, 0...1.
    package var passedShare: Double
    package var abandonedShare: Double
    /// Still on the queue page when `client.maxWait` ran out.
    package var queuedShare: Double
    /// The waits of those who pass, in seconds.
    package var passedWaitP50: Double
    package var passedWaitP95: Double
    /// The wait p95 of every visitor who queued (who gave up: its patience), in seconds: what
    /// a threshold `wait.p95` judges.
    package var waitP95: Double
    /// The most visitors still on the queue page at once, and when (seconds since the origin).
    package var peakQueue: Double
    package var peakQueueAt: Double
}

extension FluidEstimate {
    /// The model of `scenario`'s room with its outflow (every rate of a schedule) times
    /// `factor`; nil unless some visitors leave before their turn (patience, no-shows) and
    /// every group has the same patience and comebacks (the model has one crowd).
    static func abandonmentModel(
        _ scenario: Scenario, scale: Double, factor: Double, resolution: Resolution = .figures
    ) -> AbandonmentFluid? {
        guard let room = scenario.waitingRoom, let crowd = FluidCrowd(groups: scenario.groups), crowd.leaves
        else { return nil }
        var model = FluidQueue(
            arrivals: scenario.arrivals, scale: scale, eventStart: room.eventStart,
            outflow: room.outflow.scaled(by: factor)
        ).leaving(crowd, turns: room.abandonedTurns, maxWait: scenario.client.maxWait.secondsDouble)
        model.slices = resolution.slices
        model.step = max(1, model.horizon / Double(resolution.steps))
        return model
    }

    /// How finely `validate` cuts the model: the sweep's oracle steps a second at a time, which
    /// over a launch of hours with comebacks is minutes of work; an estimate printed to two or
    /// three figures needs far less, and validate must answer at once. The searches for the
    /// outflow a threshold needs (a dozen solves each) run coarser still.
    struct Resolution {
        var slices: Int
        var steps: Int
        static let figures = Resolution(slices: 1_000, steps: 1_500)
        static let search = Resolution(slices: 400, steps: 500)
    }

    /// The figures under the scenario's patience and the outflow its thresholds need; nil
    /// where `abandonmentModel` does not apply or the room never drains.
    static func withPatience(_ scenario: Scenario, scale: Double) -> (PatienceEstimate, [Need])? {
        guard var model = abandonmentModel(scenario, scale: scale, factor: 1),
            let crowd = FluidCrowd(groups: scenario.groups)
        else { return nil }
        model.tracksQueue = true
        guard let trajectory = model.solve() else { return nil }
        let condition = "\(crowd.summary), turns \(model.turns.rawValue)"
        let estimate = PatienceEstimate(
            condition: condition, passedShare: trajectory.passedShare, abandonedShare: trajectory.abandonedShare,
            queuedShare: trajectory.queuedShare, passedWaitP50: trajectory.passedWaitPercentile(0.5),
            passedWaitP95: trajectory.passedWaitPercentile(0.95), waitP95: trajectory.waitPercentile(0.95),
            peakQueue: trajectory.peakQueue, peakQueueAt: trajectory.peakQueueAt)
        let needs = scenario.thresholds.compactMap { threshold -> Need? in
            guard let question = PatienceQuestion(threshold) else { return nil }
            // To 0.5 %, on the coarser model: an outflow written to two or three figures.
            let factor = neededFactor(tolerance: 5e-3, halvings: 10) { factor in
                abandonmentModel(scenario, scale: scale, factor: factor, resolution: .search)?.solve()
                    .map(question.holds) ?? false
            }
            return Need(threshold: threshold.source, factor: factor)
        }
        return (estimate, needs)
    }

    /// A threshold the model with abandonment answers, and that a larger outflow only helps:
    /// an upper bound on a wait percentile (over everyone who queued), a lower bound on the
    /// share passing, an upper bound on the share giving up or still queued at maxWait.
    struct PatienceQuestion {
        enum Figure {
            case wait(WaitQuestion)
            case passed(limit: Double, strict: Bool)
            case atMost(VisitorOutcome, limit: Double, strict: Bool)
        }
        var figure: Figure

        init?(_ threshold: Threshold) {
            if let wait = WaitQuestion(threshold) {
                figure = .wait(wait)
                return
            }
            guard threshold.window == nil, case .outcomeRatio(let outcome) = threshold.metric else { return nil }
            switch (outcome, threshold.comparator) {
            case (.passed, .greaterOrEqual): figure = .passed(limit: threshold.limit, strict: false)
            case (.passed, .greaterThan): figure = .passed(limit: threshold.limit, strict: true)
            case (.abandoned, .lessOrEqual), (.queued, .lessOrEqual):
                figure = .atMost(outcome, limit: threshold.limit, strict: false)
            case (.abandoned, .lessThan), (.queued, .lessThan):
                figure = .atMost(outcome, limit: threshold.limit, strict: true)
            default: return nil
            }
        }

        func holds(_ trajectory: FluidTrajectory) -> Bool {
            switch figure {
            case .wait(let question): return question.holds { trajectory.waitShare(within: $0) }
            case .passed(let limit, let strict):
                let share = trajectory.passedShare
                return strict ? share > limit : share >= limit - 1e-12
            case .atMost(let outcome, let limit, let strict):
                let share = outcome == .abandoned ? trajectory.abandonedShare : trajectory.queuedShare
                return strict ? share < limit : share <= limit + 1e-12
            }
        }
    }
}
