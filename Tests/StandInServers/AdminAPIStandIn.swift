import Foundation
import Synchronization

/// A stand-in for Queue-it's Admin API v2 on loopback: serves `GET /2_0/event/{id}` and
/// `GET /2_0/event/{id}/queue/statistics/details/{type}?from=&to=` when the `Api-Key` header
/// holds the key, answers 401 for any other key, 404 for another event or path, and 429 (with
/// `Retry-After`) once for each type listed in `tooManyOnce`.
package final class AdminAPIStandIn: Sendable {
    package let key: String
    package let event: String
    package let eventJSON: String
    private let statistics: @Sendable (String) -> String
    private let tooManyOnce: Mutex<Set<String>>
    private let retryAfterSeconds: Int

    package init(
        key: String, event: String, eventJSON: String, tooManyOnce: Set<String> = [], retryAfterSeconds: Int = 7,
        statistics: @escaping @Sendable (String) -> String = AdminAPIStandIn.statistics(type:)
    ) {
        self.key = key
        self.event = event
        self.eventJSON = eventJSON
        self.statistics = statistics
        self.tooManyOnce = Mutex(tooManyOnce)
        self.retryAfterSeconds = retryAfterSeconds
    }

    package func answer(_ request: StandInRequest) -> StandInAnswer {
        guard request.method == "GET" else { return StandInAnswer(status: 405) }
        guard request.header("Api-Key") == key else {
            return StandInAnswer(
                status: 401, headers: [("Content-Type", "application/json")],
                body: #"{"ErrorCode":401,"ErrorText":"Invalid api key","HttpStatusCode":401}"#)
        }
        let parts = request.path.split(separator: "/").map(String.init)
        guard parts.count >= 3, parts[0] == "2_0", parts[1] == "event", parts[2] == event else {
            return StandInAnswer(status: 404, body: #"{"ErrorCode":404,"ErrorText":"Event not found"}"#)
        }
        if parts.count == 3 { return json(eventJSON) }
        guard parts.count == 7, parts[3...5] == ["queue", "statistics", "details"],
            request.uri.contains("from="), request.uri.contains("to=")
        else { return StandInAnswer(status: 404) }
        let type = parts[6]
        let limited = tooManyOnce.withLock { $0.remove(type) != nil }
        if limited {
            return StandInAnswer(status: 429, headers: [("Retry-After", "\(retryAfterSeconds)")], body: "slow down")
        }
        return json(statistics(type))
    }

    private func json(_ body: String) -> StandInAnswer {
        StandInAnswer(status: 200, headers: [("Content-Type", "application/json; charset=utf-8")], body: body)
    }

    /// Three minutes from 2026-05-01T09:00Z, one entry a minute, values as strings: the type's
    /// length plus the minute, so each column differs.
    package static func statistics(type: String) -> String {
        let sums = (0..<3).map { #"{"Sum":"\#(type.count + $0)","MinMinute":"0","MaxMinute":"0"}"# }
        return #"{"VersionTimestamp":"1","From":"2026-05-01T09:00:00.0000000Z","To":"2026-05-01T09:03:00.0000000Z","#
            + #""Interval":"1","Entries":[\#(sums.joined(separator: ","))],"SumOffset":"0"}"#
    }
}
