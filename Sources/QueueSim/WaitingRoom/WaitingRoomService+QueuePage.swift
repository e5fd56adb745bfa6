import HTTPTypes
import QueueClientCore

/// The queue page, by the queue page protocol of the scenario contract: 200 with `Retry-After`
/// and a JSON body while waiting, 302 to `EventTargetUrl?queueittoken=…` at the visitor's turn.
/// A queue-page request's `q` and the ticket it names (nil: no `q`, or no such ticket), read
/// once per request for both the draws' visitor and the page.
struct QueuePageTicket {
    let queueId: String?
    let ticket: Int?

    init(_ request: RoomRequest, in room: WaitingRoomService) {
        queueId = request.queryValue("q")
        ticket = queueId.flatMap { id in room.inPlaceModel { $0.ticket(forQueueId: id) } }
    }
}

extension WaitingRoomService {
    /// The longest `Retry-After` the page asks for, whatever the expected wait.
    static let longestPollSeconds: Int64 = 30

    func queuePage(_ request: RoomRequest, _ lookedUp: QueuePageTicket, at now: RunInstant) -> (HTTPResponse, [UInt8]) {
        guard let queueId = lookedUp.queueId, let ticket = lookedUp.ticket else {
            return Self.jsonError(.notFound, "Unknown queue id")
        }
        switch model.queuePage(ticket: ticket, inviteCode: request.queryValue("code"), at: now) {
        case .refused(let reason):
            // As the room refuses an unknown enqueue key.
            return Self.jsonError(.forbidden, reason)
        case .preQueue(let startsIn):
            let body = RoomJSON.object([
                ("queueId", .string(queueId)),
                ("state", .string("prequeue")),
                ("secondsToStart", .double(startsIn.secondsDouble)),
            ])
            return (waitingHead(retryAfter: startsIn, body), body)
        case .waiting(let position):
            let body = RoomJSON.object([
                ("queueId", .string(queueId)),
                ("state", .string("queue")),
                ("position", .int(position.position)),
                ("usersAhead", .int(position.usersAhead)),
                ("expectedWaitSeconds", .double(position.expectedWait.secondsDouble)),
            ])
            // The same number as `expectedWaitSeconds`, rounded up and capped.
            let untilTurn = position.releaseAt == nil ? .seconds(Self.longestPollSeconds) : position.expectedWait
            return (waitingHead(retryAfter: untilTurn, body), body)
        case .yourTurn(_, let token):
            // Every visitor passes here: fill in the shared head's `Location` (fields stay in order).
            var head = Self.turnHead
            head.headerFields[.location] = Self.joined(tokenLocationPrefix, token)
            return (head, [])
        case .redirectLimitExceeded:
            return (errorPageRedirect(code: Self.usedQueueNumberCode), [])
        case .queueNumberExpired:
            return (errorPageRedirect(code: Self.expiredQueueNumberCode), [])
        }
    }

    /// Queue-it's "Used queue number" error (`er=5`): redirected too often.
    static let usedQueueNumberCode = "5"
    /// queuesim's own code for a queue number whose validity ran out (Queue-it's is not public).
    static let expiredQueueNumberCode = "expired"

    /// A `302` to the room's error page with `er=code`, as the queue page sends a lost turn.
    private func errorPageRedirect(code: String) -> HTTPResponse {
        var head = HTTPResponse(status: .found)
        head.headerFields[.location] =
            "\(configuration.roomBaseURL)/error?er=\(code)&c=\(configuration.customerId)&e=\(configuration.waitingRoomId)"
        head.headerFields[.cacheControl] = "no-cache, no-store, must-revalidate, max-age=0"
        return head
    }

    /// The error page's answer: `403` with what happened to the turn.
    func errorPage(_ request: RoomRequest) -> (HTTPResponse, [UInt8]) {
        if request.queryValue("er") == Self.expiredQueueNumberCode {
            let validity = configuration.settings.queueNumberValidity.map { " (\(ScenarioUnits.describe($0)))" } ?? ""
            return Self.jsonError(
                .forbidden, "Queue number expired: the turn came longer ago than the queue number validity\(validity)")
        }
        return Self.jsonError(.forbidden, "Used queue number: the return link was used too often (er=5)")
    }

    /// A turn's redirect with its `Location` still to fill in.
    private static let turnHead: HTTPResponse = {
        var head = HTTPResponse(status: .found)
        head.headerFields[.location] = ""
        head.headerFields[.cacheControl] = "no-cache, no-store, must-revalidate, max-age=0"
        return head
    }()

    /// `Retry-After` in whole seconds: the time until the visitor's turn rounded up, clamped
    /// to 1…`longestPollSeconds`.
    static func retryAfterSeconds(untilTurn: Duration) -> Int64 {
        retryAfterSeconds(untilTurnNanoseconds: untilTurn.wholeNanoseconds)
    }

    /// The same, from the nanoseconds to the turn (rounded toward zero).
    static func retryAfterSeconds(untilTurnNanoseconds: Int64) -> Int64 {
        let nanos = max(untilTurnNanoseconds, 0)
        return min(max((nanos + 999_999_999) / 1_000_000_000, 1), longestPollSeconds)
    }

    /// `Retry-After`: the whole seconds until the visitor's turn (rounded up), between 1 and
    /// `longestPollSeconds`, so a client that obeys it polls at most a second late.
    private func waitingHead(retryAfter untilTurn: Duration, _ body: [UInt8]) -> HTTPResponse {
        var head = Self.json(.ok, body)
        head.headerFields[.retryAfter] = String(Self.retryAfterSeconds(untilTurn: untilTurn))
        head.headerFields[.cacheControl] = "no-cache, no-store, must-revalidate, max-age=0"
        return head
    }
}
