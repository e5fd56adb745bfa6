import QueueSim

/// The warnings `validate` and `run` print before anything runs, one line each on stderr:
/// what the scenario file says but probably does not mean (`FILE:LINE:COLUMN: warning: ...`),
/// and an outflow that cannot serve the plan within `client.maxWait`. They never change the
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
        return lines
    }
}
