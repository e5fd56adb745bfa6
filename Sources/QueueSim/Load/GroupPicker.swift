/// Picks each visitor's group by weight: visitor index → group index.
///
/// The draw for visitor i comes from `SeededRandom(seed, .groupChoice, i)` alone, so a
/// visitor's group never depends on which other visitors were planned or in what order.
/// Weights are relative (80/15/5 and 0.8/0.15/0.05 pick alike); a group of weight 0 (or a
/// negative or non-finite one) is never picked. O(log groups) per visitor.
package struct GroupPicker: Sendable {
    /// Running sums of the usable weights; `cumulative[g]` is the end of group g's share.
    private let cumulative: [Double]
    private let seed: UInt64

    package init(weights: [Double], seed: UInt64) throws {
        var running = 0.0
        cumulative = weights.map { weight in
            if weight.isFinite, weight > 0 { running += weight }
            return running
        }
        guard running > 0 else { throw PlanError.noVisitorGroups }
        self.seed = seed
    }

    package init(groups: [VisitorGroup], seed: UInt64) throws {
        try self.init(weights: groups.map(\.weight), seed: seed)
    }

    package var groupCount: Int { cumulative.count }

    package func group(forVisitor index: Int) -> Int {
        var random = SeededRandom(seed: seed, purpose: .groupChoice, index: UInt64(index))
        let total = cumulative[cumulative.count - 1]
        // `nextUnit() < 1`, but the product can still round up to `total`; keep it inside.
        let point = min(random.nextUnit() * total, total.nextDown)
        // The first group whose share ends beyond the point. Zero-weight groups have an empty
        // share (their end equals their predecessor's), so the strict comparison skips them.
        var low = 0
        var high = cumulative.count - 1
        while low < high {
            let middle = (low + high) / 2
            if cumulative[middle] > point { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
