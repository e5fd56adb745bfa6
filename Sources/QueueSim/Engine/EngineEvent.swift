import QueueClientCore

/// What the engine's calendar holds: a payload that fires at an instant.
///
/// The wall-clock adapter puts only wake-ups and out-of-order request deadlines here (answers
/// come from sockets); the virtual adapter also puts the room's answers here, after their
/// modelled latency. Payloads stay small: the calendar holds one entry per waiting visitor.
enum EngineEvent {
    /// The visitor's machine asked to be woken now (a poll, a retry's back-off).
    /// `atTurn` (virtual clock): the poll shortcut stopped here because the visitor's turn has
    /// come, so this poll is not forecast and the room need not be asked again.
    case wake(slot: Int, atTurn: Bool = false)
    /// Request `serial` of the visitor must have its answer by now (`requestTimeout`).
    case deadline(slot: Int, serial: UInt32)
    /// Indirect: a response is a large value, and most entries are `wake`s.
    indirect case response(slot: Int, IncomingResponse)
    /// Indirect too: the error's payload would otherwise widen every entry.
    indirect case failure(slot: Int, TransportError)
    /// The visitor's patience runs out now (`VisitorEngine+Behaviour`). `serial` tells it from
    /// a stale one: the visitor may have passed meanwhile, its slot gone to another.
    case giveUp(slot: Int, serial: UInt32)
    /// A visitor who gave up reopens the app now, or one who passed makes its next after-pass
    /// call; `serial` as for `giveUp`.
    case resume(slot: Int, serial: UInt32)
}
