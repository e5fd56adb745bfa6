/// Why a visitor plan cannot be made or cannot go on. Every case is a scenario or command-line
/// problem (exit code 2 when found before the run).
package enum PlanError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No visitor group has a positive weight, so no arriving visitor can pick one.
    case noVisitorGroups
    /// `--clock virtual` on a scenario with a real endpoint: virtual time cannot drive a server.
    case virtualClockNeedsEmbeddedRoom
    /// `--shard` on the virtual clock: simulated time, the room and every visitor are one
    /// process's calendar; another process cannot share it.
    case shardedVirtualClock(shards: Int)
    /// `--shard` with `endpoint: embedded`: each process would start a room of its own, and
    /// N rooms with N queues are not the one room the scenario describes.
    case shardedEmbeddedRoom(shards: Int)
    /// `--shard K/N` with N above `run.concurrency`: some shard would be allowed no visitor in flight.
    case moreShardsThanConcurrency(shards: Int, concurrency: Int)
    /// `--start-at` or `run.startAt` on the virtual clock, which has no wall-clock start.
    case startAtNeedsWallClock
    /// `--visitors` was negative.
    case invalidVisitorCount(Int)
    /// `--visitors N` asked to scale a plan whose phases produce no arrivals at all.
    case nothingToScale(visitors: Int)
    /// A feeder ran out (`unique`, `sequence`) or has no rows at all (any order) when the plan
    /// reached a visitor of `group`.
    case feederExhausted(group: String, file: String, column: String, rows: Int)
    /// Found before the run: the planned visitors of `groups` need more rows than the feeder has.
    case feederTooShort(
        groups: [String], file: String, column: String, order: FeederOrder, rows: Int, visitorsPlanned: Int)
    /// A wall-clock plan whose visitors in flight at once need more file descriptors (their
    /// own connections, twice with the embedded room in the process) than the process may open.
    case tooManyDescriptors(DescriptorBudget)

    package var description: String {
        switch self {
        case .noVisitorGroups:
            return "no visitor group has a positive weight; give at least one group a weight above 0"
        case .virtualClockNeedsEmbeddedRoom:
            return "clock virtual needs endpoint: embedded (a real endpoint runs on the wall clock)"
        case .shardedVirtualClock(let shards):
            return
                "--shard …/\(shards): a virtual-clock run is one process (simulated time, the embedded room and every visitor share one calendar) and cannot be sharded; run it unsharded, or shard a wall-clock run against a shared endpoint"
        case .shardedEmbeddedRoom(let shards):
            return
                "--shard …/\(shards): every shard would start an embedded room of its own, \(shards) rooms with \(shards) queues instead of one; give the shards one shared endpoint: a real one, or one `queuesim serve` (target.endpoint: http://HOST:PORT)"
        case .moreShardsThanConcurrency(let shards, let concurrency):
            return
                "--shard …/\(shards): run.concurrency \(concurrency) is split between the shards, so there cannot be more shards than it allows visitors in flight; raise run.concurrency (or --concurrency) or use fewer shards"
        case .startAtNeedsWallClock:
            return
                "a common start (--start-at, run.startAt) lines up wall-clock runs; a virtual-clock run has no wall-clock start: remove it or run on the wall clock"
        case .invalidVisitorCount(let count):
            return "--visitors must be from 0 to \(ScenarioLimits.mostVisitorsText) (got \(count))"
        case .nothingToScale(let visitors):
            return "--visitors \(visitors): the arrival phases plan no visitors, so there is nothing to scale"
        case .feederExhausted(let group, let file, let column, let rows):
            if rows == 0 {
                return "visitor group '\(group)': \(file) column '\(column)' has no rows"
            }
            return
                "visitor group '\(group)': \(file) column '\(column)' ran out after \(rows) rows (each row goes to one visitor only)"
        case .feederTooShort(let groups, let file, let column, let order, let rows, let planned):
            let who =
                groups.count == 1
                ? "visitor group '\(groups[0])'" : "visitor groups " + groups.map { "'\($0)'" }.joined(separator: ", ")
            if rows == 0 {
                return "\(who): \(file) column '\(column)' has no rows, but \(planned) visitors are planned to read it"
            }
            let advice =
                order == .unique || order == .sequence
                ? "; with order: \(order.rawValue) each row goes to one visitor only: add rows, lower the visitor count or use order: cycle"
                : ""
            return
                "\(who): \(planned) visitors are planned but \(file) column '\(column)' has only \(rows) rows\(advice)"
        case .tooManyDescriptors(let budget):
            return budget.refusal
        }
    }
}
