/// The process exit codes of `queuesim run` (docs/contract.md).
package enum RunExitStatus: Int32, Sendable, Equatable, CaseIterable {
    /// The run finished and every threshold held.
    case success = 0
    /// The run finished, reports were written, and a threshold failed.
    case thresholdFailed = 1
    /// The scenario or the command line is invalid: nothing ran, no reports.
    case invalidInput = 2
    /// The run could not start or was aborted (port in use, target unreachable before any visitor).
    case aborted = 3
    /// A guardrail (a windowed threshold with `abortOnFail: true`) failed and stopped the run:
    /// reports written, in-flight visitors `interrupted`.
    case guardrailStopped = 4
    /// `queuesim merge --allow-partial` merged without some shards: reports written, but the run
    /// is not whole, so it is never a pass, whatever the thresholds measured on what is there.
    case partial = 5
    /// Interrupted by SIGINT; reports were written with `interrupted` rows.
    case interrupted = 130
    /// Stopped by SIGTERM; the same reports as for SIGINT (128 + 15, as shells report it).
    case terminated = 143

    /// The status of a run that produced reports. An interruption wins over threshold
    /// verdicts: thresholds measured on a cut-short run say little, and shells expect 130.
    /// A guardrail's stop wins over both: it came first (a stopped run hears no signal), and it
    /// is the reason the run is short.
    package static func afterRun(
        interrupted: Bool, terminated: Bool = false, guardrailStopped: Bool = false, verdicts: [ThresholdVerdict]
    ) -> RunExitStatus {
        if guardrailStopped { return .guardrailStopped }
        if interrupted { return terminated ? .terminated : .interrupted }
        return verdicts.allSatisfy(\.passed) ? .success : .thresholdFailed
    }

    /// The words for a run that had `thresholdCount` thresholds: a run without any finished,
    /// but nothing judged it, and "every threshold held" would say otherwise.
    package func meaning(thresholdCount: Int) -> String {
        self == .success && thresholdCount == 0
            ? "the run finished; no thresholds set, so nothing judged it" : meaning
    }

    /// A few words for the end-of-run screen.
    package var meaning: String {
        switch self {
        case .success: "the run finished and every threshold held"
        case .thresholdFailed: "a threshold failed (reports written)"
        case .invalidInput: "the scenario or the command line is invalid"
        case .aborted: "the run could not start or was aborted"
        case .partial: "merged without some shards: the run is not whole (reports written)"
        case .guardrailStopped: "a guardrail stopped the run (reports written, in-flight visitors interrupted)"
        case .interrupted: "interrupted (reports written, in-flight visitors interrupted)"
        case .terminated: "stopped by SIGTERM (reports written, in-flight visitors interrupted)"
        }
    }
}
