import QueueClientCore

/// The enqueue URL the client calls for a target, for summaries (`queuesim validate`). It is the
/// client core's own `WaitingRoomAddress`, so the summary can never describe another URL than
/// the one the visitors request.
extension Target {
    package var enqueueURLDescription: String {
        WaitingRoomAddress(
            customerId: customerId, waitingRoomId: waitingRoomId, waitingRoomDomain: waitingRoomDomain,
            queuePathPrefix: queuePathPrefix
        ).enqueueURL
    }
}
