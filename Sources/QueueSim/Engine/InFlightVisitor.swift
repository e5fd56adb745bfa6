import QueueClientCore

/// One visitor in flight, on either clock: its machine and what its report row needs from the
/// plan. The rest of the planned visitor (user id, enqueue key or token) is in the machine's
/// configuration, so it is not kept twice.
struct InFlightVisitor: Sendable {
    var machine: VisitorMachine
    let arrival: RunInstant
    /// 32 bits each: a run has at most `ScenarioLimits.mostVisitors` (10^8) visitors.
    private let storedIndex: UInt32
    private let storedGroupIndex: UInt32
    var index: Int { Int(storedIndex) }
    var groupIndex: Int { Int(storedGroupIndex) }

    init(machine: VisitorMachine, index: Int, arrival: RunInstant, groupIndex: Int) {
        self.machine = machine
        self.arrival = arrival
        storedIndex = UInt32(index)
        storedGroupIndex = UInt32(groupIndex)
    }
    /// What opening the connection of its first request cost (the wall clock's only).
    var firstHandshake = FirstRequestHandshake()
    /// The serial of its pending `giveUp` or `resume` event, 0 when it has none. (Declared
    /// right after the handshake's nine bytes: it fills their padding, 8 bytes a slot.)
    var behaviourSerial: UInt32 = 0
    /// When its request in flight was sent: its answer's time goes to `RequestStatistics`.
    var requestSentAt = RunInstant.origin
    /// When its patience runs out (meaningful while its `giveUp` is pending).
    var giveUpAt = RunInstant.origin
    /// What earlier attempts left (comebacks) or what the visitor does after passing; nil for
    /// the visitors of groups without `patience`/`afterPass`, who pay one word for it.
    var afterlife: Afterlife?
}

/// A visitor's life beyond the SDK's: boxed, so only visitors that have one pay for it.
indirect enum Afterlife: Sendable {
    /// It gave up and will reopen the app (its `resume` is on the calendar), or has reopened it.
    case comingBack(EarlierAttempts)
    /// It passed (its row is written) and makes its after-pass calls.
    case shopping(AfterPassCalls)
}

/// The counts of a visitor's attempts before its last one, added to its row at the end.
struct EarlierAttempts: Sendable {
    var firstStart: RunInstant
    var comebacks: Int
    var attempts: Int
    var polls: Int
    var restarts: Int
    var requests: Int
    /// When each earlier attempt was on the queue page: the timeline's `in_queue` counts them.
    var stays: [QueueStay] = []
    /// The attempt it gave up last, while it has not reopened the app yet: its row, should the
    /// run end first (it left as `abandoned`; its counts join the others when it comes back).
    var pending: VisitorResult?
}

/// A stretch of time on the queue page.
package struct QueueStay: Sendable, Equatable {
    package var entered: RunInstant
    package var left: RunInstant
}

/// The after-pass calls of a visitor who passed.
struct AfterPassCalls: Sendable {
    var machine: ProtectedApiMachine
    var token: String?
    var callsLeft: Int
    /// Think times are drawn from the visitor's own stream, one per call.
    var random: SeededRandom
}
