/// Points on a visitor's timeline (run-relative).
///
/// Stored as whole nanoseconds with `Int64.min` for "not yet": 32 bytes instead of 48, and a
/// virtual run keeps one for every waiting visitor.
package struct VisitorMarks: Sendable, Hashable {
    package var started: RunInstant
    private var enqueueDecidedNanoseconds: Int64
    private var queueEnteredNanoseconds: Int64
    package var ended: RunInstant

    private static let absent = Int64.min

    /// When the (last) enqueue call was decided: a 2xx, a 4xx, or the retries running out.
    package var enqueueDecided: RunInstant? {
        get { Self.instant(enqueueDecidedNanoseconds) }
        set { enqueueDecidedNanoseconds = newValue?.wholeNanoseconds ?? Self.absent }
    }

    /// When the (last) queue page visit began.
    package var queueEntered: RunInstant? {
        get { Self.instant(queueEnteredNanoseconds) }
        set { queueEnteredNanoseconds = newValue?.wholeNanoseconds ?? Self.absent }
    }

    package init(
        started: RunInstant, enqueueDecided: RunInstant? = nil, queueEntered: RunInstant? = nil, ended: RunInstant
    ) {
        self.started = started
        self.enqueueDecidedNanoseconds = enqueueDecided?.wholeNanoseconds ?? Self.absent
        self.queueEnteredNanoseconds = queueEntered?.wholeNanoseconds ?? Self.absent
        self.ended = ended
    }

    private static func instant(_ nanoseconds: Int64) -> RunInstant? {
        nanoseconds == absent ? nil : RunInstant(wholeNanoseconds: nanoseconds)
    }
}

/// A visitor's fate, as the recorder needs it.
///
/// Every waiting visitor of a virtual run carries one, so the storage is packed behind the
/// same properties: counts in 32 bits, the HTTP status in 16, the queue id as `PackedText`,
/// and the two strings only some visitors get (an error message, the final token) in one box.
package struct VisitorResult: Sendable, Hashable {
    // Declared small to large: Swift lays fields out in this order, so nothing is padded.
    package var outcome: VisitorOutcome
    /// 0: none; 1…: `RedirectType.allCases[code − 1]`; `otherRedirectType`: the text is in `rare`.
    private var redirectTypeCode: UInt8 = 0
    private var storedHTTPStatus: Int16 = -1
    private var storedCounts: (attempts: UInt32, polls: UInt32, restarts: UInt32, requests: UInt32) = (0, 0, 0, 0)
    package var marks: VisitorMarks
    private var rare: Boxed<Rare>?
    /// `queueId` as it is kept: a report row writes its bytes without making the string.
    package private(set) var packedQueueId: PackedText?

    private struct Rare: Sendable, Hashable {
        var errorMessage: String?
        var queueitToken: String?
        /// A redirect type the SDK does not know (a token's own `rt_` text).
        var redirectType: String?
        var isEmpty: Bool { errorMessage == nil && queueitToken == nil && redirectType == nil }
    }

    private static let otherRedirectType = UInt8.max

    /// The redirect type of the deciding enqueue (`queue` when no token), if one was decided.
    /// One byte for the types the SDK knows (a string's 16 otherwise, for every waiting visitor).
    package var redirectType: String? {
        get {
            switch redirectTypeCode {
            case 0: nil
            case Self.otherRedirectType: rare?.value.redirectType
            default: RedirectType.allCases[Int(redirectTypeCode) - 1].rawValue
            }
        }
        set {
            if redirectTypeCode == Self.otherRedirectType { setRare { $0.redirectType = nil } }
            guard let newValue else {
                redirectTypeCode = 0
                return
            }
            if let known = RedirectType(rawValue: newValue) {
                redirectTypeCode = Self.code(of: known)
            } else {
                redirectTypeCode = Self.otherRedirectType
                setRare { $0.redirectType = newValue }
            }
        }
    }

    /// Sets `redirectType` to a type the SDK knows, without reading its text.
    package mutating func setRedirectType(_ type: RedirectType) {
        if redirectTypeCode == Self.otherRedirectType { setRare { $0.redirectType = nil } }
        redirectTypeCode = Self.code(of: type)
    }

    private static func code(of type: RedirectType) -> UInt8 {
        UInt8(RedirectType.allCases.firstIndex(of: type)! + 1)
    }

    /// The last HTTP status seen (nil before any answer); kept in 16 bits (a status is three digits).
    package var lastHTTPStatus: Int? {
        get { storedHTTPStatus < 0 ? nil : Int(storedHTTPStatus) }
        set { storedHTTPStatus = newValue.map { Int16(clamping: max(0, $0)) } ?? -1 }
    }

    /// Setting the value it has already changes nothing (every finished visitor sets its
    /// message, most to nil): a new box would be made for the same strings.
    package var errorMessage: String? {
        get { rare?.value.errorMessage }
        set { if newValue != errorMessage { setRare { $0.errorMessage = newValue } } }
    }

    /// The final queueittoken, kept for validation by the runner. A credential: never log it.
    package var queueitToken: String? {
        get { rare?.value.queueitToken }
        set { if newValue != queueitToken { setRare { $0.queueitToken = newValue } } }
    }

    package var queueId: String? {
        get { packedQueueId?.string }
        set { packedQueueId = newValue.map(PackedText.init) }
    }

    /// Enqueue requests, over all runs of this visitor.
    package var attempts: Int {
        get { Int(storedCounts.attempts) }
        set { storedCounts.attempts = UInt32(clamping: newValue) }
    }

    /// Queue page GETs.
    package var polls: Int {
        get { Int(storedCounts.polls) }
        set { storedCounts.polls = UInt32(clamping: newValue) }
    }

    package var restarts: Int {
        get { Int(storedCounts.restarts) }
        set { storedCounts.restarts = UInt32(clamping: newValue) }
    }

    /// Every HTTP request sent (enqueue, queue page, protected API).
    package var requests: Int {
        get { Int(storedCounts.requests) }
        set { storedCounts.requests = UInt32(clamping: newValue) }
    }

    private mutating func setRare(_ change: (inout Rare) -> Void) {
        rare = .updating(rare, empty: Rare(), isEmpty: \.isEmpty, change)
    }

    package init(
        outcome: VisitorOutcome, redirectType: String? = nil, lastHTTPStatus: Int? = nil, errorMessage: String? = nil,
        attempts: Int = 0, polls: Int = 0, restarts: Int = 0, requests: Int = 0, queueId: String? = nil,
        queueitToken: String? = nil, marks: VisitorMarks
    ) {
        self.outcome = outcome
        self.marks = marks
        self.redirectType = redirectType
        self.lastHTTPStatus = lastHTTPStatus
        self.attempts = attempts
        self.polls = polls
        self.restarts = restarts
        self.requests = requests
        self.queueId = queueId
        self.errorMessage = errorMessage
        self.queueitToken = queueitToken
    }

    package static func == (lhs: VisitorResult, rhs: VisitorResult) -> Bool {
        lhs.outcome == rhs.outcome && lhs.redirectType == rhs.redirectType
            && lhs.storedHTTPStatus == rhs.storedHTTPStatus
            && lhs.attempts == rhs.attempts && lhs.polls == rhs.polls && lhs.restarts == rhs.restarts
            && lhs.requests == rhs.requests && lhs.packedQueueId == rhs.packedQueueId
            && lhs.errorMessage == rhs.errorMessage && lhs.queueitToken == rhs.queueitToken && lhs.marks == rhs.marks
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(outcome)
        hasher.combine(redirectType)
        hasher.combine(storedHTTPStatus)
        hasher.combine(attempts)
        hasher.combine(polls)
        hasher.combine(restarts)
        hasher.combine(requests)
        hasher.combine(packedQueueId)
        hasher.combine(errorMessage)
        hasher.combine(queueitToken)
        hasher.combine(marks)
    }
}
