import QueueClientCore

/// The requests an engine's visitors sent: per second of the run's clock (the timeline's
/// `requests`) and in all (the progress line's). The poll shortcut counts here too, where a
/// forecast poll would have been sent.
struct SentRequests {
    private(set) var perSecond = PerSecondCounts()
    private(set) var total = 0
    /// Their answers by endpoint and status (the report's per-endpoint table and charts).
    var answers = RequestStatistics()
    /// False for a run that keeps figures only (a sweep's point): nobody reads `answers`, and
    /// filling them per request (a poll chain's every poll) was a tenth of such a run's time.
    var keepsAnswers = true
    /// The after-pass calls among them (`afterPass`), per second: the load behind the queue.
    private(set) var afterPassPerSecond = PerSecondCounts()

    mutating func countAfterPass(inSecond second: Int) {
        afterPassPerSecond.add(at: second)
    }

    mutating func count(inSecond second: Int) {
        perSecond.add(at: second)
        total += 1
    }

    /// `count` requests sent at `first + k × period` (whole nanoseconds from the origin): a
    /// chain of forecast polls, in bulk (`PerSecondCounts.addProgression`).
    mutating func count(firstNanoseconds first: Int64, periodNanoseconds period: Int64, count: Int) {
        perSecond.addProgression(firstNanoseconds: first, periodNanoseconds: period, count: count)
        total += count
    }
}
