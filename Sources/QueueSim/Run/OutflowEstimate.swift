import Histogram
import QueueClientCore

/// Whether the embedded room's outflow can serve the plan within `client.maxWait`, by the
/// fluid model (docs/scenarios.md, "Will the outflow keep up?"): visitors are released one
/// every 1/outflow seconds, first come first served, from the event start on, each taking
/// a slot whether or not it gave up. Visitor k leaves the queue at
/// `d(k) = max(a(k), eventStart, d(k-1) + 1/outflow)` and waits `d(k) - a(k)`; with a scheduled
/// outflow, `outflow` is the rate in force at `d(k-1)`, as the room releases.
///
/// Without this, a plan of 200,000 visitors at 3,000/min reports `wait p95 30m 0s`: the cap,
/// not a wait. The estimate walks the arrival instants once (no visitor is built).
package struct OutflowEstimate: Sendable, Equatable {
    package var outflowPerSecond: Double
    /// A scheduled outflow's later rates (empty for a plain rate).
    package var outflowChanges: [OutflowChange] = []
    package var maxWait: Duration
    package var planned: Int
    /// The most visitors in the queue at once (those ahead of the longest waiter, plus it).
    package var peakQueue: Int
    /// Visitors whose fluid wait is longer than maxWait: they will stop at the cap.
    package var pastMaxWait: Int
    /// Of the fluid waits, in milliseconds (without the cap: what the waits would be).
    package var waitP95Ms: UInt64

    /// Nil unless the scenario runs the embedded room in `queue` mode: a real endpoint's
    /// outflow is unknown, and a disabled or safetynet room does not queue.
    package static func of(_ scenario: Scenario, visitors: Int?) throws -> OutflowEstimate? {
        guard let room = scenario.waitingRoom, room.mode == .queue, room.outflowPerSecond > 0 else { return nil }
        let schedule = try ArrivalSchedule(scenario.arrivals, seed: scenario.seed, visitors: visitors)
        let capacity = OutflowCapacity(room)
        let eventStart = room.eventStart.secondsDouble
        var histogram = TimingHistograms.makeHistogram()
        var lastDeparture = -Double.infinity
        var planned = 0
        var pastMaxWait = 0
        var longest = 0.0
        var mostAhead = 0.0
        let maxWait = scenario.client.maxWait.secondsDouble
        for instant in schedule {
            let arrival = (instant - RunInstant.origin).secondsDouble
            let departure = max(arrival, eventStart, lastDeparture + capacity.interval(after: lastDeparture))
            lastDeparture = departure
            let wait = departure - arrival
            histogram.record(UInt64(min(wait * 1000, 1e15).rounded()))
            longest = max(longest, wait)
            if !room.outflowChanges.isEmpty {
                // Those the schedule could release during its wait were ahead of it.
                mostAhead = max(mostAhead, capacity.released(by: departure) - capacity.released(by: arrival))
            }
            if wait > maxWait { pastMaxWait += 1 }
            planned += 1
        }
        guard planned > 0 else { return nil }
        return OutflowEstimate(
            outflowPerSecond: room.outflowPerSecond, outflowChanges: room.outflowChanges,
            maxWait: scenario.client.maxWait, planned: planned,
            peakQueue: min(
                planned,
                Int((room.outflowChanges.isEmpty ? longest * room.outflowPerSecond : mostAhead).rounded(.down)) + 1),
            pastMaxWait: pastMaxWait, waitP95Ms: histogram.valueAtPercentile(95))
    }

    /// One line for stderr when the waits will hit maxWait, nil when the outflow keeps up:
    /// `warning: outflow 3,000/min × maxWait 30m = 90,000 < 200,000 planned: waits will hit
    /// client.maxWait (…)`.
    package var warning: String? {
        guard pastMaxWait > 0 else { return nil }
        let perMinute = outflowPerSecond * 60
        let served = perMinute * maxWait.secondsDouble / 60
        let queued =
            peakQueue >= planned ? "" : " (\(ScenarioUnits.grouped(Double(peakQueue))) in the queue at its peak)"
        let share = Double(pastMaxWait) / Double(planned) * 100
        // A schedule's rates are named; one product of rate and maxWait would say nothing.
        let outflow =
            outflowChanges.isEmpty
            ? "outflow \(ScenarioUnits.grouped(perMinute))/min × maxWait \(ScenarioUnits.describe(maxWait)) = "
                + "\(ScenarioUnits.grouped(served.rounded(.down))) < \(ScenarioUnits.grouped(Double(planned))) planned"
            : "outflow \(scheduleText) with maxWait \(ScenarioUnits.describe(maxWait)), \(ScenarioUnits.grouped(Double(planned))) planned"
        return
            "warning: \(outflow)\(queued): "
            + "waits will hit client.maxWait; fluid model: \(ScenarioUnits.grouped(Double(pastMaxWait))) visitors "
            + "(\(ScenarioUnits.grouped(share))%) wait longer, expected wait p95 \(ThresholdTable.formatMilliseconds(Double(waitP95Ms)))"
    }

    private var scheduleText: String {
        WaitingRoomSettings.describeOutflow(perSecond: outflowPerSecond, changes: outflowChanges)
    }
}
