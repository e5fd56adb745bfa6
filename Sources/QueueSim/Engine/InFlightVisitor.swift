import QueueClientCore

/// One visitor in flight, on either clock: its machine and what its report row needs from the
/// plan. The rest of the planned visitor (user id, enqueue key or token) is in the machine's
/// configuration, so it is not kept twice.
struct InFlightVisitor: Sendable {
    var machine: VisitorMachine
    let arrival: RunInstant
    /// 32 bits each: a run has at most `ScenarioLimits.mostVisitors` (10^8) visitors.
    private let storedIndex: UInt32
    /// The group's index in the low 28 bits; the top bit (`settledWithoutHandshake`) is set once
    /// its first answer came on a connection it did not open (a shared keep-alive one), and the
    /// three below it are the HTTP versions its answers came over (`SpokenProtocols`).
    private var storedGroupIndex: UInt32
    var index: Int { Int(storedIndex) }
    var groupIndex: Int { Int(storedGroupIndex & Self.groupIndexMask) }
    private static let groupIndexMask: UInt32 = (1 << Self.spokenShift) - 1
    private static let spokenShift: UInt32 = 28
    /// In a bit, not in the boxed extras: on shared connections every visitor's first answer
    /// has no handshake, and boxing that was an allocation per visitor (0.7 % of a keep-alive
    /// request's CPU in `bench/live-ceiling.sh`).
    private static let settledWithoutHandshake: UInt32 = 1 << 31
    /// When its request in flight was sent: its answer's time goes to `RequestStatistics`.
    var requestSentAt = RunInstant.origin
    /// What only some visitors have, boxed: a virtual run's waiting visitor without patience
    /// pays one word for it (measured in docs/benchmarks.md, "Ten million visitors").
    private var extras: Boxed<Extras>?

    init(machine: VisitorMachine, index: Int, arrival: RunInstant, groupIndex: Int) {
        self.machine = machine
        self.arrival = arrival
        storedIndex = UInt32(index)
        precondition(groupIndex <= Self.groupIndexMask, "more groups than a visitor's record holds")
        storedGroupIndex = UInt32(groupIndex)
    }

    /// The HTTP versions its answers came over so far (the wall clock's only).
    var spokenProtocols: SpokenProtocols {
        SpokenProtocols(bits: UInt8(truncatingIfNeeded: storedGroupIndex >> Self.spokenShift))
    }

    /// An answer came over `spoken`.
    mutating func noteSpoken(_ spoken: SpokenProtocol) {
        var protocols = spokenProtocols
        protocols.note(spoken)
        storedGroupIndex |= UInt32(protocols.bits) << Self.spokenShift
    }

    private struct Extras: Sendable {
        var firstHandshake = FirstRequestHandshake()
        var behaviourSerial: UInt32 = 0
        var giveUpAt = RunInstant.origin
        var afterlife: Afterlife?
        var isEmpty: Bool { !firstHandshake.settled && behaviourSerial == 0 && afterlife == nil }
    }

    private mutating func changeExtras(_ change: (inout Extras) -> Void) {
        extras = .updating(extras, empty: Extras(), isEmpty: \.isEmpty, change)
    }

    /// What opening the connection of its first request cost (the wall clock's only).
    var firstHandshake: FirstRequestHandshake {
        if storedGroupIndex & Self.settledWithoutHandshake != 0 { return .settledWithoutHandshake }
        return extras?.value.firstHandshake ?? FirstRequestHandshake()
    }

    /// Records the first answer's handshake; later answers change nothing (and box nothing).
    mutating func settleFirstHandshake(_ handshake: Handshake?) {
        guard !firstHandshake.settled else { return }
        guard let handshake else {
            storedGroupIndex |= Self.settledWithoutHandshake
            return
        }
        changeExtras { $0.firstHandshake.settle(handshake) }
    }

    /// The serial of its pending `giveUp` or `resume` event, 0 when it has none.
    var behaviourSerial: UInt32 {
        get { extras?.value.behaviourSerial ?? 0 }
        set { changeExtras { $0.behaviourSerial = newValue } }
    }

    /// When its patience runs out (meaningful while its `giveUp` is pending).
    var giveUpAt: RunInstant {
        get { extras?.value.giveUpAt ?? .origin }
        set { changeExtras { $0.giveUpAt = newValue } }
    }

    /// What earlier attempts left (comebacks) or what the visitor does after passing; nil for
    /// the visitors of groups without `patience`/`afterPass`.
    var afterlife: Afterlife? {
        get { extras?.value.afterlife }
        set { changeExtras { $0.afterlife = newValue } }
    }
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
