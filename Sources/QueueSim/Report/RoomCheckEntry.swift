/// `configuration.room_check` in `run.json` and `shard.json`: what a run against a base URL
/// learnt about the room's timeline before its first visitor (`RoomStartCheck`), so a report
/// says whether its waits were measured against a room that started with it.
extension RunConfiguration {
    package struct RoomCheckEntry: Sendable, Equatable, Codable {
        /// `aligned` (second 0 within the tolerance), `ignored` (off by more, run anyway with
        /// `--ignore-room-start`), `misaligned` (off by more, a whole run: warned) or
        /// `unchecked` (the endpoint did not say its second 0: not a `queuesim serve`).
        package var result: String
        package var endpoint: String
        /// The room's second 0 (its `Queuesim-Room-Start`), when it said one.
        package var roomSecondZero: String?
        /// This run's second 0: its common start, or when it started.
        package var runSecondZero: String
        /// The room's second 0 minus the run's (negative: the room started first).
        package var offsetMs: Int64?
        /// The room's run id (`GET /queuesim/status`), when it served one.
        package var roomRunId: String?
        /// Why the room could not be checked.
        package var reason: String?

        package init(
            result: String, endpoint: String, roomSecondZero: String?, runSecondZero: String, offsetMs: Int64?,
            roomRunId: String?, reason: String?
        ) {
            self.result = result
            self.endpoint = endpoint
            self.roomSecondZero = roomSecondZero
            self.runSecondZero = runSecondZero
            self.offsetMs = offsetMs
            self.roomRunId = roomRunId
            self.reason = reason
        }

        enum CodingKeys: String, CodingKey {
            case result, endpoint, reason
            case roomSecondZero = "room_second_zero"
            case runSecondZero = "run_second_zero"
            case offsetMs = "offset_ms"
            case roomRunId = "room_run_id"
        }
    }
}
