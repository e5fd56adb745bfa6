import Histogram

/// The queue page's answer times over the run (`run.json`'s `queue_page_latency_ms`, the
/// page's chart): p50, p95 and p99 of the answers that came in each bin of `bin_seconds`,
/// known within about 6 % (`LatencyOverTime`).
package struct QueuePageLatencyFigures: Sendable, Equatable, Codable {
    var binSeconds: Int
    /// `[first second, p50, p95, p99]` per bin with answers.
    var bins: [[Int64]]

    enum CodingKeys: String, CodingKey {
        case bins
        case binSeconds = "bin_seconds"
    }

    /// In bins at least `bucketSeconds` wide: the page's other charts' buckets.
    init(_ latency: LatencyOverTime, bucketSeconds: Int) {
        let figures = latency.percentiles([50, 95, 99], minimumSeconds: bucketSeconds)
        binSeconds = figures.first?.width ?? max(bucketSeconds, latency.binSeconds)
        bins = figures.map { [Int64($0.second)] + $0.values.map { Int64(clamping: $0) } }
    }
}

/// One endpoint's answers, as `run.json`'s `requests_by_endpoint` holds them and the page's
/// table shows them (`queuesim report` reads them back from `run.json`).
package struct EndpointFigures: Sendable, Equatable, Codable {
    package struct Latency: Sendable, Equatable, Codable {
        var count: Int
        var p50: UInt64?
        var p95: UInt64?
        var p99: UInt64?
        var max: UInt64?

        init(_ histogram: Histogram<UInt64>) {
            count = Int(histogram.totalCount)
            guard count > 0 else { return }
            p50 = histogram.valueAtPercentile(50)
            p95 = histogram.valueAtPercentile(95)
            p99 = histogram.valueAtPercentile(99)
            max = histogram.maxRecorded
        }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(count, forKey: .count)
            // Explicit nulls without answers, as the groups' distributions do.
            try container.encode(p50, forKey: .p50)
            try container.encode(p95, forKey: .p95)
            try container.encode(p99, forKey: .p99)
            try container.encode(max, forKey: .max)
        }

        enum CodingKeys: String, CodingKey { case count, p50, p95, p99, max }
    }

    package struct StatusFigures: Sendable, Equatable, Codable {
        /// `200`, `503`, or `timeout`, `reset`, `connect failed`, `TLS error`, `failed`.
        var status: String
        var ok: Bool
        var latencyMs: Latency

        enum CodingKeys: String, CodingKey {
            case status, ok
            case latencyMs = "latency_ms"
        }
    }

    /// `enqueue`, `queue_page`, `protected_api`.
    var endpoint: String
    var title: String
    /// Answers and failures; `ok` (1xx–3xx) and `ko` (4xx, 5xx, no answer) add up to it.
    var count: Int
    var ok: Int
    var ko: Int
    var latencyMs: Latency
    var statuses: [StatusFigures]

    enum CodingKeys: String, CodingKey {
        case endpoint, title, count, ok, ko, statuses
        case latencyMs = "latency_ms"
    }
}
