import QueueClientCore

/// What a report row needs from a visitor that has its outcome. No `VisitorConfiguration`: it
/// would share its group's box with the engine's thread, and the row writer works on another
/// (the event id comes from the writer's own copy, by group).
struct FinishedVisitor: Sendable {
    var index: Int
    var arrival: RunInstant
    var groupIndex: Int
    var result: VisitorResult
    /// The handshake of its first request, when that request opened a connection.
    var handshake: Handshake? = nil
    /// The HTTP versions its requests' answers came over (the wall clock's; empty otherwise).
    var spoken = SpokenProtocols()
    /// How often it reopened the app after giving up (`comeback`); `result` is its last attempt's
    /// with the earlier attempts' counts added.
    var comebacks = 0
    /// The start of its first attempt, when it came back (`result.marks.started` is the last's).
    var firstStart: RunInstant? = nil
    /// Its earlier attempts' stays on the queue page (empty unless it came back).
    var earlierStays: [QueueStay] = []
}
