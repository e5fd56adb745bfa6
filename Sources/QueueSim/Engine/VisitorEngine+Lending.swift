import QueueClientCore

/// A visitor's machine lent to the virtual clock's poll shortcut, which answers the polls the
/// room forecasts without the engine's round trip.
extension VisitorEngine {
    /// Lends the machine of the visitor in `slot` (nil when the slot is empty) for the virtual
    /// clock's poll shortcut, with the request counts, where it counts the polls it answers
    /// without sending them.
    mutating func withMachine<Result>(
        inSlot slot: Int, _ body: (inout VisitorMachine, inout SentRequests) throws -> Result
    ) rethrows -> Result? {
        try Self.lend(slot, from: &slots, with: &sent, body)
    }

    /// The slots and the counts as two `inout`s: a closure that reached `sent` through `self`
    /// would overlap the access to `slots`.
    private static func lend<Result>(
        _ slot: Int, from slots: inout SlotStore<InFlightVisitor>, with sent: inout SentRequests,
        _ body: (inout VisitorMachine, inout SentRequests) throws -> Result
    ) rethrows -> Result? {
        try slots.modify(slot) { try body(&$0.machine, &sent) }
    }
}
