import QueueClientCore

/// Judges the `token` column: `present`, `absent` or `invalid`. Never keeps the token.
///
/// Against the embedded room we know the secret, so a token must pass the KnownUser V3 check
/// (hash, event id, expiry) at the moment the visitor received it. Against a real endpoint the
/// secret is unknown: a token is `invalid` only when it does not even have a token's shape.
package struct TokenJudge: Sendable {
    private let secretKey: String?
    /// The key's HMAC pads, hashed once for the whole run.
    private let preparedKey: PreparedHMAC?
    private let epochUnixSeconds: Int64

    package init(secretKey: String?, epochUnixSeconds: Int64) {
        self.secretKey = secretKey
        self.preparedKey = secretKey.map(PreparedHMAC.init(key:))
        self.epochUnixSeconds = epochUnixSeconds
    }

    package func judge(_ token: String?, eventId: String, at instant: RunInstant) -> TokenState {
        guard let token, !token.isEmpty else { return .absent }
        guard let secretKey, let preparedKey else {
            return KnownUserTokenValidator.hasEventIdAndHash(token) ? .present : .invalid
        }
        let now = epochUnixSeconds + Int64(instant.sinceOrigin.components.seconds)
        let validator = KnownUserTokenValidator(secretKey: secretKey, preparedKey: preparedKey, eventId: eventId)
        return validator.check(token, nowUnixSeconds: now) == nil ? .present : .invalid
    }
}

extension VisitorRecord {
    /// The report row of a visitor the client core ran to an outcome.
    init(
        visitor: PlannedVisitor, result: VisitorResult, run: PreparedRun, configuration: VisitorConfiguration,
        tokenJudge: TokenJudge
    ) {
        self.init(
            index: visitor.index, arrival: visitor.arrival, groupIndex: visitor.groupIndex, result: result, run: run,
            eventId: configuration.group.waitingRoomId, tokenJudge: tokenJudge)
    }

    /// The same row from the parts of the planned visitor it uses; `eventId` is the waiting
    /// room id the visitor was configured with.
    init(
        index: Int, arrival: RunInstant, groupIndex: Int, result: VisitorResult, run: PreparedRun, eventId: String,
        tokenJudge: TokenJudge
    ) {
        self.init(
            index: index, group: run.groupNames[groupIndex], flow: run.flowWords[groupIndex],
            arrival: arrival, start: result.marks.started, outcome: result.outcome,
            redirectType: result.redirectType, httpStatus: result.lastHTTPStatus, error: result.errorMessage,
            attempts: result.attempts, polls: result.polls, restarts: result.restarts, requests: result.requests,
            enqueueDecided: result.marks.enqueueDecided, queueEntered: result.marks.queueEntered,
            ended: result.marks.ended, queueId: result.queueId,
            token: tokenJudge.judge(result.queueitToken, eventId: eventId, at: result.marks.ended))
    }

    /// The row of a visitor that arrived but never started (the run stopped while it waited
    /// for a free slot): `interrupted`, with no time spent.
    init(unstartedVisitor visitor: PlannedVisitor, run: PreparedRun, stoppedAt instant: RunInstant) {
        self.init(
            index: visitor.index, group: run.groupName(of: visitor), flow: run.flowWord(of: visitor),
            arrival: visitor.arrival, start: instant, outcome: .interrupted, ended: instant)
    }
}
