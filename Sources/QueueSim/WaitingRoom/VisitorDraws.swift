import QueueClientCore

/// Which random draws the room's faults and latency jitter use for a request: those of the
/// visitor that sent it and of that visitor's n-th request to the room, so a visitor meets the
/// same faults and delays whichever process, event loop or shard sent its requests and
/// whatever other visitors did meanwhile.
///
/// The visitor is known by its `userId` (the enqueue body), then by its queue id (the ticket it
/// was given): the room remembers one key per ticket and one request count per visitor. Only
/// rooms whose answers depend on draws (`FaultInjector.drawsAreIrrelevant` is false) keep
/// them; the others pay nothing. A request the room cannot tie to a visitor (no `userId`, an
/// unknown queue id) falls back to the room's request count, as every request did before.
struct VisitorDraws {
    /// The visitor key of each ticket, by ticket index.
    private var ticketVisitors: [UInt64] = []
    /// Requests handled so far per visitor key.
    private var requestCounts = RequestCountTable()

    /// The draw index for the next request of `visitor`, counting it.
    mutating func nextIndex(visitor: UInt64) -> UInt64 {
        let ordinal = requestCounts.add(1, to: visitor)
        return Self.index(visitor: visitor, ordinal: ordinal)
    }

    /// The ordinal `visitor`'s next request will draw with.
    func nextOrdinal(visitor: UInt64) -> UInt32 {
        requestCounts.count(of: visitor)
    }

    /// Counts `count` requests of `visitor` that were answered without the room (forecast polls).
    mutating func skip(_ count: Int, visitor: UInt64) {
        _ = requestCounts.add(UInt32(truncatingIfNeeded: count), to: visitor)
    }

    mutating func remember(ticket: Int, visitor: UInt64) {
        if ticket >= ticketVisitors.count {
            ticketVisitors.append(contentsOf: repeatElement(0, count: ticket + 1 - ticketVisitors.count))
        }
        ticketVisitors[ticket] = visitor
    }

    func visitor(ofTicket ticket: Int) -> UInt64? {
        ticket < ticketVisitors.count ? ticketVisitors[ticket] : nil
    }

    /// A visitor's key: FNV-1a of its user id with ASCII letters lower-cased, with the top bit
    /// set so that it never equals a plain request count (the fallback's index). Case-folded
    /// because a UUID is the same id in either case (RFC 4122 reads it case-insensitively) and
    /// iOS prints it upper-case: the room's draws for a visitor do not depend on its SDK's
    /// spelling, and runs keep their bytes across that change of the ids.
    static func visitorKey(userId: String) -> UInt64 {
        // Over the id's contiguous bytes: its `utf8` view stepped through index witnesses.
        var userId = userId
        return userId.withUTF8 { bytes in
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in bytes {
                let folded = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
                hash = (hash ^ UInt64(folded)) &* 0x0000_0100_0000_01B3
            }
            return hash | (1 << 63)
        }
    }

    /// SplitMix64's finaliser over the visitor key and the request's ordinal.
    static func index(visitor: UInt64, ordinal: UInt32) -> UInt64 {
        var z = visitor &+ (UInt64(ordinal) &+ 1) &* 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return (z ^ (z >> 31)) | (1 << 63)
    }

    /// The queue id in a KnownUser token (`…~q_{queueId}~…`), or in an accepted-session cookie
    /// (`…&QueueId={queueId}&…`): how the protected API's requests are tied to a visitor.
    static func queueId(inToken token: String) -> Substring? {
        token.split(separator: "~").first(where: { $0.hasPrefix("q_") })?.dropFirst(2)
    }

    static func queueId(inCookie cookie: String) -> Substring? {
        cookie.split(separator: "&").first(where: { $0.hasPrefix("QueueId=") })?.dropFirst("QueueId=".count)
    }
}

/// A request count per visitor key: an open-addressing table with linear probing, in place of
/// `[UInt64: UInt32]`. Every request of a room with draws looks its visitor up here (a
/// 100,000-visitor sweep point with latency jitter makes 200,000 lookups), and the dictionary
/// hashed each key with SipHash and kept no key and count side by side. Keys are visitor keys,
/// whose top bit is always set, so 0 marks an empty place. Only lookups and additions: no
/// order is ever read from the table, so its layout cannot change a run.
struct RequestCountTable {
    private var keys: [UInt64] = []
    private var counts: [UInt32] = []
    private var occupied = 0
    /// `keys.count - 1`; the capacity is a power of two.
    private var mask = -1

    /// The count of `key` (0 when unseen).
    func count(of key: UInt64) -> UInt32 {
        guard occupied > 0 else { return 0 }
        var place = Self.home(of: key, mask: mask)
        while true {
            let found = keys[place]
            if found == key { return counts[place] }
            if found == 0 { return 0 }
            place = (place + 1) & mask
        }
    }

    /// Adds `amount` to the count of `key` (wrapping) and returns the count before.
    mutating func add(_ amount: UInt32, to key: UInt64) -> UInt32 {
        // At most three places in four taken: linear probing's probes stay short.
        if (occupied + 1) * 4 > keys.count * 3 { grow() }
        var place = Self.home(of: key, mask: mask)
        while true {
            let found = keys[place]
            if found == key {
                let before = counts[place]
                counts[place] = before &+ amount
                return before
            }
            if found == 0 {
                keys[place] = key
                counts[place] = amount
                occupied += 1
                return 0
            }
            place = (place + 1) & mask
        }
    }

    /// Fibonacci hashing: the key's bits mixed into the top, which become the place.
    private static func home(of key: UInt64, mask: Int) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> 32) & mask
    }

    private mutating func grow() {
        let (oldKeys, oldCounts) = (keys, counts)
        let capacity = max(1024, oldKeys.count * 2)
        keys = Array(repeating: 0, count: capacity)
        counts = Array(repeating: 0, count: capacity)
        mask = capacity - 1
        for (key, count) in zip(oldKeys, oldCounts) where key != 0 {
            var place = Self.home(of: key, mask: mask)
            while keys[place] != 0 { place = (place + 1) & mask }
            keys[place] = key
            counts[place] = count
        }
    }
}
