import Foundation
import QueueSim

/// What `queuesim serve` prints once it listens: the URLs a client must be configured with,
/// when the event starts, and two commands that try the room from this machine.
struct ServeBanner {
    let configuration: WaitingRoomConfiguration
    let host: String
    let port: Int
    /// Second 0 of the room's timeline.
    var start: RoomStart?
    /// The room's run id (its metrics' `run_id`; the shards' own with a common start).
    var runId: String?
    /// Served over TLS (`--tls-cert`/`--tls-key` or `waitingRoom.tls`): h2 or HTTP/1.1 by ALPN.
    var tls = false

    var text: String {
        let address = host.contains(":") ? "[\(host)]" : host
        let scheme = tls ? "https" : "http"
        let local = "\(scheme)://\(address):\(port)"
        let prefix = configuration.effectivePathPrefix.map { "/\($0)" } ?? ""
        let enqueuePath =
            "\(prefix)/api/mobileapp/queue/\(configuration.customerId)/\(configuration.waitingRoomId)/enqueue"
        var lines = [
            "queuesim serve: waiting room \(configuration.customerId)/\(configuration.waitingRoomId) listening on \(local)",
            "  enqueue (POST):  \(local)\(enqueuePath)",
            "  protected API:   \(local)/api/protected",
            "  status (GET):    \(local)\(RoomAnnouncement.statusPath) (second 0 and the room's settings; "
                + "every answer carries \(RoomAnnouncement.startHeader), which shards check)",
            "  room host:       \(configuration.roomHost) (the host in every URL the room hands out)",
            tls
                ? "  protocols:       h2 and http/1.1 over TLS (ALPN; no ALPN is http/1.1), "
                    + "at most \(WaitingRoomServer.h2MaxConcurrentStreams) streams per h2 connection"
                : "  protocols:       http/1.1 (plain; --tls-cert and --tls-key serve h2 and http/1.1 over TLS)",
            "  mode \(configuration.settings.mode.rawValue), outflow \(Int((configuration.settings.outflowPerSecond * 60).rounded()))/min"
                + configuration.settings.outflowChanges.map {
                    ", \(Int(($0.perSecond * 60).rounded()))/min from \(ScenarioUnits.describe($0.at)) after the start"
                }.joined(),
        ]
        if let start {
            lines.append(Self.startLine(start, eventStart: configuration.settings.eventStart))
            lines.append(Self.eventStartLine(start, eventStart: configuration.settings.eventStart))
        }
        if let runId { lines.append("  run id:          \(runId) (the metrics' run_id)") }
        if configuration.waitingRoomDomain != nil {
            lines.append(
                "  requests must carry Host: \(configuration.roomHost) (waitingRoomDomain); other hosts get 404")
        }
        lines += Self.recipe(
            roomHost: configuration.roomHost, connectTo: "\(address):\(port)", tls: tls, enqueuePath: enqueuePath,
            queuePagePath: "\(prefix)/queue/\(configuration.customerId)/\(configuration.waitingRoomId)")
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

    /// The event start as a clock time and a second of the timeline: a tester pointing a real
    /// app at the room needs to know when the pre-queue opens.
    static func eventStartLine(_ start: RoomStart, eventStart: Duration) -> String {
        let instant = start.startedAt.addingTimeInterval(eventStart.secondsDouble)
        guard eventStart > .zero else {
            return "  event start:     \(StartInstant.text(instant)), with second 0 (no pre-queue before it)"
        }
        let into = ScenarioUnits.describe(eventStart)
        return "  event start:     \(StartInstant.text(instant)), \(into) into the timeline "
            + "(until then enqueues wait in the pre-queue, shuffled at the event start)"
    }

    /// Two commands that try the room from this machine under its own host name: curl's
    /// `--connect-to` sends the request here while the Host header and URL stay the room's, as
    /// a phone's would. Over TLS `-k`: the certificate served need not name the room's host.
    static func recipe(
        roomHost: String, connectTo: String, tls: Bool = false, enqueuePath: String, queuePagePath: String
    ) -> [String] {
        let body = #"{"userId":"u1","userAgent":"curl","sdkVersion":"iOS-3.5.2"}"#
        let (scheme, insecure) = tls ? ("https", "k") : ("http", "")
        return [
            "  try it here:     enqueue, then load the queue page with the answer's QueueId:",
            "    curl -s\(insecure) --connect-to ::\(connectTo) -H 'Content-Type: application/json' -d '\(body)' \(scheme)://\(roomHost)\(enqueuePath)",
            "    curl -si\(insecure) --connect-to ::\(connectTo) '\(scheme)://\(roomHost)\(queuePagePath)?q=QUEUE_ID'",
        ]
    }
}
