import Histogram

/// What the reports read out of `RequestStatistics`: answers per second and the page's and
/// `run.json`'s per-endpoint table.
extension RequestStatistics {
    /// Answers of `endpoint` per second, OK or KO.
    func answers(_ endpoint: Endpoint, ok: Bool) -> PerSecondCounts {
        perSecond[2 * endpoint.rawValue + (ok ? 0 : 1)]
    }

    var isEmpty: Bool { cells.allSatisfy(\.isEmpty) }

    /// The table's rows: per endpoint that had answers, its statuses in order.
    var table: [EndpointFigures] {
        Endpoint.allCases.compactMap { endpoint in
            let endpointCells = cells[endpoint.rawValue].sorted { $0.status < $1.status }
            guard !endpointCells.isEmpty else { return nil }
            var all = TimingHistograms.makeHistogram()
            for cell in endpointCells { all.add(cell.latency) }
            let statuses = endpointCells.map {
                EndpointFigures.StatusFigures(
                    status: $0.status.text, ok: $0.status.isOK, latencyMs: .init($0.latency))
            }
            let count = endpointCells.reduce(0) { $0 + Int($1.latency.totalCount) }
            return EndpointFigures(
                endpoint: endpoint.key, title: endpoint.title, count: count,
                ok: endpointCells.filter(\.status.isOK).reduce(0) { $0 + Int($1.latency.totalCount) },
                ko: endpointCells.filter { !$0.status.isOK }.reduce(0) { $0 + Int($1.latency.totalCount) },
                latencyMs: .init(all), statuses: statuses)
        }
    }
}
