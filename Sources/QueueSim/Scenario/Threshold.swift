import QueueClientCore

/// One line of a scenario's `thresholds:` list, such as `passed >= 99%` or `wait.p95 < 5m`.
///
/// The type lives here so that the scenario reader (which parses it) and the recorder (which
/// measures it) share one definition.
package struct Threshold: Sendable, Equatable {
    package enum Comparator: String, Sendable, CaseIterable {
        case lessThan = "<"
        case lessOrEqual = "<="
        case greaterThan = ">"
        case greaterOrEqual = ">="
        case equal = "=="
        case notEqual = "!="

        package func holds(_ measured: Double, _ limit: Double) -> Bool {
            switch self {
            case .lessThan: measured < limit
            case .lessOrEqual: measured <= limit
            case .greaterThan: measured > limit
            case .greaterOrEqual: measured >= limit
            case .equal: measured == limit
            case .notEqual: measured != limit
            }
        }

        /// Whether a figure known only as a lower bound (`≥ bound`: a wait capped by
        /// `client.maxWait` or `run.duration`) proves the comparison: only when every value at or
        /// above the bound satisfies it. `<`, `<=` and `==` never are proved by a lower bound.
        package func holds(atLeast bound: Double, _ limit: Double) -> Bool {
            switch self {
            case .greaterThan, .notEqual: bound > limit
            case .greaterOrEqual: bound >= limit
            case .lessThan, .lessOrEqual, .equal: false
            }
        }
    }

    /// The timings a latency threshold can name.
    package enum Timing: String, Sendable, CaseIterable {
        /// start → enqueue decision (`enqueue_ms`)
        case enqueue
        /// time in the queue page (`wait_ms`)
        case wait
        /// intended arrival → final outcome (`total_ms`)
        case total
        /// the TCP connect of the visitor's first request, when it opened a connection (`connect_ms`)
        case connect
        /// the TLS handshake of that connection, on https (`tls_ms`)
        case tls
    }

    package enum Statistic: Sendable, Equatable {
        /// A percentile in 0...100, e.g. 95 for `p95`, 99.9 for `p99.9`.
        case percentile(Double)
        case max
        case min
        case mean
    }

    package enum Metric: Sendable, Equatable {
        /// `passed`, `error`, …: the share of all visitors with that outcome, a fraction 0...1.
        case outcomeRatio(VisitorOutcome)
        /// `passed.count`: the number of visitors with that outcome.
        case outcomeCount(VisitorOutcome)
        /// `visitors`: the number of visitors that arrived.
        case visitorCount
        /// `wait.p95`, `enqueue.max`: a statistic of a timing, in milliseconds.
        case timing(Timing, Statistic)
    }

    package var metric: Metric
    package var comparator: Comparator
    /// A fraction for ratios, a count for counts, milliseconds for timings.
    package var limit: Double
    /// The text as written in the scenario, for tables and `run.json` (`partner: wait.p95 < 5m`
    /// for a group's threshold).
    package var source: String
    /// A visitor group's name: the threshold measures that group's visitors only. Nil: all.
    package var group: String?
    /// Nil for a threshold on the whole run; set for one judged over windows of it (a
    /// guardrail, `- { threshold: "unavailable < 5%", over: 30s, abortOnFail: true }`).
    package var window: ThresholdWindow? = nil

    package init(
        metric: Metric, comparator: Comparator, limit: Double, source: String, group: String? = nil,
        window: ThresholdWindow? = nil
    ) {
        self.metric = metric
        self.comparator = comparator
        self.limit = limit
        self.source = source
        self.group = group
        self.window = window
    }

    /// Whether a run that fails it stops at once (exit 4).
    package var isGuardrail: Bool { window?.abortOnFail == true }
}
