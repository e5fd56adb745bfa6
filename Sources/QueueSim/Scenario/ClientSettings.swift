import QueueClientCore

/// `client:`. `platform` is every group's unless the group names its own; `sdkVersion`,
/// `userAgent`, `requestTimeout` and `queuePageRetry` left out (nil) are each group
/// platform's own (`resolved(for:)`).
package struct ClientSettings: Sendable, Equatable {
    package var platform: ClientPlatform
    /// `platform: { ios: 60%, android: 40% }`: every group without a platform of its own mixes
    /// platforms so (nil: they run as `platform`, which is then the mix's first).
    package var platformMix: PlatformMix?
    package var sdkVersion: String?
    package var userAgent: String?
    package var requestTimeout: Duration?
    package var queuePageRetry: QueuePageRetry?
    package var pollInterval: Duration
    package var maxWait: Duration
    package var maxRestarts: Int
    /// Whose connections a visitor's requests ride (a group may choose its own).
    package var connections: ConnectionModel = .device
    /// Loopback source addresses visitors connect from, in turn (nil: the system's choice).
    package var sourceAddresses: SourceAddressRange?
    /// `client.http`: which HTTP version the visitors' connections speak on the wall clock.
    package var http: HTTPVersionChoice = .auto

    package init(
        platform: ClientPlatform = .ios, sdkVersion: String? = nil, userAgent: String? = nil,
        requestTimeout: Duration? = nil, queuePageRetry: QueuePageRetry? = nil, pollInterval: Duration = .seconds(2),
        maxWait: Duration = .seconds(30 * 60), maxRestarts: Int = 1
    ) {
        self.platform = platform
        self.sdkVersion = sdkVersion
        self.userAgent = userAgent
        self.requestTimeout = requestTimeout
        self.queuePageRetry = queuePageRetry
        self.pollInterval = pollInterval
        self.maxWait = maxWait
        self.maxRestarts = maxRestarts
    }

    /// The platforms of a group that names none: the mix, or `platform`.
    package var platforms: PlatformMix { platformMix ?? .only(platform) }

    /// The settings a group with `groupPlatform` (nil: the client's) runs with, every value
    /// filled in.
    package func resolved(for groupPlatform: ClientPlatform?) -> ResolvedClientSettings {
        let platform = groupPlatform ?? self.platform
        return ResolvedClientSettings(
            platform: platform, sdkVersion: sdkVersion ?? platform.defaultSDKVersion,
            userAgent: userAgent ?? platform.defaultUserAgent,
            requestTimeout: requestTimeout ?? platform.defaultRequestTimeout,
            queuePageRetry: queuePageRetry ?? platform.queuePageRetry, pollInterval: pollInterval, maxWait: maxWait,
            maxRestarts: maxRestarts)
    }
}

/// `client.http: auto | h1 | h2`: the HTTP version a wall-clock run's connections speak.
package enum HTTPVersionChoice: String, Sendable, Equatable, CaseIterable {
    /// As each phone's stack would: ALPN offered as the stack offers it, h2 when the server
    /// picks it, HTTP/1.1 otherwise.
    case auto
    /// HTTP/1.1 only: no ALPN offered.
    case h1
    /// HTTP/2 only on TLS: ALPN offers `h2` alone, and a server that does not pick it fails
    /// the connection (`LiveTLSConnection`).
    case h2
}

/// `ClientSettings` for one platform, nothing left to choose.
package struct ResolvedClientSettings: Sendable, Equatable {
    package var platform: ClientPlatform
    package var sdkVersion: String
    package var userAgent: String
    package var requestTimeout: Duration
    package var queuePageRetry: QueuePageRetry
    package var pollInterval: Duration
    package var maxWait: Duration
    package var maxRestarts: Int
}

extension Scenario {
    /// The platforms the groups run as (a mix's each), in group order, each once.
    package var platforms: [ClientPlatform] {
        var seen: [ClientPlatform] = []
        for group in groups {
            for share in group.platforms(client: client).shares where !seen.contains(share.platform) {
                seen.append(share.platform)
            }
        }
        return seen
    }

    /// Whether some group mixes platforms: then a visitor's group no longer says its platform,
    /// and visitors.csv gains a `platform` column.
    package var mixesPlatforms: Bool {
        groups.contains { $0.platforms(client: client).isMixed }
    }

    /// The longest request timeout any group runs with.
    package var longestRequestTimeout: Duration {
        platforms.map { client.resolved(for: $0).requestTimeout }.max() ?? client.resolved(for: nil).requestTimeout
    }
}
