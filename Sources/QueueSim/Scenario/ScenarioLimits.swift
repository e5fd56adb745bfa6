/// The ranges every scenario number must fall in (docs/scenarios.md, "Limits").
///
/// Each limit is far beyond any launch rehearsal and far inside what the code carries: times
/// are Int64 nanoseconds (292 years), visitor counts are Int, and the plan, the room and the
/// reports hold a few bytes per visitor. A value outside is refused by the validator at its
/// position, so no later arithmetic can overflow or trap.
package enum ScenarioLimits {
    /// Any duration in a scenario (and `--duration`), and the whole arrival plan: a year
    /// (366 days, so a calendar year always fits).
    package static let longestDuration: Duration = .seconds(366 * 24 * 3600)
    package static let longestDurationText = "366 days (8784h)"

    /// Arrival rates (`rate`, `rampTo`) and the room's `outflow`, per second. A million a
    /// second is fifty times the busiest launch we know of.
    package static let highestRate = 1_000_000.0
    package static let highestRateText = "1000000 per second"

    /// Visitors in one run: a burst, `maxVisitors`, the plan's total and `--visitors`.
    package static let mostVisitors = 100_000_000
    /// `arrivals.scale`: far past any crowd a plan could hold, low enough that no count overflows.
    package static let largestArrivalScale = 1_000_000.0
    package static let mostVisitorsText = "100000000"
    /// A windowed threshold's `minVisitors`.
    package static let mostVisitorsInAWindow = 1_000_000

    /// `client.maxRestarts` and `run.concurrency`.
    package static let mostRestarts = 1000
    package static let mostConcurrency = 10_000_000

    /// `name` and a group's `name`, in Unicode code points (a grapheme can hold any number of
    /// them): names are shown on one line of the summary, in every CSV row and in `run.json`,
    /// and 200 is more than any name a person reads.
    package static let longestName = 200

    /// A group's `weight`: shares are relative, so anything past this is a typo.
    package static let largestWeight = 1_000_000_000.0

    /// A CSV feeder file: 512 MiB holds ten million enqueue tokens. A bigger file is refused by
    /// its size before it is read, since the run keeps its column in memory.
    package static let largestFeederBytes = 512 << 20
    package static let largestFeederText = "512 MiB"

    /// The size check for a feeder file, in words, or nil when the file is within the limit
    /// (or unreadable: reading it says why).
    static func feederSizeProblem(path: String, named name: String) -> String? {
        guard let size = RegularFileReader.size(path: path), size > largestFeederBytes else { return nil }
        return
            "\(name) is \(MemoryBudget.describe(size)); feeder files may be at most \(largestFeederText) (split it, or feed fewer rows)"
    }

    /// The smallest outflow: one release a year, so the release interval is a finite number
    /// of nanoseconds. (Not one per `run.duration`: an outflow that lets nobody through before
    /// the hard stop is a fair rehearsal of "everyone still queued".)
    package static let lowestOutflow = 1 / longestDuration.secondsDouble
}
