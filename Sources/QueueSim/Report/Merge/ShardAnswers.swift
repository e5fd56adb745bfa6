/// A shard's answers by endpoint and status, its answers and new connections per second, and
/// its queue page's answer times (`shard.json`'s `answers`), so `queuesim merge` writes the
/// per-endpoint table, the answer and connection columns of `timeline.csv` and the queue-page
/// chart that one process would have written: histograms as `EncodedHistogram`s rebuild bucket
/// for bucket, per-second counts add up, and `LatencyOverTime` bins merge exactly.
struct ShardAnswers: Codable, Equatable {
    struct Cell: Codable, Equatable {
        /// `enqueue`, `queue_page`, `protected_api`.
        var endpoint: String
        /// The HTTP status, or below 100 a request without an answer (`RequestStatistics.Status`).
        var status: Int
        var histogram: EncodedHistogram
    }

    var cells: [Cell]
    /// `[second, enqueue_ok, enqueue_ko, queue_page_ok, queue_page_ko, protected_api_ok,
    /// protected_api_ko]` for each second with an answer.
    var perSecond: [[Int]]
    /// The queue page's answer times: the bins' width and `[bin, bucket, count]` triples.
    var queuePageBinSeconds: Int
    var queuePageBins: [[Int]]
    /// New connections per second, `[second, count]`; nil when not counted (virtual time).
    var connectionsPerSecond: [[Int]]?

    enum CodingKeys: String, CodingKey {
        case cells
        case perSecond = "per_second"
        case queuePageBinSeconds = "queue_page_bin_seconds"
        case queuePageBins = "queue_page_bins"
        case connectionsPerSecond = "connections_per_second"
    }

    init(_ statistics: RequestStatistics, connections: PerSecondCounts?) {
        cells = RequestStatistics.Endpoint.allCases.flatMap { endpoint in
            statistics.cells[endpoint.rawValue].map {
                Cell(endpoint: endpoint.key, status: $0.status.code, histogram: EncodedHistogram($0.latency))
            }
        }
        var rows: [Int: [Int]] = [:]
        for (index, counts) in statistics.perSecond.enumerated() {
            for (second, count) in counts.nonZero {
                rows[second, default: Array(repeating: 0, count: statistics.perSecond.count)][index] = count
            }
        }
        perSecond = rows.keys.sorted().map { [$0] + rows[$0]! }
        queuePageBinSeconds = statistics.queuePageLatency.binSeconds
        queuePageBins = statistics.queuePageLatency.sparseBins
        connectionsPerSecond = connections.map { $0.nonZero.map { [$0.second, $0.count] } }
    }

    /// The statistics this was written from; throws when a histogram is inconsistent.
    func statistics() throws -> RequestStatistics {
        var statistics = RequestStatistics()
        for cell in cells {
            guard let endpoint = RequestStatistics.Endpoint.allCases.first(where: { $0.key == cell.endpoint }) else {
                throw EncodedHistogram.Failure.inconsistent("an answer of an unknown endpoint `\(cell.endpoint)`")
            }
            statistics.add(endpoint, status: .init(code: cell.status), latency: try cell.histogram.histogram())
        }
        for row in perSecond where row.count == 1 + statistics.perSecond.count {
            for (index, count) in row.dropFirst().enumerated() where count > 0 {
                statistics.addAnswers(count, column: index, inSecond: row[0])
            }
        }
        statistics.addQueuePageLatency(LatencyOverTime(binSeconds: queuePageBinSeconds, sparseBins: queuePageBins))
        return statistics
    }

    var connections: PerSecondCounts? {
        connectionsPerSecond.map { pairs in
            var counts = PerSecondCounts()
            for pair in pairs where pair.count == 2 && pair[1] > 0 { counts.add(at: pair[0], pair[1]) }
            return counts
        }
    }
}
