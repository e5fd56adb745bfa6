import QueueSim

/// The warnings `validate` and `run` print before anything runs, one line each on stderr:
/// what the scenario file says but probably does not mean (`FILE:LINE:COLUMN: warning: ...`),
/// an outflow that cannot serve the plan within `client.maxWait`, and a live run against a real
/// Queue-it room that is not a test event. They never change the
/// exit code: the scenario is valid, it may just not rehearse what its author thinks.
enum ScenarioWarnings {
    static func lines(file: String, prepared: PreparedRun) -> [String] {
        let scenario = prepared.scenario
        var lines = scenario.warnings.map { warning in
            "\(scenario.place(of: warning.mark)): warning: \(warning.message)"
        }
        // The plan was walked and accepted already; an estimate that cannot be made is no news.
        if let estimate = try? OutflowEstimate.of(scenario, visitors: prepared.options.visitors),
            let warning = estimate.warning
        {
            lines.append("\(scenario.place(of: scenario.positions.outflow)): \(warning)")
        }
        if let host = scenario.productionQueueItHost {
            lines.append("\(scenario.place(of: scenario.positions.target)): warning: \(productionRoom(host, scenario))")
        }
        return lines
    }

    /// A live run whose room is Queue-it's real one and not a test event: real enqueues into a
    /// production queue, which a rehearsal should not make by accident.
    static func productionRoom(_ host: String, _ scenario: Scenario) -> String {
        let said =
            scenario.target.isTest == false
            ? "`target.isTest: false` says it is a production event"
            : "nothing says it is a test event (`target.isTest: true`, the Admin API's IsTest)"
        return
            "the room's requests go to Queue-it's real \(host) and \(said): a live run makes real enqueues in that waiting room's queue, seen by its real visitors and counted in its statistics; point `target.endpoint` at a test event's room, or set `target.isTest: true` if this one is"
    }
}
