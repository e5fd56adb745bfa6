import Histogram
import QueueClientCore

// `run.json`'s timing figures: per group, over every visitor, each a distribution of one
// timing (kept apart from `RunManifest` so that file stays about the manifest's keys).
extension RunManifest {
    struct Distribution: Codable, Equatable {
        var count: UInt64
        var p50: UInt64?
        var p90: UInt64?
        var p95: UInt64?
        var p99: UInt64?
        var max: UInt64?
        /// With a known cap (waits: `client.maxWait`), the cap and the figures at it
        /// (`["p95", "p99", "max"]`), which are censored: those visitors gave up.
        var capMs: UInt64?
        var cappedBy: String?
        var capped: [String]?

        init(_ histogram: some TimingDistribution, cap: MeasurementCap? = nil) {
            count = histogram.totalCount
            if let cap {
                capMs = cap.milliseconds
                cappedBy = cap.source
                capped = []
            }
            guard count > 0 else { return }
            p50 = histogram.valueAtPercentile(50)
            p90 = histogram.valueAtPercentile(90)
            p95 = histogram.valueAtPercentile(95)
            p99 = histogram.valueAtPercentile(99)
            max = histogram.maxRecorded
            if let cap {
                let figures: [(String, UInt64?)] = [
                    ("p50", p50), ("p90", p90), ("p95", p95), ("p99", p99), ("max", max),
                ]
                capped = figures.compactMap { name, value in value.map { cap.caps(Double($0)) } == true ? name : nil }
            }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(count, forKey: .count)
            // Explicit nulls when nobody was measured: readers should not guess.
            try container.encode(p50, forKey: .p50)
            try container.encode(p90, forKey: .p90)
            try container.encode(p95, forKey: .p95)
            try container.encode(p99, forKey: .p99)
            try container.encode(max, forKey: .max)
            try container.encodeIfPresent(capMs, forKey: .capMs)
            try container.encodeIfPresent(cappedBy, forKey: .cappedBy)
            try container.encodeIfPresent(capped, forKey: .capped)
        }

        enum CodingKeys: String, CodingKey {
            case count, p50, p90, p95, p99, max, capped
            case capMs = "cap_ms"
            case cappedBy = "capped_by"
        }
    }

    struct GroupFigures: Codable, Equatable {
        var name: String
        var visitors: Int
        var outcomes: [String: Int]
        var enqueueMs: Distribution
        var waitMs: Distribution
        var totalMs: Distribution
        var connectMs: Distribution
        var tlsMs: Distribution

        enum CodingKeys: String, CodingKey {
            case name, visitors, outcomes
            case enqueueMs = "enqueue_ms"
            case waitMs = "wait_ms"
            case totalMs = "total_ms"
            case connectMs = "connect_ms"
            case tlsMs = "tls_ms"
        }

        /// Every outcome at zero: a group's counts start as a copy of it, so only the outcomes
        /// its visitors had are set (most of 2,000 small groups' have one, issue 51).
        private static let noOutcomes = Dictionary(
            uniqueKeysWithValues: VisitorOutcome.allCases.map { ($0.rawValue, 0) })

        init(name: String, cells: [VisitorOutcome: OutcomeStatistics.Cell], waitCap: MeasurementCap? = nil) {
            self.name = name
            var timings = TimingHistograms()
            var outcomes = Self.noOutcomes
            var visitors = 0
            if cells.count == 1, let (outcome, cell) = cells.first {
                // One cell: its timings as they are, not merged into empty ones.
                outcomes[outcome.rawValue] = cell.count
                visitors = cell.count
                timings = cell.timings
            } else {
                for outcome in VisitorOutcome.allCases {
                    guard let cell = cells[outcome] else { continue }
                    outcomes[outcome.rawValue] = cell.count
                    visitors += cell.count
                    timings.merge(cell.timings)
                }
            }
            self.outcomes = outcomes
            self.visitors = visitors
            enqueueMs = Distribution(timings.reading(.enqueue))
            waitMs = Distribution(timings.reading(.wait), cap: waitCap)
            totalMs = Distribution(timings.reading(.total))
            connectMs = Distribution(timings.reading(.connect))
            tlsMs = Distribution(timings.reading(.tls))
        }

        static func of(
            _ statistics: OutcomeStatistics, waitCap: MeasurementCap? = nil
        ) -> (groups: [GroupFigures], overall: GroupFigures) {
            // A group no visitor reached has the figures of every other such group but its
            // name: made once (with 2,000 small groups, a third of them had none, issue 51).
            var unvisited: GroupFigures?
            let groups = statistics.reportGroupOrder.map { group in
                let cells = statistics.cells(group: group)
                guard cells.isEmpty else {
                    return GroupFigures(name: statistics.groupNames[group], cells: cells, waitCap: waitCap)
                }
                var figures = unvisited ?? GroupFigures(name: "", cells: [:], waitCap: waitCap)
                unvisited = figures
                figures.name = statistics.groupNames[group]
                return figures
            }
            let overall = GroupFigures(
                name: SummaryReport.allGroups,
                cells: Dictionary(
                    uniqueKeysWithValues: VisitorOutcome.allCases.compactMap { outcome in
                        statistics.cellAcrossGroups(outcome: outcome).map { (outcome, $0) }
                    }), waitCap: waitCap)
            return (groups, overall)
        }
    }
}
