import QueueClientCore

/// The requests an engine's visitors sent: per second of the run's clock (the timeline's
/// `requests`) and in all (the progress line's). The poll shortcut counts here too, where a
/// forecast poll would have been sent.
struct SentRequests {
    private(set) var perSecond = PerSecondCounts()
    private(set) var total = 0

    mutating func count(inSecond second: Int) {
        perSecond.add(at: second)
        total += 1
    }
}
