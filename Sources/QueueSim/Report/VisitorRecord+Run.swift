import QueueClientCore

extension VisitorRecord {
    /// The report row of a visitor that has its outcome; `eventId` is the waiting room id the
    /// visitor was configured with (its token's event id).
    init(
        index: Int, arrival: RunInstant, groupIndex: Int, result: VisitorResult, rows: RowContext, eventId: String,
        tokenJudge: TokenJudge
    ) {
        self.init(
            index: index, group: rows.groupNames[groupIndex], flow: rows.flowWords[groupIndex],
            arrival: arrival, start: result.marks.started, outcome: result.outcome,
            redirectType: result.redirectType, httpStatus: result.lastHTTPStatus, error: result.errorMessage,
            attempts: result.attempts, polls: result.polls, restarts: result.restarts, requests: result.requests,
            enqueueDecided: result.marks.enqueueDecided, queueEntered: result.marks.queueEntered,
            ended: result.marks.ended, packedQueueId: result.packedQueueId,
            token: tokenJudge.judge(result.queueitToken, eventId: eventId, at: result.marks.ended))
        if rows.hasComebacks { comebacks = 0 }
        if rows.mixesPlatforms {
            platform = rows.platform(ofVisitor: index, group: groupIndex).rawValue
        }
    }
}
