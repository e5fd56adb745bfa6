import Foundation
import QueueClientCore

// The scenario model v1 (docs/contract.md), after decoding, defaulting and validation.
// Every duration is a `Duration`, every rate a per-second `Double`, every percentage a fraction.
// The YAML reader produces these values; planning, runners, the room and reports consume them.

package struct Scenario: Sendable, Equatable {
    package var version: Int
    package var name: String
    package var seed: UInt64
    package var clock: ClockKind
    package var target: Target
    package var client: ClientSettings
    package var arrivals: Arrivals
    package var groups: [VisitorGroup]
    /// Present only with `endpoint: embedded` (validation refuses it otherwise); when the
    /// scenario has no `waitingRoom:` block and the endpoint is embedded, the defaults apply.
    package var waitingRoom: WaitingRoomSettings?
    package var run: RunSettings
    package var thresholds: [Threshold]
    /// The `compare:` block: how far `queuesim compare` lets a figure move between two runs.
    package var compareRules: [CompareRule] = []
    /// `queuesim sweep`'s block (docs/sweep.md); `run` ignores it.
    package var sweep: SweepSettings?
    /// Report directory, resolved against the current directory (default `reports/<name>`, the
    /// name made safe for a folder by `ReportFolderName`).
    package var reportsDirectory: String
    /// The scenario file as given on the command line, and the SHA-256 of its bytes (hex).
    package var sourcePath: String
    package var sourceSHA256: String
    /// The `--set KEY=VALUE` overrides applied to the file before it was read, in order.
    package var overrides: [ScenarioOverride] = []
    /// Where parts of the plan are written, so problems found by the preflight (a feeder that
    /// runs out, a plan over the memory budget) point into the file too.
    package var positions = ScenarioPositions()
    /// Valid but probably not meant: each with its position in the file (`validate` and `run`
    /// print them; they never change the exit code).
    package var warnings: [YamlError] = []

    package init(
        version: Int = 1, name: String, seed: UInt64 = 1, clock: ClockKind = .wall, target: Target,
        client: ClientSettings = ClientSettings(), arrivals: Arrivals, groups: [VisitorGroup],
        waitingRoom: WaitingRoomSettings? = WaitingRoomSettings(), run: RunSettings = RunSettings(),
        thresholds: [Threshold] = [], reportsDirectory: String? = nil, sourcePath: String = "",
        sourceSHA256: String = ""
    ) {
        self.version = version
        self.name = name
        self.seed = seed
        self.clock = clock
        self.target = target
        self.client = client
        self.arrivals = arrivals
        self.groups = groups
        self.waitingRoom = waitingRoom
        self.run = run
        self.thresholds = thresholds
        self.reportsDirectory = reportsDirectory ?? "reports/\(ReportFolderName.sanitised(name))"
        self.sourcePath = sourcePath
        self.sourceSHA256 = sourceSHA256
    }
}

package struct ScenarioPositions: Sendable, Equatable {
    /// `arrivals:` (the key), `target:` (the key).
    package var arrivals: YamlMark?
    package var target: YamlMark?
    /// `clock:` (the key), `run:` (the key); nil when the file does not set them.
    package var clock: YamlMark?
    package var run: YamlMark?
    /// Each CSV feeder's `csv:` value, by the resolved path.
    package var feeders: [String: YamlMark] = [:]
    /// `waitingRoom.outflow`'s value, when the file sets it.
    package var outflow: YamlMark?
    /// `run.concurrency`'s value, when the file sets it.
    package var concurrency: YamlMark?

    package init() {}
}

package enum ClockKind: String, Sendable, Equatable, CaseIterable {
    case wall
    case virtual
}

package struct RunSettings: Sendable, Equatable {
    /// Most visitors in flight at once (wall clock).
    package var concurrency: Int
    /// Hard stop; nil: until every visitor has finished.
    package var duration: Duration?
    /// `run.startAt`: a wall-clock run waits for this instant and makes it its second 0, so
    /// the shards of a sharded run line up (`--start-at` overrides it).
    package var startAt: Date?
    /// `run.maxRequestRate`, per second: the most requests the generator sends, in all, whatever
    /// the plan asks (a token bucket, `RequestPacer`). Nil: no cap.
    package var maxRequestRate: Double?

    package init(concurrency: Int = 10_000, duration: Duration? = nil, startAt: Date? = nil) {
        self.concurrency = concurrency
        self.duration = duration
        self.startAt = startAt
    }
}
