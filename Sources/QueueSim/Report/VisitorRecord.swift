import QueueClientCore

/// What the report says about a visitor's token: never the token itself (it is a credential).
package enum TokenState: String, Sendable, Hashable, CaseIterable {
    /// A token came back and its shape was valid.
    case present
    /// The visitor ended without a token.
    case absent
    /// A token came back but could not be read (bad shape, bad hash or expired).
    case invalid
}

/// One finished visitor: its `visitors.csv` row and the marks the summary and timeline need.
///
/// The runner maps the client core's result to this type; the recorder never sees a token,
/// only `token`'s state. All instants are on the run's own clock (since its origin).
package struct VisitorRecord: Sendable, Equatable {
    /// 0-based arrival order. The `visitor` column prints `index + 1`.
    package var index: Int
    package var group: String
    /// The flow word (`run`, `tryPass`, `protectedApi`).
    package var flow: String
    /// The intended arrival from the plan (`arrival_ms`).
    package var arrival: RunInstant
    /// When the visitor actually started (`start_ms`); later than `arrival` when the generator
    /// was saturated.
    package var start: RunInstant
    package var outcome: VisitorOutcome
    /// The enqueue answer's redirect type (`queue`, `safetynet`, `disabled`, …), if one came.
    package var redirectType: String?
    /// The last HTTP status the visitor saw, if any.
    package var httpStatus: Int?
    /// A short human message for `error`/`unavailable` outcomes. Any `queueittoken=` or
    /// `enqueuetoken=` value in it is redacted before it is written.
    package var error: String?
    package var attempts: Int
    package var polls: Int
    package var restarts: Int
    /// HTTP requests this visitor sent (the extra `requests` column).
    package var requests: Int
    /// When the enqueue decision arrived (after retries); nil if it never did.
    package var enqueueDecided: RunInstant?
    /// When the visitor entered the queue page; nil if it never did.
    package var queueEntered: RunInstant?
    /// When the final outcome was decided.
    package var ended: RunInstant
    package var queueId: String? {
        get { packedQueueId?.string }
        set { packedQueueId = newValue.map(PackedText.init) }
    }
    /// `queueId` as the visitor's result keeps it (a UUID in two words): the row writes its
    /// bytes, so a run's rows make no string per visitor for it.
    package var packedQueueId: PackedText?
    package var token: TokenState
    /// What opening the connection of the visitor's first request cost (`connect_ms`,
    /// `tls_ms`): nil when that request rode a connection already open, on plain HTTP (TLS),
    /// and on the virtual clock.
    package var connectTime: Duration?
    package var tlsTime: Duration?
    /// The visitor's platform (`ios`, `android`): the `platform` column, written only when a
    /// group of the run mixes platforms (nil otherwise, so other runs keep their bytes).
    package var platform: String?
    /// How often the visitor reopened the app after giving up (`comebacks`): written only when
    /// a group of the run has `comeback` (nil otherwise, so other runs keep their bytes).
    package var comebacks: Int?
    /// The HTTP versions its requests' answers came over (`h2`, `http/1.1`, both joined by `+`
    /// in the order first used, empty when none was answered): the `protocol` column, written
    /// only in live runs with a TLS destination (nil otherwise, so other runs keep their bytes).
    package var spokenProtocols: String?
    /// A visitor who came back: the start of its last attempt, which its `enqueue_ms` is
    /// measured from (`start` stays its first start, `total_ms` its whole journey).
    package var lastAttemptStart: RunInstant?
    /// A visitor who came back: when its earlier attempts were on the queue page, as
    /// stays (the timeline's `in_queue` counts them; `wait_ms` is the last stay's).
    package var earlierStays: [QueueStay] = []

    package init(
        index: Int, group: String, flow: String, arrival: RunInstant, start: RunInstant,
        outcome: VisitorOutcome, redirectType: String? = nil, httpStatus: Int? = nil,
        error: String? = nil, attempts: Int = 0, polls: Int = 0, restarts: Int = 0,
        requests: Int = 0, enqueueDecided: RunInstant? = nil, queueEntered: RunInstant? = nil,
        ended: RunInstant, queueId: String? = nil, token: TokenState = .absent
    ) {
        self.init(
            index: index, group: group, flow: flow, arrival: arrival, start: start, outcome: outcome,
            redirectType: redirectType, httpStatus: httpStatus, error: error, attempts: attempts, polls: polls,
            restarts: restarts, requests: requests, enqueueDecided: enqueueDecided, queueEntered: queueEntered,
            ended: ended, packedQueueId: queueId.map(PackedText.init), token: token)
    }

    package init(
        index: Int, group: String, flow: String, arrival: RunInstant, start: RunInstant,
        outcome: VisitorOutcome, redirectType: String?, httpStatus: Int?, error: String?, attempts: Int, polls: Int,
        restarts: Int, requests: Int, enqueueDecided: RunInstant?, queueEntered: RunInstant?, ended: RunInstant,
        packedQueueId: PackedText?, token: TokenState
    ) {
        self.index = index
        self.group = group
        self.flow = flow
        self.arrival = arrival
        self.start = start
        self.outcome = outcome
        self.redirectType = redirectType
        self.httpStatus = httpStatus
        self.error = error
        self.attempts = attempts
        self.polls = polls
        self.restarts = restarts
        self.requests = requests
        self.enqueueDecided = enqueueDecided
        self.queueEntered = queueEntered
        self.ended = ended
        self.packedQueueId = packedQueueId
        self.token = token
    }

    /// `connect_ms`, `tls_ms`: the first request's handshakes, when it opened a connection.
    package var connectMilliseconds: Int64? { connectTime.map { nonNegative($0.wholeMilliseconds) } }
    package var tlsMilliseconds: Int64? { tlsTime.map { nonNegative($0.wholeMilliseconds) } }

    /// `enqueue_ms`: start → enqueue decision; nil (an empty cell) when no decision was made.
    package var enqueueMilliseconds: Int64? {
        enqueueDecided.map { nonNegative(($0 - (lastAttemptStart ?? start)).wholeMilliseconds) }
    }

    /// `wait_ms`: time in the queue page, 0 when the visitor never entered it.
    package var waitMilliseconds: Int64 {
        queueEntered.map { nonNegative((ended - $0).wholeMilliseconds) } ?? 0
    }

    /// `total_ms`: intended arrival → final outcome, so a late start counts against the run.
    package var totalMilliseconds: Int64 {
        nonNegative((ended - arrival).wholeMilliseconds)
    }
}

/// Clock jitter between two reads must not print a negative duration.
private func nonNegative(_ value: Int64) -> Int64 { max(0, value) }
