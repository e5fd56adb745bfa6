import Foundation
import QueueClientCore

// The scenario model (Scenario.swift): the waiting room a run targets (`target:`).

package enum Endpoint: Sendable, Equatable {
    /// The embedded waiting room, started in-process (wall clock: on 127.0.0.1, a free port).
    case embedded
    /// A base URL (`https://host`, `http://127.0.0.1:8080`) that replaces scheme, host and port
    /// of every request while the `Host` header keeps the real waiting-room host.
    case baseURL(scheme: String, host: String, port: Int?)
}

/// One entry of `target.hosts`: requests whose URL names `host` connect to `endpoint` (a base
/// URL), while their `Host`, SNI and certificate name stay `host`.
package struct HostRoute: Sendable, Equatable {
    /// Lowercased.
    package var host: String
    package var endpoint: Endpoint

    package init(host: String, endpoint: Endpoint) {
        self.host = host.lowercased()
        self.endpoint = endpoint
    }

    /// The host of `host[:port]` or `[v6]:port`, lowercased.
    package static func hostPart(of authority: String) -> String {
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            return String(authority[...close]).lowercased()
        }
        guard let colon = authority.lastIndex(of: ":") else { return authority.lowercased() }
        return String(authority[..<colon]).lowercased()
    }
}

/// The keys a visitor group may override (all but `endpoint`).
package struct TargetOverrides: Sendable, Equatable {
    package var customerId: String?
    package var waitingRoomId: String?
    package var waitingRoomDomain: String?
    package var queuePathPrefix: String?
    package var layoutName: String?
    package var language: String?
    package var protectedApi: String?

    package init(
        customerId: String? = nil, waitingRoomId: String? = nil, waitingRoomDomain: String? = nil,
        queuePathPrefix: String? = nil, layoutName: String? = nil, language: String? = nil,
        protectedApi: String? = nil
    ) {
        self.customerId = customerId
        self.waitingRoomId = waitingRoomId
        self.waitingRoomDomain = waitingRoomDomain
        self.queuePathPrefix = queuePathPrefix
        self.layoutName = layoutName
        self.language = language
        self.protectedApi = protectedApi
    }
}

package struct Target: Sendable, Equatable {
    package var customerId: String
    package var waitingRoomId: String
    package var waitingRoomDomain: String?
    package var queuePathPrefix: String?
    package var layoutName: String?
    package var language: String?
    package var endpoint: Endpoint
    package var protectedApi: String?
    /// Where the protected API's connections go instead of its URL's host (curl's connect-to,
    /// as `endpoint` for the room): a staging address. nil: the URL's own host.
    package var protectedApiEndpoint: Endpoint?
    /// A PEM bundle of certificates trusted besides the system's (a staging endpoint's private
    /// CA), as an absolute path.
    package var caFile: String?
    /// `target.hosts`: where to connect for a host a visitor meets (an off-host redirect, a
    /// queue domain), in the file's order.
    package var hosts: [HostRoute] = []
    /// `target.isTest`: whether the room is a test event (the Admin API's `IsTest`); nil:
    /// not said.
    package var isTest: Bool?

    package init(
        customerId: String, waitingRoomId: String, waitingRoomDomain: String? = nil,
        queuePathPrefix: String? = nil, layoutName: String? = nil, language: String? = nil,
        endpoint: Endpoint = .embedded, protectedApi: String? = nil, protectedApiEndpoint: Endpoint? = nil,
        caFile: String? = nil
    ) {
        self.protectedApiEndpoint = protectedApiEndpoint
        self.caFile = caFile
        self.customerId = customerId
        self.waitingRoomId = waitingRoomId
        self.waitingRoomDomain = waitingRoomDomain
        self.queuePathPrefix = queuePathPrefix
        self.layoutName = layoutName
        self.language = language
        self.endpoint = endpoint
        self.protectedApi = protectedApi
    }

    /// The target as one group sees it.
    package func applying(_ overrides: TargetOverrides) -> Target {
        var copy = self
        if let value = overrides.customerId { copy.customerId = value }
        if let value = overrides.waitingRoomId { copy.waitingRoomId = value }
        if let value = overrides.waitingRoomDomain { copy.waitingRoomDomain = value }
        if let value = overrides.queuePathPrefix { copy.queuePathPrefix = value }
        if let value = overrides.layoutName { copy.layoutName = value }
        if let value = overrides.language { copy.language = value }
        if let value = overrides.protectedApi { copy.protectedApi = value }
        return copy
    }
}
