import Foundation

/// What `AbandonmentFluid` found: when each share of each block was reached. From it, per
/// visitor (its last attempt, as visitors.csv has one row per visitor): the share who passed,
/// gave up, or were still queued at `client.maxWait`, and the distribution of `wait_ms` (a
/// visitor who passed waited until its turn, one who gave up its patience, one who timed out
/// `maxWait`).
package struct FluidTrajectory: Sendable {
    let model: AbandonmentFluid
    /// The plan's visitors (first attempts).
    package let visitors: Double
    private let reaches: [Reach]
    /// The most visitors on the queue page at once (those who left or timed out not counted),
    /// and when (seconds since the run's origin); 0 unless the model tracked it
    /// (`AbandonmentFluid.tracksQueue`).
    package let peakQueue: Double
    package let peakQueueAt: Double

    init(model: AbandonmentFluid, blocks: [FluidBlock], visitors: Double, peak: (queue: Double, at: Double) = (0, 0)) {
        self.model = model
        self.visitors = visitors
        reaches = Self.reaches(of: blocks, model: model)
        longestWait = min(model.maxWait, reaches.map(\.age).max() ?? 0)
        peakQueue = peak.queue
        peakQueueAt = peak.at
    }

    /// No wait is longer: the last turn (infinity: never) or `client.maxWait`, the sooner.
    private let longestWait: Double

    /// One share of one component, reached `age` seconds after it landed on the queue page.
    private struct Reach {
        var mass: Double
        var age: Double
        /// The share of those who give up that stay gone (the rest are a later attempt's).
        var staysGone: Double
        /// No-shows: they left as soon as they landed (wait 0).
        var noShow: Bool
    }

    private static func reaches(of blocks: [FluidBlock], model: AbandonmentFluid) -> [Reach] {
        var all: [Reach] = []
        for block in blocks {
            for piece in block.pieces {
                for component in block.components {
                    let staysGone =
                        model.mayComeBack(component.generation, noShow: component.noShow)
                        ? 1 - (model.comeback?.share ?? 0) : 1
                    all.append(
                        Reach(
                            mass: component.mass * piece.share, age: max(0, piece.at - component.arrival),
                            staysGone: staysGone, noShow: component.noShow))
                }
            }
        }
        return all
    }

    /// The share of the plan's visitors who passed.
    package var passedShare: Double {
        reaches.reduce(0) { $0 + $1.mass * model.present($1.age, noShow: $1.noShow) } / visitors
    }

    /// The share who gave up for good (no-shows included).
    package var abandonedShare: Double {
        reaches.reduce(0) { total, reach in
            let left = 1 - model.survival(min(reach.age, model.maxWait), noShow: reach.noShow)
            return total + reach.mass * left * reach.staysGone
        } / visitors
    }

    /// The share still queued when `client.maxWait` ran out.
    package var queuedShare: Double {
        reaches.reduce(0) { total, reach in
            guard reach.age >= model.maxWait else { return total }
            return total + reach.mass * model.survival(model.maxWait, noShow: reach.noShow)
        } / visitors
    }

    /// The share of visitors whose (last) wait is at most `seconds`.
    package func waitShare(within seconds: Double) -> Double {
        var total = 0.0
        for reach in reaches {
            if reach.age <= seconds { total += reach.mass * model.present(reach.age, noShow: reach.noShow) }
            // Who gave up waited its patience (a no-show: 0).
            if model.patience != nil || reach.noShow {
                let bound = min(seconds, reach.age, model.maxWait)
                total += reach.mass * reach.staysGone * (1 - model.survival(bound, noShow: reach.noShow))
            }
            if reach.age >= model.maxWait, model.maxWait <= seconds {
                total += reach.mass * model.survival(model.maxWait, noShow: reach.noShow)
            }
        }
        return total / visitors
    }

    /// The wait `fraction` of the visitors do not exceed (0.95: the p95), in seconds, by
    /// bisection on `waitShare`; at most `client.maxWait`.
    package func waitPercentile(_ fraction: Double) -> Double {
        var low = 0.0
        var high = longestWait
        if waitShare(within: 0) >= fraction { return 0 }
        for _ in 0..<48 where high - low > 1e-3 {
            let middle = (low + high) / 2
            if waitShare(within: middle) >= fraction - 1e-12 { high = middle } else { low = middle }
        }
        return high
    }

    /// The share of the plan's visitors who passed after a wait of at most `seconds`.
    package func passedShare(within seconds: Double) -> Double {
        reaches.reduce(0) {
            $0 + ($1.age <= seconds ? $1.mass * model.present($1.age, noShow: $1.noShow) : 0)
        } / visitors
    }

    /// The wait `fraction` of those who passed do not exceed, in seconds (0 when nobody
    /// passes): what a visitor who gets through waits, apart from those who gave up.
    package func passedWaitPercentile(_ fraction: Double) -> Double {
        let passed = passedShare
        guard passed > 0 else { return 0 }
        var low = 0.0
        var high = longestWait
        if passedShare(within: 0) >= fraction * passed { return 0 }
        for _ in 0..<48 where high - low > 1e-3 {
            let middle = (low + high) / 2
            if passedShare(within: middle) >= fraction * passed - 1e-12 { high = middle } else { low = middle }
        }
        return high
    }

    /// The mean wait, in seconds: ∫ (1 − share within w) dw up to the longest wait.
    package func meanWait(intervals: Int = 400) -> Double {
        let width = longestWait / Double(intervals)
        var total = 0.0
        for index in 0..<intervals {
            total += (1 - min(1, waitShare(within: (Double(index) + 0.5) * width))) * width
        }
        return total
    }
}
