import Histogram
import QueueClientCore

/// `summary.csv`: one row per (group, outcome) that occurred, groups in scenario order, then
/// one `all` row per outcome that occurred across groups; outcomes in `VisitorOutcome` order.
enum SummaryReport {
    static let columns = [
        "group", "outcome", "count", "ratio",
        "enqueue_p50_ms", "enqueue_p90_ms", "enqueue_p95_ms", "enqueue_p99_ms", "enqueue_max_ms",
        "wait_p50_ms", "wait_p90_ms", "wait_p95_ms", "wait_p99_ms", "wait_max_ms",
        // Added after the contract's columns (extend, never rename): arrival → final outcome.
        "total_p50_ms", "total_p90_ms", "total_p95_ms", "total_p99_ms", "total_max_ms",
        // The first request's handshakes (issue 28): empty when no visitor opened a connection.
        "connect_p50_ms", "connect_p90_ms", "connect_p95_ms", "connect_p99_ms", "connect_max_ms",
        "tls_p50_ms", "tls_p90_ms", "tls_p95_ms", "tls_p99_ms", "tls_max_ms",
    ]

    /// The group name of the across-groups rows.
    static let allGroups = "all"

    static func render(_ statistics: OutcomeStatistics) -> String {
        var row = CSVRowBuilder()
        for group in statistics.reportGroupOrder {
            for outcome in VisitorOutcome.allCases {
                guard let cell = statistics.cell(group: group, outcome: outcome) else { continue }
                appendRow(
                    group: statistics.groupNames[group], outcome: outcome, cell: cell,
                    of: statistics.visitorsPerGroup[group], into: &row)
            }
        }
        for outcome in VisitorOutcome.allCases {
            guard let cell = statistics.cellAcrossGroups(outcome: outcome) else { continue }
            appendRow(
                group: allGroups, outcome: outcome, cell: cell, of: statistics.visitorCount, into: &row)
        }
        return columns.joined(separator: ",") + "\n" + String(decoding: row.bytes, as: UTF8.self)
    }

    private static func appendRow(
        group: String, outcome: VisitorOutcome, cell: OutcomeStatistics.Cell, of visitors: Int,
        into row: inout CSVRowBuilder
    ) {
        row.text(group)
        row.text(outcome.rawValue)
        row.integer(cell.count)
        row.raw(fixedPointRatio(cell.count, visitors))
        appendDistribution(cell.timings.reading(.enqueue), into: &row)
        appendDistribution(cell.timings.reading(.wait), into: &row)
        appendDistribution(cell.timings.reading(.total), into: &row)
        appendDistribution(cell.timings.reading(.connect), into: &row)
        appendDistribution(cell.timings.reading(.tls), into: &row)
        row.endRow()
    }

    /// p50, p90, p95, p99 and max; five empty cells when nothing was recorded.
    private static func appendDistribution(
        _ histogram: some TimingDistribution, into row: inout CSVRowBuilder
    ) {
        guard histogram.totalCount > 0 else {
            for _ in 0..<5 { row.empty() }
            return
        }
        for percentile in [50.0, 90, 95, 99] {
            row.integer(histogram.valueAtPercentile(percentile))
        }
        row.integer(histogram.maxRecorded)
    }
}
