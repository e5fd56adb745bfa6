import HTTPTypes

/// What a served room answered in one second, for the one line `queuesim serve` logs per
/// second at the default level: a room rehearsed with a real app or shards is otherwise
/// silent, and one line per request (debug) is too much to read at launch rates.
package struct RoomTraffic: Sendable, Equatable {
    package enum Route: String, Sendable, CaseIterable {
        case enqueue
        case queuePage = "queue page"
        case protectedAPI = "protected API"
        case other
    }

    /// What the room did with a request: an HTTP status, or a scripted fault without one.
    package enum Answer: Sendable, Hashable, Comparable {
        case status(Int)
        case reset
        case noAnswer
    }

    /// Requests per route and answer.
    package private(set) var counts: [Route: [Answer: Int]] = [:]

    package init() {}

    package var total: Int { counts.values.reduce(0) { $0 + $1.values.reduce(0, +) } }

    /// Counts one request by its path (the query left out) and the room's reply.
    package mutating func count(path: Substring, reply: RoomReply) {
        let answer: Answer
        switch reply {
        case .response(let head, _, _): answer = .status(head.status.code)
        case .reset: answer = .reset
        case .noAnswer: answer = .noAnswer
        }
        counts[Self.route(of: path), default: [:]][answer, default: 0] += 1
    }

    /// The route by the path's shape: cheap enough for every request, and the same words the
    /// docs use. (The service decides the real route; a wrong host or prefix is its 404.)
    static func route(of path: Substring) -> Route {
        if path.hasSuffix("/enqueue") { return .enqueue }
        if path.hasSuffix(WaitingRoomServer.protectedAPIPath) { return .protectedAPI }
        if path.contains("/queue/") { return .queuePage }
        return .other
    }

    /// `second 12: 130 requests: enqueue 90 (503 ×4), queue page 40; 1,234 enqueued so far`:
    /// the counts by route, with every answer that was not a success or a redirect.
    package func line(second: Int64, tickets: Int) -> String {
        let routes = Route.allCases.compactMap { route -> String? in
            guard let answers = counts[route], case let count = answers.values.reduce(0, +), count > 0 else {
                return nil
            }
            let unusual = answers.keys.sorted().compactMap { answer -> String? in
                let times = answers[answer] ?? 0
                switch answer {
                case .status(let code) where (200..<400).contains(code): return nil
                case .status(let code): return "\(code) ×\(times)"
                case .reset: return "reset ×\(times)"
                case .noAnswer: return "no answer ×\(times)"
                }
            }
            return "\(route.rawValue) \(count)" + (unusual.isEmpty ? "" : " (\(unusual.joined(separator: ", ")))")
        }
        return "second \(second): \(total) request\(total == 1 ? "" : "s"): \(routes.joined(separator: ", ")); "
            + "\(tickets) enqueued so far"
    }
}
