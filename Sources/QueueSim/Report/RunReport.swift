import Foundation
import QueueClientCore

/// What a finished run amounts to: the numbers for the end-of-run screen and the exit code.
package struct RunReport: Sendable {
    package var directory: String
    package var visitorCount: Int
    package var outcomeCounts: [VisitorOutcome: Int]
    package var requestCount: Int
    package var verdicts: [ThresholdVerdict]
    package var exitStatus: RunExitStatus
    /// Everything a threshold (or the end-of-run screen) can measure.
    package var measurements: RunMeasurements
    /// Wall-clock runs: how the load generator kept up.
    package var generator: GeneratorReport? = nil
    /// A sharded run's part of the plan: its thresholds are left to `queuesim merge`.
    package var shard: PlanShard? = nil
    /// The most frequent causes of failed visitors (error, unavailable, restarted, closed),
    /// per group in scenario order; groups without failures are left out.
    package var failureCauses: [GroupFailureCauses] = []
    /// `report.html`'s path (in the run's own folder).
    package var pagePath: String = ""
    /// The run's length on its own clock, and its wall-clock start.
    package var durationMs: Int64 = 0
    package var startedAt = Date(timeIntervalSince1970: 0)
    /// Seconds the run took on the wall clock (a virtual hour can take a minute): JUnit's `time`.
    package var wallSeconds: Double = 0
    /// Runs where a group mixes platforms: the outcomes of each platform's visitors (`ios`,
    /// `android`); empty otherwise, where a group names its visitors' platform.
    package var platformOutcomes: [String: [VisitorOutcome: Int]] = [:]
    /// How long the queue got and how long it lasted (a sweep's columns).
    package var queue = QueueFigures()

    /// The plain-text threshold table for the end-of-run screen (empty without thresholds).
    package var thresholdTable: String { ThresholdTable.render(verdicts) }
}
