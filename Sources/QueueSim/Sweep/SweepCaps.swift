/// Which of a sweep's figures are lower bounds: a wait figure at its point's cap
/// (`client.maxWait`, or a shorter `run.duration`) says "at least this", as in `run`'s
/// threshold table. A goal on such a figure was judged by `ThresholdVerdict.passes` (a cap
/// never proves `<`); these mark the figures in sweep.csv, sweep.json, sweep.html and the
/// answer so nobody reads a capped mean as a measurement.
extension SweepMetric {
    /// The cap `value` sits at in a run of `scenario`; nil for a figure that is no wait or
    /// is below its cap.
    package func cap(of value: Double?, in scenario: Scenario) -> MeasurementCap? {
        guard case .measured(.timing(.wait, _), _) = source, let value else { return nil }
        let cap = MeasurementCap.wait(maxWait: scenario.client.maxWait, runDuration: scenario.run.duration)
        return cap.caps(value) ? cap : nil
    }
}

extension SweepResults {
    /// The cap metric `metric` sits at in any finished seed of point `point`: the point's
    /// mean is then a lower bound too.
    package func cap(point: Int, metric: Int) -> MeasurementCap? {
        let scenario = plan.points[point].scenario
        let figure = plan.metrics[metric]
        for run in runs(ofPoint: point) {
            if let cap = figure.cap(of: run?.values[metric], in: scenario) { return cap }
        }
        return nil
    }

    /// The columns capped in one run (a seed's row).
    package func cappedColumns(of run: SweepRunResult) -> [String] {
        let scenario = plan.points[run.point].scenario
        return plan.metrics.enumerated().compactMap { index, metric in
            metric.cap(of: run.values[index], in: scenario) == nil ? nil : metric.column
        }
    }

    /// The columns capped in any seed of the point.
    package func cappedColumns(point: Int) -> [String] {
        plan.metrics.indices.compactMap { cap(point: point, metric: $0) == nil ? nil : plan.metrics[$0].column }
    }
}
