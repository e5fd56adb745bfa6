/// What a room served on its own (`queuesim serve`) says about itself, so a shard can check
/// that the room's timeline is its own before it sends a visitor (docs/distributed.md, "The
/// room's second 0"):
///
/// - the `Queuesim-Room-Start` header on every answer, second 0 as `2026-12-01T18:00:00.000Z`;
/// - `GET /queuesim/status`: the room's configuration as JSON (`RoomStatus`, built in `Run/`,
///   which knows the scenario; the room only serves the bytes).
///
/// A room inside a `run` announces nothing: the run is its only client and shares its clock.
package struct RoomAnnouncement: Sendable {
    /// The header every answer carries.
    package static let startHeader = "Queuesim-Room-Start"
    /// Where the room's configuration is served (any host, GET only).
    package static let statusPath = "/queuesim/status"

    /// Second 0 of the room's timeline, as the header says it.
    package let secondZero: String
    /// The body of `GET /queuesim/status` (JSON).
    package let status: [UInt8]

    package init(secondZero: String, status: [UInt8]) {
        self.secondZero = secondZero
        self.status = status
    }
}
