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
    /// `queued` visitors left on a queue page that advances by its own script (Queue-it's real
    /// page), which queuesim does not run: they cannot pass, whatever the room does.
    package var queuedOnScriptPage = 0
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
    /// The load behind the queue and the visitors who gave up (`afterPass`, `patience`,
    /// `comeback`): run.json's `after_pass`, `abandoned_share` and `comebacks`.
    package var behaviour = BehaviourFigures()
    /// How long the queue got and how long it lasted (a sweep's columns).
    package var queue = QueueFigures()
    /// The guardrail that stopped the run, and when (exit 4).
    package var guardrailTrip: GuardrailTrip? = nil

    /// The plain-text threshold table for the end-of-run screen (empty without thresholds).
    package var thresholdTable: String { ThresholdTable.render(verdicts) }
}

/// What visitors did beyond the SDK, over the whole run (zeros when no group has a behaviour).
package struct BehaviourFigures: Sendable, Equatable, Encodable {
    /// After-pass calls (HTTP requests, the connector's redirect hops included) in all.
    package var afterPassRequests = 0
    /// The most after-pass requests in one second of the run: the shop's peak load from
    /// visitors who passed (`after_pass.peak_requests_per_second`).
    package var afterPassPeakPerSecond = 0
    /// The second of that peak (the first, on a tie); nil without after-pass calls.
    package var afterPassPeakSecond: Int?
    /// Times visitors reopened the app after giving up, in all.
    package var comebacks = 0
    /// The share of visitors whose outcome is `abandoned` (0...1).
    package var abandonedShare = 0.0
    /// False when the after-pass calls were not counted (a recovered run: they died with the
    /// process): run.json's `after_pass` is then `null`.
    package var afterPassCounted = true

    package init() {}

    enum CodingKeys: String, CodingKey {
        case requests
        case peakRequestsPerSecond = "peak_requests_per_second"
        case peakSecond = "peak_second"
    }

    /// run.json's `after_pass` object.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(afterPassRequests, forKey: .requests)
        try container.encode(afterPassPeakPerSecond, forKey: .peakRequestsPerSecond)
        try container.encode(afterPassPeakSecond, forKey: .peakSecond)
    }
}

/// One group's most frequent failure causes, for the end screen.
package struct GroupFailureCauses: Sendable, Equatable {
    /// The three most frequent causes of each group's failed visitors, groups in report order.
    static func top(statistics: OutcomeStatistics, picture: LaunchPicture) -> [GroupFailureCauses] {
        statistics.reportGroupOrder.compactMap { group in
            let name = statistics.groupNames[group]
            let causes = picture.topCauses(of: name, limit: 3)
            return causes.isEmpty
                ? nil
                : GroupFailureCauses(
                    group: name,
                    causes: causes.map { FailureCause(cause: $0.key, count: $0.count, example: $0.example) })
        }
    }

    package var group: String
    package var causes: [FailureCause]
}

package struct FailureCause: Sendable, Equatable {
    /// `HTTP 503`, or the transport error in words.
    package var cause: String
    package var count: Int
    package var example: String
}
