import Foundation
import HTTPTypes
@_spi(Wire) import QueueClientCore

/// What the room does with one request: answer after `delay`, drop the connection, or never answer.
package enum RoomReply: Sendable {
    /// Answer with this head and body once `delay` (modelled latency plus fault latency) has passed.
    case response(HTTPResponse, body: [UInt8], delay: Duration)
    /// Close the connection without answering (a connection-reset fault).
    case reset(after: Duration)
    /// Never answer: the client's request timeout has to fire (a timeout fault).
    case noAnswer
}

/// The one implementation of the room's HTTP semantics — routing, host and prefix checks,
/// faults, JSON shapes, the queue page and the protected API — over `WaitingRoomModel`.
///
/// Not an actor and not thread-safe: the virtual-time driver calls it synchronously from its
/// loop; `WaitingRoomServer`'s handlers call it under a lock.
package final class WaitingRoomService {
    package internal(set) var model: WaitingRoomModel
    package let configuration: WaitingRoomConfiguration
    /// Requests handled so far.
    package private(set) var requestCount: UInt64 = 0
    let faults: FaultInjector
    /// Per-visitor draw keys, kept only when some answer depends on a draw (see `VisitorDraws`).
    private(set) var draws: VisitorDraws?
    /// The model's mode script, kept here too so poll forecasts need not copy the model.
    let modes: ModeTimeline
    private let protectedAPI: ProtectedAPIConnector
    /// The `Location` of a visitor's turn up to its token.
    let tokenLocationPrefix: String
    /// The enqueue answer's members after the queue URL up to the token's value, written once:
    /// `,"QueueUrlTTLInMinutes":30,"EventTargetUrl":"…","QueueitToken":` (see `enqueue`).
    private let enqueueAnswerTail: [UInt8]
    /// Entrances with a domain first: one without a domain answers on any host. Their hosts,
    /// prefixes and queue URLs are worked out once, not per request.
    private let entrancesInMatchingOrder: [MatchingEntrance]
    /// Whether any entrance has a proxy domain: only then does routing read a request's host.
    private let entrancesHaveHosts: Bool

    private struct MatchingEntrance {
        /// Nil: any host.
        let host: String?
        /// The path prefix's segments, as bytes (routing compares bytes).
        let prefix: [[UInt8]]
        /// This entrance's queue URL up to the queue id (`…/queue/{c}/{e}?q=`), JSON-escaped:
        /// the enqueue answer's `QueueUrl` is these bytes and the queue id's escapes.
        let escapedQueueURLPrefix: [UInt8]
    }

    package init(configuration: WaitingRoomConfiguration) {
        self.configuration = configuration
        model = WaitingRoomModel(configuration: configuration)
        faults = FaultInjector(settings: configuration.settings, seed: configuration.seed)
        draws = faults.drawsAreIrrelevant ? nil : VisitorDraws()
        modes = ModeTimeline(baseMode: configuration.settings.mode, faults: configuration.settings.faults)
        protectedAPI = ProtectedAPIConnector(configuration: configuration)
        let targetQuerySeparator = configuration.eventTargetURL.contains("?") ? "&" : "?"
        tokenLocationPrefix = "\(configuration.eventTargetURL)\(targetQuerySeparator)queueittoken="
        var tail = Array(#","QueueUrlTTLInMinutes":\#(Self.queueURLTTLMinutes),"EventTargetUrl":"#.utf8)
        JSONText.appendQuoted(configuration.eventTargetURL, to: &tail)
        tail.append(contentsOf: #","QueueitToken":"#.utf8)
        enqueueAnswerTail = tail
        let customerId = configuration.customerId
        let queuePath = "/queue/\(configuration.customerId)/\(configuration.waitingRoomId)?q="
        entrancesInMatchingOrder =
            (configuration.entrances.filter(\.hasDomain) + configuration.entrances.filter { !$0.hasDomain }).map {
                MatchingEntrance(
                    host: $0.hasDomain ? $0.host(customerId: customerId) : nil,
                    prefix: $0.effectivePathPrefix.map { $0.split(separator: "/").map { Array($0.utf8) } } ?? [],
                    escapedQueueURLPrefix: Self.jsonEscaped($0.baseURL(customerId: customerId) + queuePath))
            }
        entrancesHaveHosts = entrancesInMatchingOrder.contains { $0.host != nil }
    }

    /// `prefix + suffix` in one exactly sized string: the room writes one per visitor for the
    /// queue URL and one for the turn's `Location`, from prefixes worked out once.
    static func joined(_ prefix: String, _ suffix: String) -> String {
        var text = ""
        text.reserveCapacity(prefix.utf8.count + suffix.utf8.count)
        text += prefix
        text += suffix
        return text
    }

    /// The enqueue URL a client must call (public host names, as in the SDK).
    package var enqueueURL: String {
        "\(configuration.roomBaseURL)/api/mobileapp/queue/\(configuration.customerId)/\(configuration.waitingRoomId)/enqueue"
    }

    /// Counts requests a driver answered from `pollForecast` instead of handing them over, so
    /// `requestCount` ends where it would have, and the visitor's next request draws with the
    /// ordinal it would have had.
    package func countForecastRequests(_ count: Int, of forecast: QueuePagePollForecast) {
        requestCount += UInt64(count)
        if let visitor = forecast.draws?.visitor { draws?.skip(count, visitor: visitor) }
    }

    package func handle(_ request: HTTPRequest, body: [UInt8], at now: RunInstant) -> RoomReply {
        requestCount += 1
        let parsed = RoomRequest(request)
        guard let (route, entrance) = resolveRoute(parsed) else {
            // A path the room knows, asked with the wrong method, is 405 (with the right one).
            for method in [HTTPRequest.Method.get, .post] where method != parsed.method {
                guard resolveRoute(parsed, method: method) != nil else { continue }
                var (head, notAllowed) = Self.jsonError(.methodNotAllowed, "Method not allowed")
                head.headerFields[.allow] = method.rawValue
                return .response(head, body: notAllowed, delay: .zero)
            }
            let (head, notFound) = Self.jsonError(.notFound, "Not found")
            return .response(head, body: notFound, delay: .zero)
        }
        // The enqueue body is read once, for the draws' visitor and the enqueue's members.
        let enqueueBody: EnqueueBody? =
            if case .enqueue = route { EnqueueBody(body) } else { nil }
        // So is a queue-page request's queue id and its ticket, for the draws and the page.
        let queuePageTicket: QueuePageTicket? =
            if case .queuePage = route { QueuePageTicket(parsed, in: self) } else { nil }
        let (drawIndex, visitor) = drawIndex(
            for: route, parsed, userId: enqueueBody?.userId, queuePageTicket: queuePageTicket)
        let (verdict, delay) = faults.decide(endpoint: route.endpoint, drawIndex: drawIndex, at: now)
        switch verdict {
        case .reset: return .reset(after: delay)
        case .timeout: return .noAnswer
        case .status(let code):
            let status = HTTPResponse.Status(code: code)
            let body = RoomJSON.error("Injected fault: HTTP \(code)")
            return .response(Self.json(status, body), body: body, delay: delay)
        case .malformedBody:
            let body = Array("{\"QueueId\": \"broken".utf8)
            return .response(Self.json(.ok, body), body: body, delay: delay)
        case .navigate(let target):
            var head = HTTPResponse(status: .found)
            head.headerFields[.location] = "queueit://\(target.rawValue)"
            head.headerFields[.cacheControl] = "no-cache, no-store, must-revalidate, max-age=0"
            return .response(head, body: [], delay: delay)
        case .proceed:
            let (head, responseBody) = answer(
                route, parsed, entrance: entrance, enqueueBody: enqueueBody, queuePageTicket: queuePageTicket,
                visitor: visitor, at: now)
            return .response(head, body: responseBody, delay: delay)
        }
    }

    // MARK: Routing

    private enum Route {
        case enqueue(RoomIds)
        case queuePage(RoomIds)
        case errorPage
        case protectedAPI

        var endpoint: RoomEndpoint {
            switch self {
            case .enqueue: .enqueue
            case .queuePage, .errorPage: .queuePage
            case .protectedAPI: .protectedApi
            }
        }
    }

    /// The customer and room ids of a path: this room's, or another's (named as the path
    /// wrote them, for the 404's message; made only then).
    private enum RoomIds {
        case thisRoom
        case other(customer: String, room: String)
    }

    /// nil → 404 (wrong host for a proxy domain, missing prefix, unknown path). Entrances with
    /// a domain are tried first; one without a domain answers on any host.
    /// The entrance is nil for the protected API.
    private func resolveRoute(_ request: RoomRequest, method: HTTPRequest.Method? = nil) -> (Route, MatchingEntrance?)?
    {
        // The closure takes the method and host, not the request: capturing the request copied
        // it (its head's fields retained and released, 4.6 % of a virtual run).
        let method = method ?? request.method
        let host = entrancesHaveHosts ? request.host : nil
        return request.path.withSegments { segments in
            // The protected API stands for the customer's own origin: no room host or prefix applies.
            if segments.count == 2 && segments.is(0, "api") && segments.is(1, "protected") {
                return (.protectedAPI, nil)
            }
            for entrance in entrancesInMatchingOrder {
                if let entranceHost = entrance.host, host != entranceHost { continue }
                guard segments.hasPrefix(entrance.prefix) else { continue }
                if let route = route(segments, from: entrance.prefix.count, method: method) {
                    return (route, entrance)
                }
            }
            return nil
        }
    }

    /// The route of the segments from `at` (after any prefix).
    private func route(_ path: PathSegments, from at: Int, method: HTTPRequest.Method) -> Route? {
        switch (method, path.count - at) {
        case (.post, 6)
        where path.is(at, "api") && path.is(at + 1, "mobileapp") && path.is(at + 2, "queue")
            && path.is(at + 5, "enqueue"):
            return .enqueue(roomIds(path, customer: at + 3, room: at + 4))
        case (.get, 3) where path.is(at, "queue"):
            return .queuePage(roomIds(path, customer: at + 1, room: at + 2))
        case (.get, 1) where path.is(at, "error"):
            return .errorPage
        default:
            return nil
        }
    }

    private func roomIds(_ path: PathSegments, customer: Int, room: Int) -> RoomIds {
        let isThisRoom =
            Self.equalIgnoringCase(path[customer], configuration.customerId)
            && Self.equalIgnoringCase(path[room], configuration.waitingRoomId)
        return isThisRoom ? .thisRoom : .other(customer: path.text(customer), room: path.text(room))
    }

    /// Case-insensitive over ASCII letters, exact elsewhere: the ids are ASCII (the scenario
    /// refuses any other), so a path segment holding another byte is another room.
    static func equalIgnoringCase(_ segment: UnsafeBufferPointer<UInt8>, _ id: String) -> Bool {
        // The id read in place (`withUTF8` on a mutable copy retained and released it).
        ASCIIByte.withBytes(of: id) { id in
            guard segment.count == id.count else { return false }
            for offset in 0..<id.count where ASCIIByte.lowercased(segment[offset]) != ASCIIByte.lowercased(id[offset]) {
                return false
            }
            return true
        }
    }

    /// The index the request's fault and latency draws come from: the visitor's own request
    /// count when the room can tell who sent it (`VisitorDraws`), else the room's request count.
    /// `userId`: the enqueue body's, for an enqueue.
    private func drawIndex(
        for route: Route, _ request: RoomRequest, userId: String?, queuePageTicket: QueuePageTicket?
    ) -> (UInt64, visitor: UInt64?) {
        guard draws != nil else { return (requestCount, nil) }
        var visitor: UInt64?
        switch route {
        case .enqueue:
            visitor = userId.map(VisitorDraws.visitorKey(userId:))
        case .queuePage:
            visitor = queuePageTicket?.ticket.flatMap { draws?.visitor(ofTicket: $0) }
        case .protectedAPI:
            let token = request.queryValue("queueittoken")
            let cookie = request.cookie(AcceptedSessionCookie.name(eventId: configuration.waitingRoomId))
            let queueId =
                token.flatMap(VisitorDraws.queueId(inToken:))
                ?? cookie.flatMap { ConnectorEncoding.decode($0) ?? $0 }.flatMap(VisitorDraws.queueId(inCookie:))
            visitor = queueId.flatMap { drawVisitor(ofQueueId: String($0)) }
        case .errorPage:
            visitor = nil
        }
        guard let visitor else { return (requestCount, nil) }
        return (draws!.nextIndex(visitor: visitor), visitor)
    }

    /// Lends the model in place. A non-mutating method called on `model` straight from this
    /// class's property works on a copy of it (the call could reach the property through
    /// `self`), and copying the model retains and releases each of its arrays: a few percent
    /// of a virtual run, at two lookups per queue page request.
    func inPlaceModel<Result>(_ body: (inout WaitingRoomModel) -> Result) -> Result {
        body(&model)
    }

    private func drawVisitor(ofQueueId queueId: String) -> UInt64? {
        inPlaceModel { $0.ticket(forQueueId: queueId) }.flatMap { draws?.visitor(ofTicket: $0) }
    }

    private func answer(
        _ route: Route, _ request: RoomRequest, entrance: MatchingEntrance?, enqueueBody: EnqueueBody?,
        queuePageTicket: QueuePageTicket?, visitor: UInt64?,
        at now: RunInstant
    ) -> (
        HTTPResponse, [UInt8]
    ) {
        switch route {
        case .enqueue(let ids):
            if case .other(let customer, let room) = ids {
                return Self.jsonError(.notFound, "Unknown customer '\(customer)' or waiting room '\(room)'")
            }
            guard let entrance else { preconditionFailure("an enqueue route always has its entrance") }
            guard let enqueueBody else { preconditionFailure("an enqueue route always has its body read") }
            return enqueue(
                body: enqueueBody, escapedQueueURLPrefix: entrance.escapedQueueURLPrefix, visitor: visitor, at: now)
        case .queuePage(let ids):
            if case .other(let customer, let room) = ids {
                return Self.jsonError(.notFound, "Unknown customer '\(customer)' or waiting room '\(room)'")
            }
            guard let queuePageTicket else { preconditionFailure("a queue-page route always has its ticket looked up") }
            return queuePage(request, queuePageTicket, at: now)
        case .errorPage:
            // Queue-it's "Used queue number" page (`er=5`), or the expired queue number's.
            return errorPage(request)
        case .protectedAPI:
            return protectedAPI.handle(request, at: now)
        }
    }

    // MARK: Enqueue

    private func enqueue(body: EnqueueBody, escapedQueueURLPrefix: [UInt8], visitor: UInt64?, at now: RunInstant)
        -> (HTTPResponse, [UInt8])
    {
        guard body.isObject else { return Self.jsonError(.badRequest, "The request body is not a JSON object") }
        let (enqueueKey, enqueueToken) = (body.enqueueKey, body.enqueueToken)
        let decision = model.enqueue(enqueueKey: enqueueKey, enqueueToken: enqueueToken, at: now)
        let queueId: String
        let token: String?
        switch decision {
        case .refused(let reason):
            return Self.jsonError(.forbidden, reason)
        case .queued(let ticket, let id):
            queueId = id
            token = nil
            if let visitor { draws?.remember(ticket: ticket, visitor: visitor) }
        case .passed(let ticket, let id, _, let passToken):
            queueId = id
            token = passToken
            if let visitor { draws?.remember(ticket: ticket, visitor: visitor) }
        }
        // `RoomJSON.object` of QueueId, QueueUrl, QueueUrlTTLInMinutes, EventTargetUrl and
        // QueueitToken, with the members that are the same for every visitor written once.
        var response: [UInt8] = []
        response.reserveCapacity(
            escapedQueueURLPrefix.count + enqueueAnswerTail.count + 64 + 2 * queueId.utf8.count
                + (token?.utf8.count ?? 0))
        response.append(contentsOf: #"{"QueueId":"#.utf8)
        JSONText.appendQuoted(queueId, to: &response)
        response.append(contentsOf: #","QueueUrl":""#.utf8)
        response.append(contentsOf: escapedQueueURLPrefix)
        JSONText.appendEscaped(queueId, to: &response)
        response.append(UInt8(ascii: "\""))
        response.append(contentsOf: enqueueAnswerTail)
        if let token {
            JSONText.appendQuoted(token, to: &response)
        } else {
            response.append(contentsOf: "null".utf8)
        }
        response.append(UInt8(ascii: "}"))
        return (Self.json(.ok, response), response)
    }

    /// `text`'s JSON escapes without quotes: an entrance's queue-URL prefix, written once.
    static func jsonEscaped(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        JSONText.appendEscaped(text, to: &bytes)
        return bytes
    }

    /// How long the handed-out queue URL stays usable (read by the Android SDK only).
    static let queueURLTTLMinutes = 30

    // MARK: Helpers

    static func json(_ status: HTTPResponse.Status, _ body: [UInt8]) -> HTTPResponse {
        // Every enqueue answers 200 with this head: share one (copies share its storage).
        // Status `==` ignores the reason phrase; an injected `200` has none and keeps it that way.
        if status.code == 200 && status.reasonPhrase == HTTPResponse.Status.ok.reasonPhrase { return okJSONHead }
        var head = HTTPResponse(status: status)
        head.headerFields[.contentType] = "application/json; charset=utf-8"
        return head
    }

    private static let okJSONHead: HTTPResponse = {
        var head = HTTPResponse(status: .ok)
        head.headerFields[.contentType] = "application/json; charset=utf-8"
        return head
    }()

    static func jsonError(_ status: HTTPResponse.Status, _ message: String) -> (HTTPResponse, [UInt8]) {
        let body = RoomJSON.error(message)
        return (json(status, body), body)
    }
}
