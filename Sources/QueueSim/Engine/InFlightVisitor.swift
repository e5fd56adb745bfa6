import QueueClientCore

/// One visitor in flight, on either clock: its machine and what its report row needs from the
/// plan. The rest of the planned visitor (user id, enqueue key or token) is in the machine's
/// configuration, so it is not kept twice.
struct InFlightVisitor: Sendable {
    var machine: VisitorMachine
    let index: Int
    let arrival: RunInstant
    let groupIndex: Int
    /// What opening the connection of its first request cost (the wall clock's only).
    var firstHandshake = FirstRequestHandshake()
    /// When its request in flight was sent: its answer's time goes to `RequestStatistics`.
    var requestSentAt = RunInstant.origin
}
