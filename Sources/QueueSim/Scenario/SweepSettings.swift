import Foundation

/// A key the sweep varies and the values it takes (`sweep.vary` or `--vary`).
package struct SweepAxis: Sendable, Equatable {
    /// The scenario path, as `--set` takes it: `waitingRoom.outflow`, `arrivals.scale`.
    package var key: String
    package var values: [SweepValue]
    /// Where the values are written in the scenario file; nil for `--vary`.
    package var mark: YamlMark?

    package init(key: String, values: [SweepValue], mark: YamlMark? = nil) {
        self.key = key
        self.values = values
        self.mark = mark
    }
}

/// Which way the answer goes: the lowest (`minimize`) or highest (`maximize`) value of a
/// varied key that meets every goal.
package struct SweepObjective: Sendable, Equatable {
    package enum Direction: String, Sendable, Equatable {
        case minimize
        case maximize
    }

    package var direction: Direction
    package var key: String
    /// Where `minimize:`/`maximize:` is written; nil on the command line.
    package var mark: YamlMark?

    package init(direction: Direction, key: String, mark: YamlMark? = nil) {
        self.direction = direction
        self.key = key
        self.mark = mark
    }
}

/// The scenario's `sweep:` block (docs/sweep.md), read by `queuesim sweep` and ignored by
/// `run`. `queuesim sweep`'s options replace or add to it (`SweepSettings.applying`).
package struct SweepSettings: Sendable, Equatable {
    package var axes: [SweepAxis] = []
    /// Seeds per point: the scenario's seed, seed + 1, … (nil: 1).
    package var seeds: Int?
    package var goals: [Threshold] = []
    package var objective: SweepObjective?

    package init(axes: [SweepAxis] = [], seeds: Int? = nil, goals: [Threshold] = [], objective: SweepObjective? = nil) {
        self.axes = axes
        self.seeds = seeds
        self.goals = goals
        self.objective = objective
    }

    /// Most seeds per point.
    package static let mostSeeds = 1_000
    /// Most points of a grid (the product of every key's values).
    package static let mostPoints = 100_000

    /// The block with the command line's choices on top: a `--vary` of a key the block varies
    /// replaces its values (in the block's place), other `--vary` keys follow; `--goal`s are
    /// added to the block's goals; `--seeds` and `--minimize`/`--maximize` replace the block's.
    package func applying(
        vary: [SweepAxis], seeds: Int?, goals: [Threshold], objective: SweepObjective?
    ) -> SweepSettings {
        var result = self
        for axis in vary {
            if let index = result.axes.firstIndex(where: { $0.key == axis.key }) {
                result.axes[index] = axis
            } else {
                result.axes.append(axis)
            }
        }
        if let seeds { result.seeds = seeds }
        result.goals += goals
        if let objective { result.objective = objective }
        return result
    }

    /// Points in the grid: every combination of the keys' values.
    package var pointCount: Int { axes.reduce(1) { $0 * $1.values.count } }
}
