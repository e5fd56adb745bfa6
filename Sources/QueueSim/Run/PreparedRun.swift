import Foundation
import QueueClientCore

/// A scenario made ready to run: command-line overrides applied, the plan checked end to end
/// before anything starts (so a feeder that would run out is exit 2, not a surprise at minute
/// 40), and everything both runners derive from the scenario computed once.
package struct PreparedRun: Sendable {
    package let scenario: Scenario
    package let options: RunOptions
    package let summary: PlanSummary
    /// What the run should need at most; checked against `--max-memory` before anything runs.
    package let memoryEstimate: RunMemoryEstimate
    /// Enqueue keys an invite-only embedded room admits (from `waitingRoom.enqueueKeys`).
    package let knownEnqueueKeys: Set<String>
    /// One configuration per group and platform of its mix (`[group][platformIndex]`), with
    /// everything but the visitor's own data filled in.
    var groupTemplates: [[VisitorConfiguration]] { templates.value }
    /// Made on a thread of their own while the run's description and pending file are written
    /// (a group's template costs microseconds, 2,000 of them milliseconds: issue 51).
    private let templates: BackgroundValue<[[VisitorConfiguration]]>
    /// Each group's platforms, by group index: a row says its visitor's platform.
    package let groupPlatforms: [PlatformMix]
    /// Whether a group mixes platforms (rows then carry a platform); worked out once, as the
    /// row writer asks for every row.
    package let mixesPlatforms: Bool
    /// Whether some group has `comeback`: visitors.csv then ends with a `comebacks` column.
    package var hasComebacks: Bool { scenario.groups.contains { $0.behaviour.comeback != nil } }
    /// Where this run writes its report files (`--out`'s run folder, or the scenario's
    /// `reports:`): a parameter of the run, not written back into the scenario.
    package let reportsDirectory: String
    /// Each group's name and flow word, by group index: every report row has them, and
    /// reading them through `scenario.groups[i]` copied (and released) the whole group.
    package let groupNames: [String]
    package let flowWords: [String]
    /// What the room at a base URL said of its second 0 and configuration before the run
    /// (`RoomStartCheck`, set by `run`): recorded in `configuration.room_check`, and the room's
    /// settings in `configuration.room`, which `--endpoint` leaves empty otherwise.
    package var roomCheck: RoomStartCheck?

    package init(scenario original: Scenario, options: RunOptions) throws {
        do {
            try self.init(checking: original, options: options)
        } catch {
            throw PreflightFailure(reason: error, at: PreflightFailure.position(of: error, in: original))
        }
    }

    private init(checking original: Scenario, options: RunOptions) throws {
        var scenario = options.applied(to: original)
        self.options = options
        reportsDirectory = options.outputDirectory ?? scenario.reportsDirectory
        if scenario.clock == .virtual, scenario.target.endpoint != .embedded {
            throw PlanError.virtualClockNeedsEmbeddedRoom
        }
        if scenario.clock == .virtual, scenario.run.startAt != nil { throw PlanError.startAtNeedsWallClock }
        let shard = options.shard
        if !shard.isWhole {
            if scenario.clock == .virtual { throw PlanError.shardedVirtualClock(shards: shard.count) }
            if scenario.target.endpoint == .embedded { throw PlanError.shardedEmbeddedRoom(shards: shard.count) }
            if scenario.run.concurrency < shard.count {
                throw PlanError.moreShardsThanConcurrency(shards: shard.count, concurrency: scenario.run.concurrency)
            }
            // `run.concurrency` is the whole run's: each shard holds its share, as each event
            // loop of one process does.
            scenario.run.concurrency = WallClockRunner.split(scenario.run.concurrency, into: shard.count)[shard.index]
        }
        self.scenario = scenario
        if let visitors = options.visitors, !(0...ScenarioLimits.mostVisitors).contains(visitors) {
            throw PlanError.invalidVisitorCount(visitors)
        }
        var window = RunMemoryEstimate.longestVisit(scenario.client, requestTimeout: scenario.longestRequestTimeout)
        if let hardStop = scenario.run.duration { window = min(window, hardStop) }
        let budget = options.maxMemory ?? .machineDefault()
        let feederBytes = Self.feeders(of: scenario).reduce(0) { $0 + (RegularFileReader.size(path: $1.path) ?? 0) }
        // A plan that cannot fit is refused before the preflight walks it (100 million visitors
        // take a while to walk).
        let schedule = try ArrivalSchedule(scenario.arrivals, seed: scenario.seed, visitors: options.visitors)
        let floorPeak = schedule.inFlightFloor(window: window)
        try RunMemoryEstimate(
            visitors: Int(min(schedule.expectedCount, Double(ScenarioLimits.mostVisitors))),
            peakInFlight: scenario.clock == .wall ? min(floorPeak, scenario.run.concurrency) : floorPeak,
            feederFileBytes: feederBytes, clock: scenario.clock, isFloor: true,
            leanVisitors: RunMemoryEstimate.carriesLittle(scenario)
        ).check(against: budget)
        var summary = try VisitorPlan.preflight(
            scenario: scenario, visitors: options.visitors, inFlightWindow: window, shard: options.shard,
            loadColumn: Self.loadColumn)
        if scenario.clock == .wall {
            summary.peakInFlight = min(summary.peakInFlight, scenario.run.concurrency)
        }
        self.summary = summary
        if scenario.clock == .wall {
            let descriptors = DescriptorBudget(
                scenario: scenario, peakInFlight: summary.peakInFlight, limit: DescriptorLimit.available(),
                arrivalScale: summary.scale, shards: options.shard.count)
            if !descriptors.fits { throw PlanError.tooManyDescriptors(descriptors) }
        }
        var estimate = RunMemoryEstimate(
            visitors: summary.visitorCount, peakInFlight: summary.peakInFlight, feederFileBytes: feederBytes,
            clock: scenario.clock, leanVisitors: RunMemoryEstimate.carriesLittle(scenario))
        // Visitors who start within one second of each other (a burst) peak at the full size in
        // flight, lean or not (measured for the sweep's estimate, docs/sweep.md "Memory").
        estimate.startingTogether = schedule.inFlightFloor(window: .seconds(1))
        estimate.groups = scenario.groups.count
        memoryEstimate = estimate
        try memoryEstimate.check(against: budget)
        knownEnqueueKeys = try RoomSetup.knownEnqueueKeys(of: scenario)
        // Started after the last check that can refuse the run.
        templates = BackgroundValue { [scenario] in Self.templates(of: scenario) }
        groupPlatforms = scenario.groups.map { $0.platforms(client: scenario.client) }
        mixesPlatforms = scenario.mixesPlatforms
        groupNames = scenario.groups.map(\.name)
        flowWords = scenario.groups.map(\.flow.rawValue)
    }

    package var clock: ClockKind { scenario.clock }

    package var isEmbedded: Bool { scenario.target.endpoint == .embedded }

    /// A fresh plan, in arrival order (the preflight already walked an identical one).
    package func makePlan() throws -> VisitorPlan {
        try VisitorPlan(
            scenario: scenario, visitors: options.visitors, shard: options.shard, loadColumn: Self.loadColumn)
    }

    package func visitorConfiguration(for visitor: PlannedVisitor) -> VisitorConfiguration {
        visitor.configuration(from: groupTemplates)
    }

    /// A fresh set of group templates (new shared boxes, copies of their strings), for a
    /// thread that makes visitors of its own: two cores retaining the same box slow each
    /// other down.
    func makeGroupTemplates() -> [[VisitorConfiguration]] {
        Self.templates(of: scenario, copyingStrings: true)
    }

    /// The waiting room id a group's visitors are configured with (the event id of their tokens).
    package func waitingRoomId(ofGroup index: Int) -> String {
        groupTemplates[index][0].group.waitingRoomId
    }

    /// The platform visitor `index` of group `group` runs as: drawn again from the seed (the
    /// plan's draw), so a row needs nothing carried through the engine.
    package func platform(ofVisitor index: Int, group: Int) -> ClientPlatform {
        RowContext.platform(ofVisitor: index, in: groupPlatforms[group], seed: scenario.seed)
    }

    package func groupName(of visitor: PlannedVisitor) -> String {
        groupNames[visitor.groupIndex]
    }

    package func flowWord(of visitor: PlannedVisitor) -> String {
        flowWords[visitor.groupIndex]
    }

    package var runDescription: RunDescription {
        var description = RunDescription(scenario: scenario, runId: options.runId)
        description.commandLine = options.commandLine.map(SecretRedaction.redact)
        description.overrides = options.overrideDescriptions
        description.configuration = RunConfiguration(
            scenario: scenario, overrides: options.overrideDescriptions, plannedVisitors: summary.visitorCount)
        description.startAt = scenario.run.startAt
        if let roomCheck, let status = roomCheck.status, let room = status.room {
            description.configuration?.room = room
        }
        description.configuration?.roomCheck = roomCheck?.entry(isShard: !options.shard.isWhole)
        if !options.shard.isWhole {
            description.shard = ShardIdentity(
                shard: options.shard, visitorsOverride: options.visitors,
                plannedVisitors: summary.plannedVisitorCount, shardVisitors: summary.visitorCount)
        }
        return description
    }

    static func loadColumn(_ feeder: CSVFeeder) throws -> [String] {
        // The validator checked the size too; the file may have grown since.
        if let problem = ScenarioLimits.feederSizeProblem(path: feeder.path, named: feeder.path) {
            throw CSVColumnReader.Failure.unreadable(path: feeder.path, reason: problem)
        }
        return try CSVColumnReader.read(path: feeder.path, column: feeder.column)
    }

    /// Every distinct feeder file the run reads.
    static func feeders(of scenario: Scenario) -> [CSVFeeder] {
        var feeders: [CSVFeeder] = []
        for group in scenario.groups {
            for value in [group.enqueueKey, group.enqueueToken, group.inviteCode] {
                if case .feeder(let feeder) = value { feeders.append(feeder) }
            }
        }
        if let keys = scenario.waitingRoom?.enqueueKeys { feeders.append(keys) }
        var seen = Set<String>()
        return feeders.filter { seen.insert($0.path).inserted }
    }

    /// For each group, one template per platform of its mix, in the mix's order.
    private static func templates(of scenario: Scenario, copyingStrings: Bool = false) -> [[VisitorConfiguration]] {
        // Groups whose visitors are alike (they differ in name, weight or arrivals only) share
        // one template: a template's headers, address and enqueue members are made once, and
        // made 2,000 times for 2,000 such groups they held up the start of the run (issue 51).
        // A template holds nothing of its group's own (no name, no counter): shared, its
        // visitors are the same visitors.
        var made: [TemplateKey: VisitorConfiguration] = [:]
        return scenario.groups.map { group in
            group.platforms(client: scenario.client).shares.map { share in
                let key = templateKey(
                    for: group, platform: share.platform, scenario: scenario, copyingStrings: copyingStrings)
                if let template = made[key] { return template }
                let template = VisitorConfiguration(
                    group: key.settings, userId: "", enqueueKey: key.enqueueKey, enqueueToken: key.enqueueToken,
                    inviteCode: key.inviteCode,
                    // The plan's ids (`PlannedVisitor.userId`): the same seed, the platform's shape.
                    userIds: SeededUserIds(seed: scenario.seed, android: key.android))
                made[key] = template
                return template
            }
        }
    }

    /// What a template is made of: two groups with equal keys have equal templates.
    private struct TemplateKey: Hashable {
        var settings: VisitorGroupSettings
        var enqueueKey: String?
        var enqueueToken: String?
        var inviteCode: String?
        var android: Bool
    }

    private static func templateKey(
        for group: VisitorGroup, platform: ClientPlatform, scenario: Scenario, copyingStrings: Bool
    ) -> TemplateKey {
        // A copy shares no storage (and so no reference count) with the original.
        let own: (String) -> String = copyingStrings ? { String(decoding: Array($0.utf8), as: UTF8.self) } : { $0 }
        let target = scenario.target.applying(group.overrides)
        let client = scenario.client.resolved(for: platform)
        var literalKey: String?
        var literalToken: String?
        var literalCode: String?
        if case .literal(let key) = group.enqueueKey { literalKey = own(key) }
        if case .literal(let token) = group.enqueueToken { literalToken = own(token) }
        if case .literal(let code) = group.inviteCode { literalCode = own(code) }
        var settings = VisitorGroupSettings(
            customerId: own(target.customerId), waitingRoomId: own(target.waitingRoomId),
            waitingRoomDomain: target.waitingRoomDomain.map(own), queuePathPrefix: target.queuePathPrefix.map(own),
            layoutName: target.layoutName.map(own), language: target.language.map(own),
            userAgent: own(client.userAgent), sdkVersion: own(client.sdkVersion), requestTimeout: client.requestTimeout,
            pollInterval: client.pollInterval, maxWait: client.maxWait, maxRestarts: client.maxRestarts,
            flow: VisitorFlowKind(group.flow),
            protectedApiURL: (target.protectedApi ?? RoomSetup.builtInProtectedAPIURL(for: scenario)).map(own),
            platform: client.platform, queuePageRetry: client.queuePageRetry)
        settings.requestTimeoutIsIdle = scenario.client.requestTimeout == nil
        settings.apiUserAgent = group.apiUserAgent.map(own)
        return TemplateKey(
            settings: settings, enqueueKey: literalKey, enqueueToken: literalToken, inviteCode: literalCode,
            android: platform == .android)
    }
}

extension VisitorFlowKind {
    init(_ flow: VisitorFlow) {
        switch flow {
        case .run: self = .run
        case .tryPass: self = .tryPass
        case .protectedApi: self = .protectedApi
        }
    }
}
