/// Points on a visitor's timeline (run-relative).
public struct VisitorMarks: Sendable, Hashable {
    public var started: Instant
    /// When the (last) enqueue call was decided: a 2xx, a 4xx, or the retries running out.
    public var enqueueDecided: Instant?
    /// When the (last) queue page visit began.
    public var queueEntered: Instant?
    public var ended: Instant

    public init(started: Instant, enqueueDecided: Instant? = nil, queueEntered: Instant? = nil, ended: Instant) {
        self.started = started
        self.enqueueDecided = enqueueDecided
        self.queueEntered = queueEntered
        self.ended = ended
    }
}

/// Why a driver stopped a visitor from outside.
public enum StopReason: String, Sendable, Hashable {
    /// `run.duration` ran out: visitors in the queue end `queued`, the rest `interrupted`.
    case runEnded
    /// SIGINT/SIGTERM: everything in flight ends `interrupted`.
    case interrupted
}

/// A visitor's fate, as the recorder needs it.
public struct VisitorResult: Sendable, Hashable {
    public var outcome: VisitorOutcome
    /// The redirect type of the deciding enqueue (`queue` when no token), if one was decided.
    public var redirectType: String?
    public var lastHTTPStatus: Int?
    public var errorMessage: String?
    /// Enqueue requests, over all runs of this visitor.
    public var attempts: Int
    /// Queue page GETs.
    public var polls: Int
    public var restarts: Int
    /// Every HTTP request sent (enqueue, queue page, protected API).
    public var requests: Int
    public var queueId: String?
    /// The final queueittoken, kept for validation by the runner. A credential: never log it.
    public var queueitToken: String?
    public var marks: VisitorMarks

    public init(
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

/// Where a visitor is, for progress counts.
public enum VisitorPhase: String, Sendable, Hashable, CaseIterable {
    case notStarted
    case protectedApi
    case enqueueing
    case inQueue
    case finished
}
