import QueueSim

/// The one line `run` and `merge` always print last on stderr, `--quiet` or not, so a CI log
/// says why a job is red: `queuesim run: FAIL (exit 1): wait.p95 < 10m was 17m 2s`.
enum ExitLine {
    static func text(command: String, report: RunReport) -> String {
        let status = report.exitStatus
        let prefix = "queuesim \(command): "
        switch status {
        case .success:
            if report.shard != nil {
                return prefix + "done (exit 0): the shard finished; queuesim merge judges the run"
            }
            return prefix
                + (report.verdicts.isEmpty
                    ? "done (exit 0): no thresholds set, so nothing judged the run"
                    : "PASS (exit 0): \(report.verdicts.count == 1 ? "the threshold" : "all \(report.verdicts.count) thresholds") held")
        case .thresholdFailed:
            let failed = report.verdicts.filter { !$0.passed && $0.notJudged == nil }
            return prefix + "FAIL (exit 1): "
                + failed.map { "\($0.threshold.source) was \(ThresholdTable.measuredText($0))" }.joined(separator: "; ")
        case .partial:
            // Thresholds judged part of the run: never a pass, whatever they measured.
            return prefix + "PARTIAL (exit \(status.rawValue)): merged without some shards; the run is not whole"
        case .interrupted, .terminated:
            let signal = status == .terminated ? "SIGTERM" : "SIGINT"
            return prefix + "INTERRUPTED (exit \(status.rawValue)): stopped by \(signal); thresholds not judged"
        case .invalidInput, .aborted:
            return prefix + "exit \(status.rawValue): \(status.meaning)"
        }
    }
}
