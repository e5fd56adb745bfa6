/// The queue page answers a virtual-time driver knows without sending the requests: it reads
/// where each waiting visitor stands and accounts for the answers, and the machine is left
/// exactly as if they had been sent.
extension VisitorMachine {
    /// While the visitor waits to poll the queue page again: the page it will load and when
    /// its `maxWait` runs out. Nil in every other state (enqueueing, loading, waiting out
    /// `maxWait`, finished). The virtual-time driver reads it to skip polls whose answers it
    /// can compute exactly.
    package var pendingQueuePagePoll: (url: SimpleURL, maxWaitEnds: RunInstant)? {
        guard case .inQueue(let navigator) = stage, navigator.isWaitingToPoll else { return nil }
        return (navigator.currentURL, navigator.maxWaitEnds)
    }

    /// While a queue-page load is in flight: the page and when `maxWait` runs out. Nil in every
    /// other state. The virtual-time driver reads it to answer the load without the room when
    /// the answer is known exactly.
    package var queuePageLoadInFlight: (url: SimpleURL, maxWaitEnds: RunInstant)? {
        guard case .inQueue(let navigator) = stage, navigator.isLoading else { return nil }
        return (navigator.currentURL, navigator.maxWaitEnds)
    }

    /// `pendingQueuePagePoll` and `queuePageLoadInFlight` with the page's queue id (its `q`)
    /// instead of the page: what the virtual driver's forecast needs, without making the URL.
    package var pendingQueuePagePollQueueId: (queueId: PageQueueId?, maxWaitEnds: RunInstant)? {
        guard case .inQueue(let navigator) = stage, navigator.isWaitingToPoll else { return nil }
        return (navigator.currentQueueIdReference, navigator.maxWaitEnds)
    }

    package var queuePageLoadInFlightQueueId: (queueId: PageQueueId?, maxWaitEnds: RunInstant)? {
        guard case .inQueue(let navigator) = stage, navigator.isLoading else { return nil }
        return (navigator.currentQueueIdReference, navigator.maxWaitEnds)
    }

    /// Accounts for the answer to the queue-page load in flight, known without handing the
    /// request over: a 2xx "keep waiting" whose `Retry-After` makes the next poll due at
    /// `nextPollAt` (the driver calls `waited` then). The result is the one `received` would
    /// have left. Only valid while `queuePageLoadInFlight` is non-nil.
    package mutating func answerQueuePageLoad(with status: Int = 200, nextPollAt: RunInstant) {
        guard case .inQueue(var navigator) = takeStage() else {
            preconditionFailure("VisitorMachine.answerQueuePageLoad called outside the queue page")
        }
        navigator.answerLoadInFlight(with: status, nextPollAt: nextPollAt)
        stage = .inQueue(navigator)
        result.lastHTTPStatus = status
    }

    /// Accounts for `count` queue-page polls the driver did not carry out one by one: each was
    /// sent (a request and a poll in the result) and answered `status`, a 2xx "keep waiting";
    /// the next poll is due at `nextPollAt`, when the driver calls `waited`. The result is the
    /// one the visitor would have had after sending them. Only valid while
    /// `pendingQueuePagePoll` is non-nil.
    package mutating func skipPolls(_ count: Int, answeredWith status: Int = 200, nextPollAt: RunInstant) {
        guard case .inQueue(var navigator) = takeStage() else {
            preconditionFailure("VisitorMachine.skipPolls called outside the queue page")
        }
        navigator.skipPolls(count, answeredWith: status, nextPollAt: nextPollAt)
        stage = .inQueue(navigator)
        guard count > 0 else { return }
        result.polls += count
        result.requests += count
        result.lastHTTPStatus = status
    }
}
