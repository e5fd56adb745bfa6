import QueueClientCore

/// `run.json`'s guardrail entries (issue 31): a windowed threshold's `window` and the run's
/// `guardrail_stop`.
extension RunManifest {
    /// A windowed threshold's entry: `over 30s`, whether it stops the run, and its windows.
    struct WindowEntry: Codable {
        var span: String
        var abortOnFail: Bool
        var minVisitors: Int
        var judgedWindows: Int
        var failedWindows: Int
        var firstFailure: JudgedWindowEntry?
        var worst: JudgedWindowEntry?

        init(_ window: ThresholdWindow, _ verdict: WindowedVerdict?) {
            span = window.text
            abortOnFail = window.abortOnFail
            minVisitors = window.minVisitors
            judgedWindows = verdict?.judgedWindows ?? 0
            failedWindows = verdict?.failedWindows ?? 0
            firstFailure = verdict?.firstFailure.map(JudgedWindowEntry.init)
            worst = verdict?.worst.map(JudgedWindowEntry.init)
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(span, forKey: .span)
            try container.encode(abortOnFail, forKey: .abortOnFail)
            try container.encode(minVisitors, forKey: .minVisitors)
            try container.encode(judgedWindows, forKey: .judgedWindows)
            try container.encode(failedWindows, forKey: .failedWindows)
            try container.encode(firstFailure, forKey: .firstFailure)
            try container.encode(worst, forKey: .worst)
        }

        enum CodingKeys: String, CodingKey {
            case span
            case abortOnFail = "abort_on_fail"
            case minVisitors = "min_visitors"
            case judgedWindows = "judged_windows"
            case failedWindows = "failed_windows"
            case firstFailure = "first_failed_window"
            case worst = "worst_window"
        }
    }

    /// One judged window: seconds `from_s..<to_s` of the run and the value measured there.
    struct JudgedWindowEntry: Codable {
        var fromSeconds: Int
        var toSeconds: Int
        var measured: Double

        init(_ window: JudgedWindow) {
            fromSeconds = window.from
            toSeconds = window.to
            measured = window.measured
        }

        /// The window read back from `run.json`.
        var window: JudgedWindow { JudgedWindow(from: fromSeconds, to: toSeconds, measured: measured) }

        enum CodingKeys: String, CodingKey {
            case fromSeconds = "from_s"
            case toSeconds = "to_s"
            case measured
        }
    }

    /// `guardrail_stop`: the guardrail that stopped the run, its failed window and the instant.
    struct GuardrailStopEntry: Codable {
        var threshold: String
        var window: JudgedWindowEntry
        var atMs: Int64

        enum CodingKeys: String, CodingKey {
            case threshold, window
            case atMs = "at_ms"
        }
    }
}
