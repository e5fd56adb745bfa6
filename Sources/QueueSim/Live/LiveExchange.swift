import NIOCore
import QueueClientCore

/// Who the pool's exchanges belong to: the loop's driver (or the reachability probe).
protocol LiveExchangeOwner: AnyObject {
    /// Whether request `serial` of `slot` is still awaited (not timed out, not stopped).
    func awaits(slot: Int, serial: UInt32) -> Bool
    /// `handshake`: the exchange went out on a connection opened for it, at this cost. `now`:
    /// the event's instant (an answer's: when its last bytes were read).
    func exchangeCompleted(
        slot: Int, serial: UInt32, result: Result<IncomingResponse, TransportError>, handshake: Handshake?,
        at now: RunInstant)
    /// The same, told the HTTP version of the connection that answered (`spoke`; nil for a
    /// failure): what the pool calls. An owner that keeps no protocol needs only the other.
    func exchangeCompleted(
        slot: Int, serial: UInt32, result: Result<IncomingResponse, TransportError>, handshake: Handshake?,
        spoke: SpokenProtocol?, at now: RunInstant)
}

extension LiveExchangeOwner {
    func exchangeCompleted(
        slot: Int, serial: UInt32, result: Result<IncomingResponse, TransportError>, handshake: Handshake?,
        spoke: SpokenProtocol?, at now: RunInstant
    ) {
        exchangeCompleted(slot: slot, serial: serial, result: result, handshake: handshake, at: now)
    }
}

/// One request of one visitor, as the pool carries it.
///
/// A class: an exchange has one life (queued, in flight on one connection, answered), and the
/// pool's actions, its busy connection's state and the driver all name the same one. As a
/// struct every hand-over copied the request's parts (the head's fields, the body, the shared
/// templates): a retain and a release each, about 5 % of a keep-alive request's CPU in
/// `bench/live-ceiling.sh` (docs/benchmarks.md, "Seventh look").
final class LiveExchange: Equatable {
    let slot: Int
    let serial: UInt32
    let request: OutgoingRequest
    /// Whose connections it may ride (`ConnectionOwner`).
    let owner: ConnectionOwner
    /// Wants a new connection of its own, closed after its answer (Android's enqueue call: the
    /// SDK builds a new `OkHttpClient` for each).
    let oneUse: Bool
    /// Sent again once already (after a stale keep-alive connection): never twice.
    var resent = false
    /// How long a connection opened for it may take to connect (its request's own bound:
    /// 10 s for OkHttp, 240 s for Chromium's page loads); nil: the pool's.
    var connectTimeout: Duration?
    /// How long its connection stays open idle after it, as its phone's HTTP stack keeps it.
    var idleLifetime = IdleLifetime.whileVisitorLasts
    /// The phone that sends it (nil: none, the run's own calls): its TLS client resumes
    /// sessions, or not, as that platform's does (`ConnectionRequest.device`).
    var platform: ClientPlatform?

    init(
        slot: Int, serial: UInt32, request: OutgoingRequest, owner: ConnectionOwner = .shared, oneUse: Bool = false
    ) {
        self.slot = slot
        self.serial = serial
        self.request = request
        self.owner = owner
        self.oneUse = oneUse
    }

    var id: ExchangeID { ExchangeID(slot: slot, serial: serial) }

    /// The request's bytes (`LiveRequestEncoding`), encoded where the request is kept: read
    /// from outside the object, the request was copied for the call (a retain and a release of
    /// each of its references).
    func encodeRequest(
        defaultAuthority: String, heads: inout EncodedHeads, reusing spare: consuming ByteBuffer?
    ) -> ByteBuffer {
        LiveRequestEncoding.encode(
            request, defaultAuthority: defaultAuthority, allocator: ByteBufferAllocator(), heads: &heads,
            reusing: consume spare)
    }

    /// Equal when every part is: the same request to the same owner, in the same state.
    static func == (lhs: LiveExchange, rhs: LiveExchange) -> Bool {
        lhs === rhs
            || (lhs.slot == rhs.slot && lhs.serial == rhs.serial && lhs.request == rhs.request
                && lhs.owner == rhs.owner && lhs.oneUse == rhs.oneUse && lhs.resent == rhs.resent
                && lhs.connectTimeout == rhs.connectTimeout && lhs.idleLifetime == rhs.idleLifetime)
    }
}

/// An exchange by its visitor's slot and the visitor's request serial.
struct ExchangeID: Hashable, Sendable {
    var slot: Int
    var serial: UInt32
}
