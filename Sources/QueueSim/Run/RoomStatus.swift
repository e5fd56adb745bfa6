import Foundation
import QueueClientCore

/// `GET /queuesim/status` of a `queuesim serve`: the room's second 0 and its configuration, so
/// a shard checks the room's timeline against its own start before its first visitor, and a
/// shard's report says which room it ran against (outflow, event start) where it would
/// otherwise know nothing of it (`run --endpoint` ignores the scenario's `waitingRoom:`).
///
/// Never a credential: `room` is `run.json`'s `configuration.room` (the secret key
/// `<redacted>`, invite codes counted, never listed).
package struct RoomStatus: Sendable, Equatable, Codable {
    package static let formatName = "queuesim-room/1"

    package var format: String
    package var queuesimVersion: String
    /// Second 0 of the room's timeline, `2026-12-01T18:00:00.000Z`.
    package var secondZero: String
    /// False when second 0 is when `serve` started (no `--start-at`, no `run.startAt`).
    package var commonStart: Bool
    /// The run id the room's metrics carry (`RunId.shared` with a common start).
    package var runId: String
    package var scenario: String
    package var scenarioSHA256: String
    package var seed: UInt64
    package var mode: String
    /// The outflow from second 0 with its unit, as a Queue-it admin types it: `5,000/min`.
    package var outflow: String
    package var outflowPerMinute: Double
    package var eventStartMs: Int64
    /// The event start as a clock time.
    package var eventStart: String
    /// Whether enqueues before the event start wait in a pre-queue (queue or safetynet mode
    /// with an event start after second 0).
    package var preQueue: Bool
    package var room: RunConfiguration.RoomEntry?

    enum CodingKeys: String, CodingKey {
        case format, scenario, seed, mode, outflow, room
        case queuesimVersion = "queuesim_version"
        case secondZero = "second_zero"
        case commonStart = "common_start"
        case runId = "run_id"
        case scenarioSHA256 = "scenario_sha256"
        case outflowPerMinute = "outflow_per_minute"
        case eventStartMs = "event_start_ms"
        case eventStart = "event_start"
        case preQueue = "pre_queue"
    }

    /// The status of the room `scenario` describes, its timeline starting at `secondZero`.
    package init(scenario: Scenario, secondZero: Date, commonStart: Bool, runId: String) {
        var served = scenario
        let settings = scenario.waitingRoom ?? WaitingRoomSettings()
        served.waitingRoom = settings
        format = Self.formatName
        queuesimVersion = QueueSimVersion.current
        self.secondZero = StartInstant.text(secondZero)
        self.commonStart = commonStart
        self.runId = runId
        self.scenario = scenario.name
        scenarioSHA256 = scenario.sourceSHA256
        seed = scenario.seed
        mode = settings.mode.rawValue
        outflowPerMinute = settings.outflowPerSecond * 60
        outflow = "\(ScenarioUnits.grouped(outflowPerMinute))/min"
        eventStartMs = settings.eventStart.wholeMilliseconds
        eventStart = StartInstant.text(secondZero.addingTimeInterval(settings.eventStart.secondsDouble))
        preQueue = settings.eventStart > .zero && (settings.mode == .queue || settings.mode == .safetynet)
        room = RunConfiguration(scenario: served, overrides: [:], plannedVisitors: nil, environment: [:]).room
    }

    package func json() throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(self)) + [UInt8(ascii: "\n")]
    }

    /// The status a room served, or nil when the bytes are not one (another server's page).
    package static func decode(_ bytes: [UInt8]) -> RoomStatus? {
        guard let status = try? JSONDecoder().decode(RoomStatus.self, from: Data(bytes)),
            status.format == formatName
        else { return nil }
        return status
    }

    /// What `queuesim serve` announces: the header's second 0 and this status as its page.
    package func announcement() throws -> RoomAnnouncement {
        RoomAnnouncement(secondZero: secondZero, status: try json())
    }
}
