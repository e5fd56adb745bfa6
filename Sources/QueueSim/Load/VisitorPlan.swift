import QueueClientCore

/// One virtual visitor as planned before it runs: who it is, when it means to arrive, which
/// group it belongs to and the data it carries.
package struct PlannedVisitor: Sendable, Equatable {
    /// 0-based position in arrival order (the `visitor` column of visitors.csv).
    package var index: Int
    /// The intended arrival (latency is also measured from here, against coordinated omission).
    package var arrival: RunInstant
    /// Position of the visitor's group in `Scenario.groups`.
    package var groupIndex: Int
    /// Stable for a seed and index, shaped like the group platform's device id (see
    /// `VisitorUserId`); made when asked, as the engines ask the configuration (`numbered`).
    package var userId: String { VisitorUserId.make(seed: userIdSeed, visitorIndex: index, android: android) }
    private let userIdSeed: UInt64
    private let android: Bool
    package var enqueueKey: String?
    package var enqueueToken: String?
    /// Android's invite code (`inviteCode` of the group).
    package var inviteCode: String?
    /// The visitor's platform, as a position in its group's `PlatformMix.shares` (0 unless the
    /// group mixes platforms): which of the group's configurations it runs with.
    package var platformIndex = 0

    package init(
        index: Int, arrival: RunInstant, groupIndex: Int, seed: UInt64, android: Bool, enqueueKey: String?,
        enqueueToken: String?, inviteCode: String? = nil
    ) {
        self.index = index
        self.arrival = arrival
        self.groupIndex = groupIndex
        self.userIdSeed = seed
        self.android = android
        self.enqueueKey = enqueueKey
        self.enqueueToken = enqueueToken
        self.inviteCode = inviteCode
    }
}

/// The visitors of a scenario, produced lazily in arrival order and fully determined by the
/// scenario (seed included), the optional `--visitors` count and the feeder files.
///
/// Each visitor's group (`.groupChoice`), platform in a mixed group (`.platformChoice`) and
/// user id (`.userId`) derive from its index alone; arrivals and feeder rows come from
/// sequential seeded streams walked in arrival order by this one value. Drivers pull visitors
/// from it in one place (a dispatcher, or the virtual-time loop) and hand them to tasks; how
/// those tasks are scheduled cannot change any visitor.
package struct VisitorPlan: Sendable {
    package let schedule: ArrivalSchedule
    private let groupPicker: GroupPicker
    private var feeders: FeederSet
    private var arrivals: ArrivalSchedule.Iterator
    private let seed: UInt64
    /// Per group: the platforms its visitors run as (Android's ids are ANDROID_ID-shaped).
    private let groupPlatforms: [PlatformMix]
    /// This process's share of the plan (`--shard K/N`); the whole plan by default.
    package let shard: PlanShard
    private var nextIndex = 0
    /// A plan that failed stays failed: every later call reports the same error.
    private var failure: PlanError?

    /// - Parameters:
    ///   - visitors: `--visitors N` (see `ArrivalSchedule.init`); nil keeps the scenario's plan.
    ///   - shard: `--shard K/N`: `next` hands out only this shard's visitors, but the whole plan
    ///     is still walked, so every visitor is the one a single process would run.
    ///   - loadColumn: reads one column of a CSV feeder (wired to the scenario's CSV reader;
    ///     tests pass arrays). Called during `init` only, once per file and column.
    package init(
        scenario: Scenario, visitors: Int? = nil, shard: PlanShard = .whole,
        loadColumn: (CSVFeeder) throws -> [String]
    ) throws {
        seed = scenario.seed
        groupPlatforms = scenario.groups.map { $0.platforms(client: scenario.client) }
        self.shard = shard
        schedule = try ArrivalSchedule(scenario.arrivals, seed: scenario.seed, visitors: visitors)
        groupPicker = try GroupPicker(groups: scenario.groups, seed: scenario.seed)
        feeders = try FeederSet(groups: scenario.groups, seed: scenario.seed, loadColumn: loadColumn)
        arrivals = schedule.makeIterator()
    }

    /// The next visitor in arrival order, nil once the plan is done. Throws
    /// `PlanError.feederExhausted` when a visitor needs a row a feeder no longer has
    /// (`preflight` finds that before the run).
    package mutating func next() throws(PlanError) -> PlannedVisitor? {
        try next(ownedBy: 0, of: 1)
    }

    /// The next visitor of this plan's process shard (`shard`) whose position among that
    /// shard's visitors is `loop` modulo `loops` (the run's event loops split the process's
    /// share; without a process shard the position is the visitor index). In arrival order.
    /// Every other visitor is still walked (its arrival, group and feeder rows are drawn, so
    /// `unique` rows go exactly where a whole plan sends them) but no user id is made for it.
    package mutating func next(ownedBy loop: Int, of loops: Int) throws(PlanError) -> PlannedVisitor? {
        if let failure { throw failure }
        while let arrival = arrivals.next() {
            let index = nextIndex
            nextIndex += 1
            let group = groupPicker.group(forVisitor: index)
            let values: VisitorValues
            do throws(PlanError) {
                values = try feeders.values(forGroup: group, visitorIndex: index)
            } catch {
                failure = error
                throw error
            }
            guard shard.owns(index) else { continue }
            guard loops <= 1 || shard.localPosition(of: index) % loops == loop else { continue }
            let platforms = groupPlatforms[group]
            let platformIndex = platforms.shareIndex(forVisitor: index, seed: seed)
            let android = platforms.shares[platformIndex].platform == .android
            var visitor = PlannedVisitor(
                index: index, arrival: arrival, groupIndex: group,
                seed: seed, android: android,
                enqueueKey: values.enqueueKey, enqueueToken: values.enqueueToken, inviteCode: values.inviteCode)
            visitor.platformIndex = platformIndex
            return visitor
        }
        return nil
    }
}

/// What a plan holds, known before the run starts.
package struct PlanSummary: Sendable, Equatable {
    /// The visitors this process runs: the whole plan's, or its shard's share.
    package var visitorCount: Int
    /// The whole plan's visitors (equal to `visitorCount` unless the run is sharded).
    package var plannedVisitorCount: Int = 0
    /// The whole plan's, indexed like `Scenario.groups`.
    package var visitorsPerGroup: [Int]
    /// The end of the last arrival phase.
    package var span: Duration
    package var firstArrival: RunInstant?
    package var lastArrival: RunInstant?
    /// The factor `--visitors` applied to rates and bursts (1 without it).
    package var scale: Double
    /// The most visitors whose arrivals fall within one `inFlightWindow` of each other: an
    /// upper bound on the visitors in flight at once (the whole count without a window).
    package var peakInFlight: Int = 0
}

extension VisitorPlan {
    /// Walks the whole plan once, before the run, without keeping it: counts visitors per
    /// group and checks every feeder has rows for them. A feeder that would run out is
    /// `PlanError.feederTooShort` (naming the groups, file, column, rows and visitors planned),
    /// so the command line can exit 2 before anything starts. O(visitors) time, O(groups) memory.
    ///
    /// `inFlightWindow` is the longest a visitor can stay in flight: a second iterator trails
    /// the first by that much, so the gap between them is the most visitors that can be in
    /// flight together (for the memory estimate), without storing any arrival.
    ///
    /// With a `shard`, feeders are checked for the whole plan (every shard draws from them in
    /// the same order), while the count and the in-flight peak are the shard's.
    package static func preflight(
        scenario: Scenario, visitors: Int? = nil, inFlightWindow: Duration? = nil, shard: PlanShard = .whole,
        loadColumn: (CSVFeeder) throws -> [String]
    ) throws -> PlanSummary {
        let schedule = try ArrivalSchedule(scenario.arrivals, seed: scenario.seed, visitors: visitors)
        let groupPicker = try GroupPicker(groups: scenario.groups, seed: scenario.seed)
        let feeders = try FeederSet(groups: scenario.groups, seed: scenario.seed, loadColumn: loadColumn)
        var perGroup = Array(repeating: 0, count: scenario.groups.count)
        var count = 0
        var first: RunInstant?
        var last: RunInstant?
        var trailing = schedule.makeIterator()
        var trailingArrival = trailing.next()
        var trailingCount = 0
        var peakInFlight = 0
        for arrival in schedule {
            perGroup[groupPicker.group(forVisitor: count)] += 1
            count += 1
            if first == nil { first = arrival }
            last = arrival
            if let window = inFlightWindow {
                while let gone = trailingArrival, gone + window <= arrival {
                    trailingArrival = trailing.next()
                    trailingCount += 1
                }
                peakInFlight = max(peakInFlight, count - trailingCount)
            }
        }
        try feeders.checkCapacity(visitorsPerGroup: perGroup)
        let own = shard.share(of: count)
        // Interleaved shards carry an even share of every window, so of the peak too (rounded up).
        let ownPeak = shard.isWhole ? peakInFlight : (peakInFlight + shard.count - 1) / shard.count
        var summary = PlanSummary(
            visitorCount: own, visitorsPerGroup: perGroup, span: schedule.span, firstArrival: first,
            lastArrival: last, scale: schedule.scale, peakInFlight: inFlightWindow == nil ? own : ownPeak)
        summary.plannedVisitorCount = count
        return summary
    }
}
