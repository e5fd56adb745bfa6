/// Answers so far by endpoint and status, and their times: the request series of a live
/// `/metrics`, summed over a run's event loops (`RunProgress`).
package struct RequestTotals: Sendable {
    package struct StatusCount: Sendable {
        package var status: RequestStatistics.Status
        package var count: Int
    }

    /// Per endpoint (`RequestStatistics.Endpoint` order), statuses in the order first seen.
    package var statuses: [[StatusCount]] = Array(repeating: [], count: RequestStatistics.Endpoint.allCases.count)
    /// Per endpoint, answer times in `CountingBuckets.requests`.
    package var durations = Array(
        repeating: BucketCounts(bounds: CountingBuckets.requests), count: RequestStatistics.Endpoint.allCases.count)

    package init() {}

    mutating func add(_ other: RequestTotals) {
        for endpoint in statuses.indices {
            for entry in other.statuses[endpoint] {
                if let index = statuses[endpoint].firstIndex(where: { $0.status == entry.status }) {
                    statuses[endpoint][index].count += entry.count
                } else {
                    statuses[endpoint].append(entry)
                }
            }
            durations[endpoint].add(other.durations[endpoint])
        }
    }
}
