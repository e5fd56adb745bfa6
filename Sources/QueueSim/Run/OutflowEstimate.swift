import QueueClientCore

/// Whether the embedded room's outflow can serve the plan within `client.maxWait`, by the
/// fluid model (docs/scenarios.md, "Will the outflow keep up?"; `FluidEstimate`): visitors are
/// released at the outflow rate in force, first come first served, from the event start on
/// (those who came before it in a random order); with patience or no-shows, by the model with
/// abandonment under the room's turn rule. The figures are `validate`'s fluid estimate, so the
/// warning and the estimate never disagree.
///
/// Without this, a plan of 200,000 visitors at 3,000/min reports `wait p95 30m 0s`: the cap,
/// not a wait. No visitor is built and no arrival walked: the plan's cumulative curve is cut
/// into 4,000 slices.
package struct OutflowEstimate: Sendable, Equatable {
    /// The room's outflow (a plain rate or a schedule).
    package var outflow: OutflowSchedule
    package var maxWait: Duration
    package var planned: Int
    /// The most visitors in the queue at once.
    package var peakQueue: Int
    /// Visitors whose fluid wait is longer than maxWait: they will stop at the cap.
    package var pastMaxWait: Int
    /// Of the fluid waits, in milliseconds (without the cap: what the waits would be).
    package var waitP95Ms: UInt64

    /// Nil unless the scenario runs the embedded room in `queue` mode: a real endpoint's
    /// outflow is unknown, and a disabled or safetynet room does not queue.
    package static func of(_ scenario: Scenario, visitors: Int?) throws -> OutflowEstimate? {
        guard let room = scenario.waitingRoom, room.mode == .queue, room.outflow.firstPerSecond > 0 else { return nil }
        // `--visitors` scales every rate and burst: the schedule knows by how much.
        let schedule = try ArrivalSchedule(scenario.arrivals, seed: scenario.seed, visitors: visitors)
        var unasked = scenario
        unasked.thresholds = []
        let planned = Int(schedule.expectedCount.rounded())
        guard planned > 0, let fluid = FluidEstimate.of(unasked, scale: schedule.scale) else { return nil }
        // Where visitors leave early (patience, no-shows), the estimate is the model with
        // abandonment: those still queued at maxWait are the ones who stop at the cap.
        let pastShare = fluid.patience.map(\.queuedShare) ?? (1 - fluid.shareWithinMaxWait)
        return OutflowEstimate(
            outflow: room.outflow, maxWait: scenario.client.maxWait, planned: planned,
            peakQueue: min(planned, Int((fluid.patience?.peakQueue ?? fluid.peakQueue).rounded())),
            pastMaxWait: Int((pastShare * Double(planned)).rounded()),
            waitP95Ms: UInt64(((fluid.patience?.waitP95 ?? fluid.waitP95) * 1000).rounded()))
    }

    /// One line for stderr when the waits will hit maxWait, nil when the outflow keeps up:
    /// `warning: outflow 3,000/min × maxWait 30m = 90,000 < 200,000 planned: waits will hit
    /// client.maxWait (…)`.
    package var warning: String? {
        guard pastMaxWait > 0 else { return nil }
        let perMinute = outflow.firstPerSecond * 60
        let served = perMinute * maxWait.secondsDouble / 60
        let queued =
            peakQueue >= planned ? "" : " (\(ScenarioUnits.grouped(Double(peakQueue))) in the queue at its peak)"
        let share = Double(pastMaxWait) / Double(planned) * 100
        // A schedule's rates are named; one product of rate and maxWait would say nothing.
        let outflow =
            outflow.isPlain
            ? "outflow \(ScenarioUnits.grouped(perMinute))/min × maxWait \(ScenarioUnits.describe(maxWait)) = "
                + "\(ScenarioUnits.grouped(served.rounded(.down))) < \(ScenarioUnits.grouped(Double(planned))) planned"
            : "outflow \(outflow.description) with maxWait \(ScenarioUnits.describe(maxWait)), \(ScenarioUnits.grouped(Double(planned))) planned"
        return
            "warning: \(outflow)\(queued): "
            + "waits will hit client.maxWait; fluid model: \(ScenarioUnits.grouped(Double(pastMaxWait))) visitors "
            + "(\(ScenarioUnits.grouped(share))%) wait longer, expected wait p95 \(ThresholdTable.formatMilliseconds(Double(waitP95Ms)))"
    }
}
