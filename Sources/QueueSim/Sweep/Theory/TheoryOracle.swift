import Foundation
import QueueClientCore

/// The theory's value of a sweep's figures for one scenario (docs/waiting-room.md, "The
/// oracles"): the fluid model `AbandonmentFluid`, which reduces to the no-abandonment fluid
/// queue when nobody gives up. Nil where no oracle applies: a room that is not a plain queue
/// (another mode, scripted faults), that never releases anyone, a run cut short by
/// `run.duration`, or groups that behave differently (patience or comebacks). The groups'
/// no-shows (`noShow`) are in the model.
package struct TheoryOracle: Sendable {
    package let trajectory: FluidTrajectory
    package let model: AbandonmentFluid

    package init?(scenario: Scenario, turns: AbandonedTurns? = nil) {
        // `uniqueKeys` refuses a comeback's second enqueue, which the orbit does not model.
        guard let room = scenario.waitingRoom, room.mode == .queue, room.faults.isEmpty, !room.uniqueKeys,
            room.outflow.releasesAnyone, scenario.run.duration == nil,
            let crowd = FluidCrowd(groups: scenario.groups)
        else { return nil }
        let model = FluidQueue(arrivals: scenario.arrivals, eventStart: room.eventStart, outflow: room.outflow)
            .leaving(crowd, turns: turns ?? room.abandonedTurns, maxWait: scenario.client.maxWait.secondsDouble)
        guard let trajectory = model.solve() else { return nil }
        self.model = model
        self.trajectory = trajectory
    }

    /// The oracle's value of a sweep figure, in the figure's own unit (a share 0…1,
    /// milliseconds); nil for a figure the theory does not give (requests, the shop).
    package func value(of metric: SweepMetric) -> Double? {
        guard case .measured(let measured, _) = metric.source else { return nil }
        switch measured {
        case .outcomeRatio(let outcome):
            switch outcome {
            case .passed: return trajectory.passedShare
            case .abandoned: return trajectory.abandonedShare
            case .queued: return trajectory.queuedShare
            default: return 0
            }
        case .timing(.wait, .percentile(let percentile)):
            return trajectory.waitPercentile(percentile / 100) * 1000
        case .timing(.wait, .mean):
            return trajectory.meanWait() * 1000
        default:
            return nil
        }
    }
}
