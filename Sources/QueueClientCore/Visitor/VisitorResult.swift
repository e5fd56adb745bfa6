/// Points on a visitor's timeline (run-relative).
package struct VisitorMarks: Sendable, Hashable {
    package var started: RunInstant
    /// When the (last) enqueue call was decided: a 2xx, a 4xx, or the retries running out.
    package var enqueueDecided: RunInstant?
    /// When the (last) queue page visit began.
    package var queueEntered: RunInstant?
    package var ended: RunInstant

    package init(
        started: RunInstant, enqueueDecided: RunInstant? = nil, queueEntered: RunInstant? = nil, ended: RunInstant
    ) {
        self.started = started
        self.enqueueDecided = enqueueDecided
        self.queueEntered = queueEntered
        self.ended = ended
    }
}

/// A visitor's fate, as the recorder needs it.
package struct VisitorResult: Sendable, Hashable {
    package var outcome: VisitorOutcome
    /// The redirect type of the deciding enqueue (`queue` when no token), if one was decided.
    package var redirectType: String?
    package var lastHTTPStatus: Int?
    package var errorMessage: String?
    /// Enqueue requests, over all runs of this visitor.
    package var attempts: Int
    /// Queue page GETs.
    package var polls: Int
    package var restarts: Int
    /// Every HTTP request sent (enqueue, queue page, protected API).
    package var requests: Int
    package var queueId: String?
    /// The final queueittoken, kept for validation by the runner. A credential: never log it.
    package var queueitToken: String?
    package var marks: VisitorMarks

    package init(
        outcome: VisitorOutcome, redirectType: String? = nil, lastHTTPStatus: Int? = nil, errorMessage: String? = nil,
        attempts: Int = 0, polls: Int = 0, restarts: Int = 0, requests: Int = 0, queueId: String? = nil,
        queueitToken: String? = nil, marks: VisitorMarks
    ) {
        self.outcome = outcome
        self.redirectType = redirectType
        self.lastHTTPStatus = lastHTTPStatus
        self.errorMessage = errorMessage
        self.attempts = attempts
        self.polls = polls
        self.restarts = restarts
        self.requests = requests
        self.queueId = queueId
        self.queueitToken = queueitToken
        self.marks = marks
    }
}
