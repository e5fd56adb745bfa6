import QueueClientCore

/// The embedded room a scenario describes: its waiting room (the target's customer and room),
/// the scenario's room settings, and the enqueue keys an invite-only room admits.
package enum RoomSetup {
    /// The keys of `waitingRoom.enqueueKeys` (none without it).
    package static func knownEnqueueKeys(of scenario: Scenario) throws -> Set<String> {
        Set(try scenario.waitingRoom?.enqueueKeys.map(PreparedRun.loadColumn) ?? [])
    }

    /// The URL `flow: protectedApi` visitors call when the scenario names no `protectedApi`
    /// and the room is embedded: the room's own `/api/protected`, on the host of its default
    /// `EventTargetUrl` (the customer's origin). The room matches that path on any host, and
    /// every request of a run reaches the room whatever its host (connect-to), so the host only
    /// scopes the visitor's cookies.
    package static func builtInProtectedAPIURL(for scenario: Scenario) -> String? {
        guard scenario.target.endpoint == .embedded else { return nil }
        return "https://\(scenario.target.customerId).example\(WaitingRoomServer.protectedAPIPath)"
    }

    package static func configuration(
        for scenario: Scenario, epochUnixSeconds: Int64, knownEnqueueKeys keys: Set<String>
    ) -> WaitingRoomConfiguration {
        let target = scenario.target
        let settings = scenario.waitingRoom ?? WaitingRoomSettings()
        var configuration = WaitingRoomConfiguration(
            customerId: target.customerId, waitingRoomId: target.waitingRoomId,
            waitingRoomDomain: target.waitingRoomDomain, queuePathPrefix: target.queuePathPrefix,
            settings: settings, seed: scenario.seed, knownEnqueueKeys: keys, epochUnixSeconds: epochUnixSeconds)
        // Groups that reach the room through their own proxy domain are entrances to the same
        // room. A group naming another customer or room is not: the room answers it 404, as a
        // misconfigured app would see.
        configuration.additionalEntrances = scenario.groups.map { group in
            let groupTarget = target.applying(group.overrides)
            return RoomEntrance(
                waitingRoomDomain: groupTarget.waitingRoomDomain, queuePathPrefix: groupTarget.queuePathPrefix)
        }
        return configuration
    }

    static func configuration(for run: PreparedRun, epochUnixSeconds: Int64) -> WaitingRoomConfiguration {
        configuration(
            for: run.scenario, epochUnixSeconds: epochUnixSeconds, knownEnqueueKeys: run.knownEnqueueKeys)
    }
}
