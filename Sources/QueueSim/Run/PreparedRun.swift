import Foundation
import QueueClientCore

/// A scenario made ready to run: command-line overrides applied, the plan checked end to end
/// before anything starts (so a feeder that would run out is exit 2, not a surprise at minute
/// 40), and everything both runners derive from the scenario computed once.
public struct PreparedRun: Sendable {
    public let scenario: Scenario
    public let options: RunOptions
    public let summary: PlanSummary
    /// Enqueue keys an invite-only embedded room admits (from `waitingRoom.enqueueKeys`).
    public let knownEnqueueKeys: Set<String>
    /// One configuration per group, with everything but the visitor's own data filled in.
    private let groupTemplates: [VisitorConfiguration]

    public init(scenario original: Scenario, options: RunOptions) throws {
        let scenario = options.applied(to: original)
        self.scenario = scenario
        self.options = options
        summary = try VisitorPlan.preflight(
            scenario: scenario, visitors: options.visitors, loadColumn: Self.loadColumn)
        knownEnqueueKeys = try RoomSetup.knownEnqueueKeys(of: scenario)
        groupTemplates = scenario.groups.map { group in
            Self.template(for: group, scenario: scenario)
        }
    }

    public var clock: ClockKind { scenario.clock }

    public var isEmbedded: Bool { scenario.target.endpoint == .embedded }

    /// A fresh plan, in arrival order (the preflight already walked an identical one).
    public func makePlan() throws -> VisitorPlan {
        try VisitorPlan(scenario: scenario, visitors: options.visitors, loadColumn: Self.loadColumn)
    }

    public func visitorConfiguration(for visitor: PlannedVisitor) -> VisitorConfiguration {
        var configuration = groupTemplates[visitor.groupIndex]
        configuration.userId = visitor.userId
        if let key = visitor.enqueueKey { configuration.enqueueKey = key }
        if let token = visitor.enqueueToken { configuration.enqueueToken = token }
        return configuration
    }

    /// The waiting room id a group's visitors are configured with (the event id of their tokens).
    public func waitingRoomId(ofGroup index: Int) -> String {
        groupTemplates[index].waitingRoomId
    }

    public func groupName(of visitor: PlannedVisitor) -> String {
        scenario.groups[visitor.groupIndex].name
    }

    public func flowWord(of visitor: PlannedVisitor) -> String {
        scenario.groups[visitor.groupIndex].flow.rawValue
    }

    public var runDescription: RunDescription {
        RunDescription(scenario: scenario)
    }

    static func loadColumn(_ feeder: CSVFeeder) throws -> [String] {
        try CSVColumnReader.read(path: feeder.path, column: feeder.column)
    }

    private static func template(for group: VisitorGroup, scenario: Scenario) -> VisitorConfiguration {
        let target = scenario.target.applying(group.overrides)
        let client = scenario.client
        var literalKey: String?
        var literalToken: String?
        if case .literal(let key) = group.enqueueKey { literalKey = key }
        if case .literal(let token) = group.enqueueToken { literalToken = token }
        return VisitorConfiguration(
            customerId: target.customerId, waitingRoomId: target.waitingRoomId,
            waitingRoomDomain: target.waitingRoomDomain, queuePathPrefix: target.queuePathPrefix,
            layoutName: target.layoutName, language: target.language, enqueueKey: literalKey,
            enqueueToken: literalToken, userId: "", userAgent: client.userAgent, sdkVersion: client.sdkVersion,
            requestTimeout: client.requestTimeout, pollInterval: client.pollInterval, maxWait: client.maxWait,
            maxRestarts: client.maxRestarts, flow: VisitorFlowKind(group.flow), protectedApiURL: target.protectedApi)
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
