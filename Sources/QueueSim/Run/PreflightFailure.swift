import QueueClientCore

/// A problem the preflight found, with where in the scenario it comes from when that is known.
package struct PreflightFailure: Error, CustomStringConvertible {
    package var reason: any Error
    package var position: YamlMark?

    init(reason: any Error, at position: YamlMark?) {
        self.reason = reason
        self.position = position
    }

    package var description: String { ErrorWording.plain(reason) }

    /// A feeder that runs out points at its `csv:`; the plan's size and memory at `arrivals:`;
    /// the clock at `target:` (where the endpoint is).
    static func position(of error: any Error, in scenario: Scenario) -> YamlMark? {
        switch error {
        case PlanError.feederTooShort(_, let file, _, _, _, _), PlanError.feederExhausted(_, let file, _, _):
            return scenario.positions.feeders[file] ?? scenario.positions.arrivals
        case PlanError.virtualClockNeedsEmbeddedRoom, PlanError.shardedEmbeddedRoom:
            return scenario.positions.target
        case PlanError.shardedVirtualClock:
            // Where the file asks for virtual time; `--clock virtual` has no place in it.
            return scenario.clock == .virtual ? scenario.positions.clock : nil
        case PlanError.moreShardsThanConcurrency, PlanError.startAtNeedsWallClock:
            return scenario.positions.run
        case PlanError.tooManyDescriptors(let budget):
            // The cap that let this many in flight, else the plan that sends them (and the
            // Android connections held after their answers).
            return budget.limitedByConcurrency && !budget.heldConnectionsDominate
                ? scenario.positions.concurrency ?? scenario.positions.arrivals : scenario.positions.arrivals
        case CSVColumnReader.Failure.unreadable(let path, _), CSVColumnReader.Failure.empty(let path),
            CSVColumnReader.Failure.missingColumn(let path, _, _), CSVColumnReader.Failure.malformed(let path, _, _):
            return scenario.positions.feeders[path]
        default:
            return scenario.positions.arrivals
        }
    }
}
