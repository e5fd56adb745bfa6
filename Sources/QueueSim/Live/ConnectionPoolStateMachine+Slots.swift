import DequeModule
import QueueClientCore

/// What the machine keeps per connection and per owner.
extension ConnectionPoolStateMachine {
    enum State {
        /// A slot with no connection: its index is free for the next one.
        case free
        case connecting
        case idle
        /// A reference: a device run has a slot for every connection its waiting visitors hold,
        /// idle for most of the wait, so a slot stays a word or two.
        case busy(LiveExchange)
        /// Its one exchange answered, kept open by nobody and never used again (Android's
        /// abandoned `OkHttpClient`, `IdleLifetime.abandonedAfterUse`): it counts against the
        /// limit until the server closes it or its idle bound passes.
        case held
        /// Asked to close (aborted, closed with the pool, closed while connecting, not wanted):
        /// it counts against the limit until its channel is gone.
        case closing
        /// Done with after an answer that ends the connection: it no longer counts, and its
        /// channel closes on its own.
        case released
    }

    struct Connection {
        var generation: UInt32
        var state: State
        var owner: ConnectionOwner
        /// Exchanges it has answered (0: fresh, so a close cannot be a stale keep-alive).
        var served = 0
        /// Its connect attempt has not completed yet.
        var connectPending = false
        /// Opened ahead of need (`warm`): its handshakes belong to no visitor's request.
        var warmed = false
        /// Which idle spell it is in: a deadline of an earlier spell (it was busy since) is stale.
        var idleSpell: UInt32 = 0
    }

    /// One owner's waiters, idle connections and connects in progress.
    struct OwnerQueue {
        var waiting = Deque<LiveExchange>()
        /// The most recently used last (it is the likeliest still open).
        var idle: [ConnectionID] = []
        var connecting = 0
        /// Listed in `starved`: it wants a connection the limit does not allow yet.
        var starved = false

        var isUnused: Bool { waiting.isEmpty && idle.isEmpty && connecting == 0 && !starved }
    }
}
