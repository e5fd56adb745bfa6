import Foundation
import QueueClientCore

// The scenario model (Scenario.swift): what each visitor carries (`visitors:`).

package enum VisitorFlow: String, Sendable, Equatable, CaseIterable {
    case run
    case tryPass
    case protectedApi
}

package enum FeederOrder: String, Sendable, Equatable, CaseIterable {
    /// Each row to at most one visitor, rows taken in a seeded shuffled order; running out is an error.
    case unique
    /// Each row to at most one visitor, rows taken in file order; running out is an error.
    case sequence
    /// A seeded random row per visitor (rows may repeat).
    case random
    /// Rows in file order, starting over after the last one.
    case cycle
}

/// `{ csv: FILE, column: NAME, order: … }`; `path` is resolved against the scenario's folder.
package struct CSVFeeder: Sendable, Equatable {
    package var path: String
    package var column: String
    package var order: FeederOrder

    package init(path: String, column: String, order: FeederOrder = .sequence) {
        self.path = path
        self.column = column
        self.order = order
    }
}

/// An enqueue key or token: a literal, or a column of a CSV file.
package enum VisitorValue: Sendable, Equatable {
    case literal(String)
    case feeder(CSVFeeder)
}

package struct VisitorGroup: Sendable, Equatable {
    package var name: String
    package var weight: Double
    package var flow: VisitorFlow
    package var enqueueKey: VisitorValue?
    package var enqueueToken: VisitorValue?
    /// Android's invite code, sent as `code=` on the first queue URL.
    package var inviteCode: VisitorValue?
    /// nil: `client.platform` (one, or a mix), or the platforms of `platformMix`.
    package var platform: ClientPlatform?
    /// `platform: { ios: 60%, android: 40% }`: each visitor's platform is drawn by these shares
    /// (nil: every visitor runs as `platform`).
    package var platformMix: PlatformMix?
    package var overrides: TargetOverrides
    /// nil: `client.connections`.
    package var connections: ConnectionModel?
    /// `apiUserAgent`: the app's own `User-Agent` on its protected-API calls (nil: its HTTP
    /// stack's, CFNetwork's on iOS, `okhttp/4.9.2` on Android).
    package var apiUserAgent: String?
    /// `patience`, `comeback`, `afterPass` (all nil unless written).
    package var behaviour = VisitorBehaviour()

    package init(
        name: String, weight: Double = 1, flow: VisitorFlow = .run, enqueueKey: VisitorValue? = nil,
        enqueueToken: VisitorValue? = nil, overrides: TargetOverrides = TargetOverrides(),
        inviteCode: VisitorValue? = nil, platform: ClientPlatform? = nil
    ) {
        self.name = name
        self.weight = weight
        self.flow = flow
        self.enqueueKey = enqueueKey
        self.enqueueToken = enqueueToken
        self.inviteCode = inviteCode
        self.platform = platform
        self.overrides = overrides
    }
}

extension VisitorGroup {
    /// The platforms this group's visitors run as, with their shares: the group's mix or
    /// platform, else `client.platform` (a mix too, perhaps).
    package func platforms(client: ClientSettings) -> PlatformMix {
        platformMix ?? platform.map(PlatformMix.only) ?? client.platforms
    }
}
