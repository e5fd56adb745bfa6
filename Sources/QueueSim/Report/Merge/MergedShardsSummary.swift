/// What a merged report says about the shards it was made from, in words: `report.html`'s
/// header and `queuesim merge`'s end screen print the same lines, and `run.json` holds the
/// same figures (`merged_from`, `shards.starts`).
///
/// A merged report's timings are only as good as each shard's: a shard that started late
/// for the common start, or whose generator was saturated, adds its own delay to its
/// visitors' timings, and the merged percentiles hide which shard it was. So every shard's
/// start lag and saturated seconds are shown beside the merged figures.
package struct MergedShardsSummary: Sendable, Equatable {
    package struct Shard: Sendable, Equatable {
        package var index: Int
        /// How late the shard was for the common start; nil without one.
        package var startLagMs: Int64?
        /// Seconds in which the shard's generator fell behind; nil when it did not record it.
        package var saturatedSeconds: Int?

        package init(index: Int, startLagMs: Int64?, saturatedSeconds: Int?) {
            self.index = index
            self.startLagMs = startLagMs
            self.saturatedSeconds = saturatedSeconds
        }
    }

    /// N of `--shard K/N`.
    package var count: Int
    /// The shards merged, in shard order.
    package var shards: [Shard]
    package var missing: [Int]

    package init(count: Int, shards: [Shard], missing: [Int]) {
        self.count = count
        self.shards = shards
        self.missing = missing
    }

    /// A start lag above this is called out: a shard that late sent its first visitors late.
    package static let noticeableLagMs: Int64 = 1000

    /// "merged from 3 shards", or "merged from 2 of 3 shards (PARTIAL: shard 2 missing)".
    package var headline: String {
        guard !missing.isEmpty else { return "merged from \(shards.count) shards" }
        let names = missing.map(String.init).joined(separator: ", ")
        return
            "merged from \(shards.count) of \(count) shards (PARTIAL: shard\(missing.count == 1 ? "" : "s") \(names) missing)"
    }

    /// One line per merged shard: its start lag and its generator's health.
    package var shardLines: [String] {
        shards.map { shard in
            let lag = shard.startLagMs.map { "start lag \($0) ms" } ?? "no common start"
            let generator: String
            switch shard.saturatedSeconds {
            case nil: generator = "generator health not recorded"
            case 0?: generator = "generator kept up (0 saturated seconds)"
            case let seconds?:
                generator = "WARNING: generator saturated for \(seconds) s (its timings include its own delay)"
            }
            let late =
                (shard.startLagMs ?? 0) >= Self.noticeableLagMs
                ? " — WARNING: started late, its first visitors too" : ""
            return "shard \(shard.index): \(lag), \(generator)\(late)"
        }
    }
}
