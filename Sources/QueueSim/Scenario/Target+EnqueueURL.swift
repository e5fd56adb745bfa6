import QueueClientCore

/// The enqueue URL the client calls for a target, for summaries (`queuesim validate`). It is the
/// client core's own `WaitingRoomAddress`, so the summary can never describe another URL than
/// the one the visitors request.
extension Target {
    package var enqueueURLDescription: String { roomAddress.enqueueURL }

    /// The waiting room as the client core addresses it (its host, its enqueue path).
    package var roomAddress: WaitingRoomAddress {
        WaitingRoomAddress(
            customerId: customerId, waitingRoomId: waitingRoomId, waitingRoomDomain: waitingRoomDomain,
            queuePathPrefix: queuePathPrefix)
    }
}

extension Scenario {
    /// The Queue-it host a wall-clock run's room requests would connect to when it is not a
    /// test event: `endpoint` (or the room host's `hosts` entry) on `queue-it.net` but not its
    /// `test.queue-it.net`, without `target.isTest: true`. Nil otherwise (the embedded room, a
    /// staging host, a test event, the virtual clock).
    package var productionQueueItHost: String? {
        guard clock == .wall, target.isTest != true else { return nil }
        let roomHost = HostRoute.hostPart(of: target.roomAddress.host)
        var connectTo: Endpoint = target.endpoint
        if let entry = target.hosts.first(where: { $0.host == roomHost }) { connectTo = entry.endpoint }
        guard case .baseURL(_, let host, _) = connectTo else { return nil }
        let lowered = host.lowercased()
        guard lowered == "queue-it.net" || lowered.hasSuffix(".queue-it.net"),
            !lowered.hasSuffix(".test.queue-it.net")
        else { return nil }
        return lowered
    }
}
