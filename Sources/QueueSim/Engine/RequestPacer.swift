import QueueClientCore
import Synchronization

/// `run.maxRequestRate`: the most requests the generator sends, in all, whatever the plan
/// asks. A token bucket of one token (a generic cell rate algorithm without burst tolerance):
/// requests leave at least `1/rate` apart, in the order they asked, each waiting for its turn.
/// No burst: a whole second never holds more than `rate` requests, after a quiet spell too,
/// which is what a cap agreed with the owner of a real endpoint means.
///
/// Sans-IO: it is told when a request wants to go and says when it may.
package struct RequestPacer: Sendable {
    /// The gap between two requests, rounded up to a nanosecond (never faster than the cap).
    package let interval: Duration
    /// The earliest instant the next request may leave.
    private var nextFree: RunInstant = .origin

    /// - Parameter perSecond: the cap over the whole run; a process shard (`--shard K/N`) sends
    ///   its share of it, `shares` being N.
    package init(perSecond: Double, shares: Int = 1) {
        let nanoseconds = (1e9 * Double(max(1, shares)) / perSecond).rounded(.up)
        interval = .nanoseconds(Int64(min(nanoseconds, 9e18)))
    }

    /// Takes the next turn for a request that wants to leave at `now`: when it may leave (`now`
    /// or later).
    package mutating func reserve(at now: RunInstant) -> RunInstant {
        let leaves = max(now, nextFree)
        nextFree = leaves + interval
        return leaves
    }
}

/// A wall-clock run's pacer, shared by its event loops (one lock per request: the cap is the
/// run's, not each loop's).
package final class SharedRequestPacer: Sendable {
    private let pacer: Mutex<RequestPacer>

    package init(_ pacer: RequestPacer) {
        self.pacer = Mutex(pacer)
    }

    package func reserve(at now: RunInstant) -> RunInstant {
        pacer.withLock { $0.reserve(at: now) }
    }
}

/// Where an engine takes its requests' turns (`VisitorEngine.pace`): a pacer of its own (a
/// virtual run's one engine) or the run's, shared by a live run's event loops.
enum PacerTurns {
    case own(RequestPacer)
    case shared(SharedRequestPacer)

    /// Takes the next turn for a request that wants to leave at `now`: when it may leave.
    mutating func reserve(at now: RunInstant) -> RunInstant {
        switch self {
        case .own(var pacer):
            let leaves = pacer.reserve(at: now)
            self = .own(pacer)
            return leaves
        case .shared(let pacer):
            return pacer.reserve(at: now)
        }
    }
}
