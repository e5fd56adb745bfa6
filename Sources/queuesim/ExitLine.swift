import QueueSim

/// How `run`, `merge` and `report` write their verdict, in one place so the three read alike:
///
/// - last on stderr, always (`--quiet` too), so a CI log says why a job is red:
///   `queuesim run: FAIL (exit 1): wait.p95 < 10m was 17m 2s`;
/// - on the end screen: `exit 1: a threshold failed (reports written)`.
enum ExitLine {
    static func text(command: String, report: RunReport) -> String {
        let status = report.exitStatus
        let prefix =
            "queuesim \(command): \(verdict(status, thresholdCount: report.verdicts.count, isShard: report.shard != nil)): "
        switch status {
        case .success:
            if report.shard != nil { return prefix + "the shard finished; queuesim merge judges the run" }
            return prefix
                + (report.verdicts.isEmpty
                    ? "no thresholds set, so nothing judged the run"
                    : "\(report.verdicts.count == 1 ? "the threshold" : "all \(report.verdicts.count) thresholds") held")
        case .thresholdFailed:
            let failed = report.verdicts.filter { !$0.passed && $0.notJudged == nil }
            return prefix
                + failed.map { "\($0.threshold.source) was \(ThresholdTable.measuredText($0))" }.joined(separator: "; ")
        case .partial:
            // Thresholds judged part of the run: never a pass, whatever they measured.
            return prefix + "merged without some shards; the run is not whole"
        case .guardrailStopped:
            guard let trip = report.guardrailTrip else { return prefix + status.meaning }
            return prefix + GuardrailText.stopLine(trip, verdicts: report.verdicts)
        case .interrupted, .terminated:
            let signal = status == .terminated ? "SIGTERM" : "SIGINT"
            return prefix + "stopped by \(signal); thresholds not judged"
        case .invalidInput, .aborted:
            return prefix + status.meaning
        }
    }

    /// `PASS (exit 0)`, `FAIL (exit 1)`, `PARTIAL (exit 5)`, `INTERRUPTED (exit 130)`; `done
    /// (exit 0)` when nothing judged the run (no thresholds, or a shard's share).
    static func verdict(_ status: RunExitStatus, thresholdCount: Int, isShard: Bool = false) -> String {
        let word: String
        switch status {
        case .success: word = isShard || thresholdCount == 0 ? "done" : "PASS"
        case .thresholdFailed: word = "FAIL"
        case .partial: word = "PARTIAL"
        case .guardrailStopped: word = "STOPPED"
        case .interrupted, .terminated: word = "INTERRUPTED"
        case .invalidInput, .aborted: word = "ERROR"
        }
        return "\(word) (exit \(status.rawValue))"
    }

    /// The end screen's line: `exit 1: a threshold failed (reports written)`.
    static func screenLine(_ status: RunExitStatus, thresholdCount: Int, isShard: Bool = false) -> String {
        "exit \(status.rawValue): "
            + (isShard && status == .success
                ? "the shard finished (the run's verdict is queuesim merge's)"
                : status.meaning(thresholdCount: thresholdCount))
    }

    /// `report`'s stderr line: the page is written (exit 0), and what the run it shows ended with.
    static func reportText(status: RunExitStatus, thresholdCount: Int, page: String) -> String {
        "queuesim report: done (exit 0): wrote \(page); the run ended \(verdict(status, thresholdCount: thresholdCount))"
    }
}
