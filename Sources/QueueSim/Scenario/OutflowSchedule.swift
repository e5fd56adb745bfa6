// The scenario model (Scenario.swift): a scheduled outflow, `waitingRoom.outflow` written as
// `[ { at: 0s, rate: 600/min }, { at: 10m, rate: 1200/min } ]` — an operator raising Max
// Outflow during the event. `at` is on the run's clock (seconds since the run started), as
// `eventStart` and the faults' `from`/`to` are.

/// One change of the room's outflow: from `at` on, `perSecond` visitors a second.
package struct OutflowChange: Sendable, Equatable {
    package var at: Duration
    package var perSecond: Double

    package init(at: Duration, perSecond: Double) {
        self.at = at
        self.perSecond = perSecond
    }
}

extension WaitingRoomSettings {
    /// Every rate the room releases at, in time order: `outflowPerSecond` from the run's start,
    /// then each change (a plain rate is one step).
    package var outflowSteps: [OutflowChange] {
        [OutflowChange(at: .zero, perSecond: outflowPerSecond)] + outflowChanges
    }

    /// The outflow in force at `instant` (time since the run started).
    package func outflowPerSecond(at instant: Duration) -> Double {
        outflowChanges.last { $0.at <= instant }?.perSecond ?? outflowPerSecond
    }

    /// The highest rate of the schedule.
    package var peakOutflowPerSecond: Double {
        outflowChanges.reduce(outflowPerSecond) { max($0, $1.perSecond) }
    }

    /// `600/min`, or `600/min, 1,200/min from 10m` for a schedule: as `validate`, the page and
    /// the warnings say it.
    package var outflowDescription: String {
        Self.describeOutflow(perSecond: outflowPerSecond, changes: outflowChanges)
    }

    package static func describeOutflow(perSecond: Double, changes: [OutflowChange]) -> String {
        var text = "\(ScenarioUnits.grouped(perSecond * 60))/min"
        for change in changes {
            text += ", \(ScenarioUnits.grouped(change.perSecond * 60))/min from \(ScenarioUnits.describe(change.at))"
        }
        return text
    }
}

/// The fluid model's view of a scheduled outflow, in seconds: how many visitors the room can
/// have released by a time, and when the next release after one comes.
struct OutflowCapacity: Sendable {
    private let steps: [(at: Double, perSecond: Double, releasedBefore: Double)]

    init(_ room: WaitingRoomSettings) {
        var steps: [(at: Double, perSecond: Double, releasedBefore: Double)] = []
        for step in room.outflowSteps {
            let at = step.at.secondsDouble
            let releasedBefore = steps.last.map { $0.releasedBefore + (at - $0.at) * $0.perSecond } ?? 0
            steps.append((at, step.perSecond, releasedBefore))
        }
        self.steps = steps
    }

    /// Releases the outflow allows from the run's start to `time`.
    func released(by time: Double) -> Double {
        let step = steps.last { $0.at <= time } ?? steps[0]
        return step.releasedBefore + max(0, time - step.at) * step.perSecond
    }

    /// The gap after a release at `time`: 1 / the rate in force then (the room's own rule,
    /// `ReleaseSchedule`).
    func interval(after time: Double) -> Double {
        1 / (steps.last { $0.at <= time } ?? steps[0]).perSecond
    }
}
