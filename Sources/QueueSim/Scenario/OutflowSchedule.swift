// The scenario model (Scenario.swift): a scheduled outflow, `waitingRoom.outflow` written as
// `[ { at: 0s, rate: 600/min }, { at: 10m, rate: 1200/min } ]` — an operator raising Max
// Outflow during the event — or replayed from a stats file (`ReplayOutflow.swift`), which
// becomes the same list of changes. `at` is on the run's clock (seconds since the run
// started), as `eventStart` and the faults' `from`/`to` are.

/// One change of the room's outflow: from `at` on, `perSecond` visitors a second.
package struct OutflowChange: Sendable, Equatable {
    package var at: Duration
    package var perSecond: Double

    package init(at: Duration, perSecond: Double) {
        self.at = at
        self.perSecond = perSecond
    }
}

/// The room's outflow over a run, the one answer to "the rate at t" and "released by t": the
/// embedded room's release schedule (`ReleaseSchedule`, in whole nanoseconds) and the fluid
/// model (`FluidQueue`, in seconds) ask it, and `validate`, the warnings and the sweep read
/// the fluid model. A plain rate is a schedule of one step.
///
/// The rule for a time is the last step at or before it (the first step before the first
/// change, whatever the time). The steps' instants are whole nanoseconds (the scenario's
/// durations are), so the room's nanosecond lookups and the fluid's seconds agree.
package struct OutflowSchedule: Sendable, Equatable {
    /// Every rate in time order: the first from the run's start, then each change.
    package let steps: [OutflowChange]
    /// `steps[i].at` in whole nanoseconds (the room) and in seconds (the fluid model).
    private let nanoseconds: [Int64]
    private let seconds: [Double]

    /// `first` from the run's start, then `changes` (in time order).
    package init(first perSecond: Double, changes: [OutflowChange] = []) {
        steps = [OutflowChange(at: .zero, perSecond: perSecond)] + changes
        nanoseconds = steps.map(\.at.wholeNanoseconds)
        seconds = steps.map(\.at.secondsDouble)
    }

    /// The rate from the run's start (a plain outflow's only one).
    package var firstPerSecond: Double { steps[0].perSecond }
    /// The later rates (empty for a plain outflow).
    package var changes: ArraySlice<OutflowChange> { steps.dropFirst() }
    package var isPlain: Bool { steps.count == 1 }

    /// Whether any step releases anyone.
    package var releasesAnyone: Bool { steps.contains { $0.perSecond > 0 } }

    /// Every rate times `factor` at the same instants: the outflow a threshold would need.
    package func scaled(by factor: Double) -> OutflowSchedule {
        OutflowSchedule(
            first: firstPerSecond * factor,
            changes: changes.map { OutflowChange(at: $0.at, perSecond: $0.perSecond * factor) })
    }

    /// The same changes from a different first rate (a sweep trying outflows).
    package func startingAt(_ perSecond: Double) -> OutflowSchedule {
        OutflowSchedule(first: perSecond, changes: Array(changes))
    }

    // MARK: The rate at t

    /// The index of the step in force at `instant` (run nanoseconds).
    package func stepIndex(atNanoseconds instant: Int64) -> Int {
        Self.lastStep(in: nanoseconds, atOrBefore: instant)
    }

    /// The outflow in force at `instant` (run nanoseconds): the room's view.
    package func perSecond(atNanoseconds instant: Int64) -> Double {
        steps[stepIndex(atNanoseconds: instant)].perSecond
    }

    /// The outflow in force at `time` (seconds since the run's origin): the fluid model's view.
    package func perSecond(atSeconds time: Double) -> Double {
        steps[Self.lastStep(in: seconds, atOrBefore: time)].perSecond
    }

    /// The last step at or before `time`, 0 before every change.
    private static func lastStep<Instant: Comparable>(in instants: [Instant], atOrBefore time: Instant) -> Int {
        guard instants.count > 1 else { return 0 }
        return (1..<instants.count).last { instants[$0] <= time } ?? 0
    }

    // MARK: Released by t (seconds, the fluid model's)

    /// Visitors the schedule releases between `start` and `end` seconds (0 if `end` is not later).
    package func released(from start: Double, to end: Double) -> Double {
        guard end > start else { return 0 }
        var total = 0.0
        var cursor = start
        for change in seconds.dropFirst() where change > cursor && change < end {
            total += perSecond(atSeconds: cursor) * (change - cursor)
            cursor = change
        }
        return total + perSecond(atSeconds: cursor) * (end - cursor)
    }

    /// When the schedule has released `work` more visitors after `start` (seconds); infinity if
    /// it never does (the rate falls to 0 for good).
    package func finish(from start: Double, releasing work: Double) -> Double {
        var left = work
        var cursor = start
        for change in seconds.dropFirst() where change > cursor {
            let here = perSecond(atSeconds: cursor)
            let capacity = here * (change - cursor)
            if here > 0, capacity >= left { return cursor + left / here }
            left -= capacity
            cursor = change
        }
        let last = perSecond(atSeconds: cursor)
        return last > 0 ? cursor + left / last : .infinity
    }

    // MARK: Words

    /// `600/min`, or `600/min, 1,200/min from 10m` for a schedule: as `validate`, the page and
    /// the warnings say it.
    package var description: String {
        var text = "\(ScenarioUnits.grouped(firstPerSecond * 60))/min"
        for change in changes {
            text += ", \(ScenarioUnits.grouped(change.perSecond * 60))/min from \(ScenarioUnits.describe(change.at))"
        }
        return text
    }
}

extension WaitingRoomSettings {
    /// The room's outflow as one schedule: `outflowPerSecond` from the run's start, then
    /// `outflowChanges`.
    package var outflow: OutflowSchedule {
        OutflowSchedule(first: outflowPerSecond, changes: outflowChanges)
    }

    /// Every rate the room releases at, in time order (a plain rate is one step).
    package var outflowSteps: [OutflowChange] { outflow.steps }

    /// `600/min`, or `600/min, 1,200/min from 10m`: `OutflowSchedule.description`.
    package var outflowDescription: String { outflow.description }
}
