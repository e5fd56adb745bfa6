/// Something the room was told to do at a point of the run's timeline: the event start, a mode
/// change, a scripted fault window. Drawn on the report's time charts and kept in `run.json`
/// (`timeline_marks`), so `queuesim report DIR` can draw them from an archived folder.
package struct TimelineMark: Sendable, Equatable, Codable {
    package var fromMs: Int64
    /// nil: a point (the event start, a mode change), or a fault that lasts to the end.
    package var toMs: Int64?
    package var label: String

    package init(fromMs: Int64, toMs: Int64?, label: String) {
        self.fromMs = fromMs
        self.toMs = toMs
        self.label = label
    }

    enum CodingKeys: String, CodingKey {
        case fromMs = "from_ms"
        case toMs = "to_ms"
        case label
    }

    /// The marks of a scenario's embedded room (none for a real endpoint: queuesim does not
    /// know what a real room was told).
    package static func marks(of scenario: Scenario) -> [TimelineMark] {
        guard let room = scenario.waitingRoom else { return [] }
        var marks: [TimelineMark] = []
        if room.eventStart > .zero {
            marks.append(TimelineMark(fromMs: room.eventStart.wholeMilliseconds, toMs: nil, label: "event start"))
        }
        // A scheduled outflow's raises, where the passed/s chart changes slope.
        for change in room.outflowChanges {
            marks.append(
                TimelineMark(
                    fromMs: change.at.wholeMilliseconds, toMs: nil,
                    label: "outflow \(ScenarioUnits.grouped(change.perSecond * 60))/min"))
        }
        for fault in room.faults {
            let isMode = if case .mode = fault.effect { true } else { false }
            marks.append(
                TimelineMark(
                    fromMs: fault.from.wholeMilliseconds, toMs: isMode ? nil : fault.to?.wholeMilliseconds,
                    label: fault.summary))
        }
        return marks
    }
}

extension FaultRule {
    /// The fault in words: `10m–12m: enqueue requests: answer 503 on 30% of requests`.
    package var summary: String {
        let window = "\(ScenarioUnits.describe(from))–\(to.map(ScenarioUnits.describe) ?? "end")"
        let percent = rate * 100
        let share =
            rate < 1
            ? " on \(percent == percent.rounded() ? String(Int(percent)) : String((percent * 10).rounded() / 10))% of requests"
            : ""
        let effect: String
        switch self.effect {
        case .status(let status): effect = "answer \(status)"
        case .latency(let delay, let jitter):
            effect = "add \(ScenarioUnits.describe(delay)) ± \(ScenarioUnits.describe(jitter)) latency"
        case .reset: effect = "reset the connection"
        case .timeout: effect = "never answer"
        case .malformedBody: effect = "answer with a body that is not JSON"
        case .navigate(let target): effect = "send the queue page to queueit://\(target.rawValue)"
        case .mode(let mode): return "\(window): room mode \(mode.rawValue)"
        }
        return "\(window): \(endpoint.rawValue) requests: \(effect)\(share)"
    }
}
