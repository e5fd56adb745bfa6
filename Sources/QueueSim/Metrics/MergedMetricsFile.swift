/// `metrics.prom` of a merged run (`queuesim merge`): every shard's series, as a Prometheus
/// scraping the N shards would have stored them — each keeps its `shard` label and its own
/// samples and timestamps, so sums over `shard` are the whole run's — under the merged run's
/// `run_id`, with each family written once as OpenMetrics requires.
enum MergedMetricsFile {
    /// `shardFiles`: the shards' metrics.prom texts, in shard order.
    static func merge(_ shardFiles: [String], runId: String) -> String {
        var familyOrder: [String] = []
        var headers: [String: [Substring]] = [:]
        var samples: [String: [String]] = [:]
        for text in shardFiles {
            var family = ""
            for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
                if line.hasPrefix("# TYPE ") || line.hasPrefix("# HELP ") {
                    family = String(line.dropFirst(7).prefix { $0 != " " })
                    if headers[family] == nil {
                        familyOrder.append(family)
                        headers[family] = []
                    }
                    if headers[family]!.count < 2, !headers[family]!.contains(line) { headers[family]!.append(line) }
                    continue
                }
                if line.hasPrefix("#") { continue }
                samples[family, default: []].append(relabelled(line, runId: runId))
            }
        }
        var out = ""
        for family in familyOrder {
            for header in headers[family] ?? [] { out += header + "\n" }
            for sample in samples[family] ?? [] { out += sample + "\n" }
        }
        return out + "# EOF\n"
    }

    /// The sample with its `run_id` label's value replaced (queuesim writes `run_id` first).
    private static func relabelled(_ line: Substring, runId: String) -> String {
        guard let open = line.range(of: "{run_id=\""),
            let close = line[open.upperBound...].firstIndex(of: "\"")
        else { return String(line) }
        return String(line[..<open.upperBound]) + runId + String(line[close...])
    }
}
