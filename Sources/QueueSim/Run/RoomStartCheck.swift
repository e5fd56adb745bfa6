import Foundation
import HTTPTypes
import NIOPosix
import QueueClientCore

/// Before the first visitor of a run against a base URL: does the room's timeline start when
/// this run's does? A `queuesim serve` says its second 0 (`RoomAnnouncement`); a room started
/// without the shards' `--start-at` has its event start, faults and mode changes at other
/// seconds than one process would, and the merged waits are not the scenario's (QA: a merged
/// wait p95 of 9.03 s against 16.1 s in one process, and a PASS). A shard is refused when the
/// two differ by more than `tolerance`, unless `--ignore-room-start`; an endpoint that is no
/// `queuesim serve` (no header, no status) is recorded as unchecked and the run goes on.
package struct RoomStartCheck: Sendable, Equatable {
    /// More than this between the room's second 0 and the run's is refused.
    package static let tolerance: Duration = .seconds(1)
    /// How long the room may take to answer `GET /queuesim/status`.
    package static let timeout: Duration = .seconds(5)

    package enum Finding: String, Sendable {
        case aligned, ignored, misaligned, unchecked
    }

    /// The endpoint, as run.json names it (`http://127.0.0.1:8080`).
    package var endpoint: String
    /// The run's second 0: its common start, or now.
    package var runSecondZero: Date
    /// The room's second 0, when it said one.
    package var roomSecondZero: Date?
    /// The room's configuration, when it served `/queuesim/status`.
    package var status: RoomStatus?
    /// Why the room's start could not be checked.
    package var uncheckedReason: String?
    /// `--ignore-room-start`.
    package var ignoresRoomStart = false

    /// The room's second 0 minus the run's (negative: the room started first).
    package var offset: Duration? {
        roomSecondZero.map { .milliseconds(Int64(($0.timeIntervalSince(runSecondZero) * 1000).rounded())) }
    }

    package var isMisaligned: Bool { offset.map { $0 > Self.tolerance || $0 < .zero - Self.tolerance } ?? false }

    /// What the run records; a whole run is never refused, so misaligned there means warned.
    package func finding(isShard: Bool) -> Finding {
        guard roomSecondZero != nil else { return .unchecked }
        guard isMisaligned else { return .aligned }
        return isShard && ignoresRoomStart ? .ignored : .misaligned
    }

    /// Asks the room at the scenario's base URL; nil for the embedded room.
    package static func read(
        scenario: Scenario, runSecondZero: Date? = nil, ignoresRoomStart: Bool = false
    ) async -> RoomStartCheck? {
        guard case .baseURL(let scheme, let host, let port) = scenario.target.endpoint else { return nil }
        let target = ConnectTarget(scheme: scheme, host: host, port: port)
        var check = RoomStartCheck(
            endpoint: Target.describe(scenario.target.endpoint), runSecondZero: runSecondZero ?? Date(),
            ignoresRoomStart: ignoresRoomStart)
        let endpoint: LiveEndpoint
        do {
            endpoint = try LiveEndpoint.resolve(target, caFile: scenario.target.caFile)
        } catch {
            check.uncheckedReason = "\(target.origin) is not reachable: \(error)"
            return check
        }
        var head = HTTPRequest(
            method: .get, scheme: target.scheme, authority: target.authority, path: RoomAnnouncement.statusPath)
        head.headerFields[HTTPField.Name.userAgent] = "queuesim room start check"
        let outcome = await LiveProbe.send(
            OutgoingRequest(head: head), to: endpoint, on: .swiftNIO(MultiThreadedEventLoopGroup.singleton.next()),
            timeout: timeout)
        // Without a common start the run starts now: its second 0 is when the room answered.
        if runSecondZero == nil { check.runSecondZero = Date() }
        check.take(outcome)
        return check
    }

    /// Reads the answer: the status page, else the header, else why there is neither.
    mutating func take(_ outcome: Result<IncomingResponse, TransportError>) {
        let response: IncomingResponse
        switch outcome {
        case .failure(let error):
            uncheckedReason = "\(RoomAnnouncement.statusPath) could not be read: \(error)"
            return
        case .success(let answer): response = answer
        }
        if response.status == .ok, let status = RoomStatus.decode(response.body) {
            self.status = status
            roomSecondZero = StartInstant.parse(status.secondZero)
        }
        if roomSecondZero == nil,
            let header = HTTPField.Name(RoomAnnouncement.startHeader).flatMap({ response.head.headerFields[$0] })
        {
            roomSecondZero = StartInstant.parse(header)
        }
        if roomSecondZero == nil {
            uncheckedReason =
                "no \(RoomAnnouncement.startHeader) header, and \(RoomAnnouncement.statusPath) answered "
                + "\(response.status.code): not a queuesim serve"
        }
    }

    /// `run.json`'s `configuration.room_check`.
    package func entry(isShard: Bool) -> RunConfiguration.RoomCheckEntry {
        RunConfiguration.RoomCheckEntry(
            result: finding(isShard: isShard).rawValue, endpoint: endpoint,
            roomSecondZero: roomSecondZero.map(StartInstant.text), runSecondZero: StartInstant.text(runSecondZero),
            offsetMs: offset?.wholeMilliseconds, roomRunId: status?.runId, reason: uncheckedReason)
    }

    /// `31.2 s before` / `2.0 s after`: where the room's second 0 is from the run's.
    package var offsetWords: String {
        guard let offset else { return "" }
        let seconds = String(format: "%.1f s", abs(offset.secondsDouble))
        return offset < .zero ? "\(seconds) before" : "\(seconds) after"
    }

    /// Why a shard does not run against this room (exit 3), or nil.
    package func refusal(isShard: Bool) -> String? {
        guard finding(isShard: isShard) == .misaligned, isShard, let roomSecondZero else { return nil }
        return "the room at \(endpoint) started its timeline at \(StartInstant.text(roomSecondZero)) "
            + "(its \(RoomAnnouncement.startHeader)), \(offsetWords) this shard's second 0 "
            + "\(StartInstant.text(runSecondZero)): its event start, faults and mode changes would fall at other "
            + "seconds than in one process, and the merged waits would not be the scenario's. Start `queuesim "
            + "serve` with the shards' --start-at (or run with --ignore-room-start to go on anyway); nothing ran"
    }

    /// The line on stderr for a run that goes on (nil when aligned).
    package func note(isShard: Bool) -> String? {
        switch finding(isShard: isShard) {
        case .aligned: return nil
        case .unchecked:
            return "note: could not check the room's second 0 at \(endpoint) (\(uncheckedReason ?? "no answer")); "
                + "going on (run.json: configuration.room_check)"
        case .ignored, .misaligned:
            let why = isShard ? "--ignore-room-start: going on" : "a whole run goes on"
            return "warning: the room at \(endpoint) started its timeline \(offsetWords) this run's second 0 "
                + "(\(StartInstant.text(runSecondZero))): its event start, faults and mode changes fall at other "
                + "seconds than in one process; \(why) (run.json: configuration.room_check)"
        }
    }
}
