import QueueClientCore

/// The words for a guardrail's stop, shared by the end screen, the verdict line on stderr and
/// the report page.
package enum GuardrailText {
    /// `unavailable < 5% over 30s failed in 60s..90s (6.2%); the run stopped at 1m 30s`.
    package static func stopLine(_ trip: GuardrailTrip, verdicts: [ThresholdVerdict]) -> String {
        let metric = verdicts.first { $0.threshold.source == trip.threshold }?.threshold.metric
        let measured = metric.map { ThresholdTable.format(trip.window.measured, as: $0) } ?? "\(trip.window.measured)"
        return
            "\(trip.threshold) failed in \(trip.window.text) (\(measured)); the run stopped at \(instantText(trip.at))"
    }

    /// `1m 30s`, `1m 30.25s`, `12.5s`: a run instant as the end screen writes it.
    package static func instantText(_ instant: RunInstant) -> String {
        let milliseconds = max(0, instant.milliseconds)
        let minutes = milliseconds / 60_000
        let rest = Double(milliseconds % 60_000) / 1000
        let seconds = ThresholdTable.trimmed(rest, decimals: 3) + "s"
        return minutes > 0 ? "\(minutes)m \(seconds)" : seconds
    }
}
