/// The answers a virtual-time driver knows without sending the requests (the room's forecast
/// of a waiting visitor's polls): the navigator is left exactly as if they had been sent.
extension QueuePageNavigator {
    /// True while a load of `currentURL` is in flight (its answer or failure is due next).
    package var isLoading: Bool { state == .loading }

    /// Accounts for `count` polls a driver did not carry out one by one because it knows their
    /// answers: each was a load of `currentURL` answered `status` (a 2xx without cookies or a
    /// redirect, so "keep waiting"), and the poll after them is due at `nextPollAt`. The
    /// navigator ends exactly as if it had sent them: `polls` grows by `count`, the last status
    /// is `status`, and it waits to poll again. The caller guarantees each of those polls
    /// scheduled the next one before `maxWaitEnds` (so `nextPollAt` is before it).
    package mutating func skipPolls(_ count: Int, answeredWith status: Int, nextPollAt: RunInstant) {
        precondition(state == .waitingToPoll, "QueuePageNavigator.skipPolls called while not waiting to poll")
        precondition(count >= 0 && (200..<300).contains(status), "skipped polls must be 2xx answers")
        precondition(nextPollAt < deadline, "a skipped poll cannot schedule past maxWait")
        guard count > 0 else { return }
        polls += count
        lastHTTPStatus = status
        redirectsInRow = 0
        pageLoad = false
        failedPageLoads = 0
    }

    /// Accounts for the answer to the load in flight when a driver knows it without handing
    /// the request over: a `status` 2xx without cookies or a redirect whose `Retry-After`
    /// makes the next poll due at `nextPollAt` — exactly what `received` does with it. The
    /// caller guarantees `nextPollAt` is before `maxWaitEnds` (so `received` would not have
    /// waited out `maxWait` instead).
    package mutating func answerLoadInFlight(with status: Int, nextPollAt: RunInstant) {
        precondition(state == .loading, "QueuePageNavigator.answerLoadInFlight called with no load in flight")
        precondition((200..<300).contains(status), "a known answer must be a 2xx")
        precondition(nextPollAt < deadline, "a known answer cannot schedule past maxWait")
        lastHTTPStatus = status
        redirectsInRow = 0
        pageLoad = false
        failedPageLoads = 0
        state = .waitingToPoll
    }
}
