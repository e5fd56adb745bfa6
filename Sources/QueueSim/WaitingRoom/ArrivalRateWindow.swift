/// Events in the trailing 60 s: the safetynet's measure of "recent arrival rate" (and, for
/// `safetyNet: mixed`, of recent redirects).
///
/// Definition: an event at `t` counts while `t > now − 60 s`. Memory is bounded by the number
/// of events inside one window; each event is pushed and popped once (amortised O(1)). Events
/// come in time order.
struct ArrivalRateWindow: Sendable {
    static let length: Int64 = 60_000_000_000

    private var arrivals: [Int64] = []
    private var head = 0

    /// Records an arrival at `now` and returns how many arrivals the window holds, this one included.
    mutating func record(atNanoseconds now: Int64) -> Int {
        dropExpired(atNanoseconds: now)
        arrivals.append(now)
        return arrivals.count - head
    }

    /// How many events the window holds at `now`, without recording one.
    mutating func count(atNanoseconds now: Int64) -> Int {
        dropExpired(atNanoseconds: now)
        return arrivals.count - head
    }

    private mutating func dropExpired(atNanoseconds now: Int64) {
        let cutoff = now - Self.length
        while head < arrivals.count, arrivals[head] <= cutoff { head += 1 }
        if head > 4096, head * 2 > arrivals.count {
            arrivals.removeFirst(head)
            head = 0
        }
    }
}
