import Foundation
import QueueSim

/// What `queuesim serve` prints once it listens: the URLs a client must be configured with.
struct ServeBanner {
    let configuration: WaitingRoomConfiguration
    let host: String
    let port: Int
    /// Second 0 of the room's timeline.
    var start: RoomStart?

    var text: String {
        let local = "http://\(host.contains(":") ? "[\(host)]" : host):\(port)"
        let prefix = configuration.effectivePathPrefix.map { "/\($0)" } ?? ""
        let enqueuePath =
            "\(prefix)/api/mobileapp/queue/\(configuration.customerId)/\(configuration.waitingRoomId)/enqueue"
        var lines = [
            "queuesim serve: waiting room \(configuration.customerId)/\(configuration.waitingRoomId) listening on \(local)",
            "  enqueue (POST):  \(local)\(enqueuePath)",
            "  protected API:   \(local)/api/protected",
            "  room host:       \(configuration.roomHost) (the host in every URL the room hands out)",
            "  mode \(configuration.settings.mode.rawValue), outflow \(Int((configuration.settings.outflowPerSecond * 60).rounded()))/min",
        ]
        if let start {
            lines.append(Self.startLine(start, eventStart: configuration.settings.eventStart))
        }
        if configuration.waitingRoomDomain != nil {
            lines.append(
                "  requests must carry Host: \(configuration.roomHost) (waitingRoomDomain); other hosts get 404")
        }
        lines.append("  stop with Ctrl-C")
        return lines.joined(separator: "\n")
    }

    /// Where the room's timeline starts, so whoever lines shards up with it can check the
    /// instant: a room whose second 0 is not the shards' runs its event start at other seconds.
    static func startLine(_ start: RoomStart, eventStart: Duration, wallNow: Date = Date()) -> String {
        let when = StartInstant.text(start.startedAt)
        guard start.isCommonStart else {
            return
                "  second 0:        now, \(when) (no --start-at or run.startAt: the timeline starts with this process)"
        }
        let ahead = start.startedAt.timeIntervalSince(wallNow)
        let event = eventStart > .zero ? "; event start at second \(ScenarioUnits.describe(eventStart))" : ""
        guard ahead > 0 else {
            return "  second 0:        \(when) (the common start, \(String(format: "%.1f", -ahead)) s ago\(event))"
        }
        return "  second 0:        \(when) (the common start, in \(String(format: "%.1f", ahead)) s\(event); "
            + "until then the room answers as before its event start)"
    }
}
