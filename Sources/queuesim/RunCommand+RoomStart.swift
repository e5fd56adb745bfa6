import ArgumentParser
import QueueSim

extension RunCommand {
    /// Before the first visitor (and before waiting for the common start, so a pod is refused
    /// at once rather than minutes later): reads the second 0 of the room at a base URL. A
    /// shard whose room started more than a second away from its own second 0 is exit 3 unless
    /// `--ignore-room-start`; a whole run is warned; an endpoint that is not a `queuesim serve`
    /// is noted as unchecked. Returns the run with what was learnt, for its reports.
    static func checkRoomStart(_ prepared: PreparedRun, ignoring: Bool, quiet: Bool) async throws -> PreparedRun {
        guard prepared.clock == .wall,
            let check = await RoomStartCheck.read(
                scenario: prepared.scenario, runSecondZero: prepared.scenario.run.startAt, ignoresRoomStart: ignoring)
        else { return prepared }
        let shard = prepared.options.shard
        let who = shard.isWhole ? "queuesim run" : "queuesim run (shard \(shard))"
        if let refusal = check.refusal(isShard: !shard.isWhole) {
            StandardError.print("\(who): \(SecretRedaction.redact(refusal))")
            throw ExitCode(RunExitStatus.aborted.rawValue)
        }
        let finding = check.finding(isShard: !shard.isWhole)
        if let note = check.note(isShard: !shard.isWhole), !(quiet && finding == .unchecked) {
            StandardError.print("\(who): \(SecretRedaction.redact(note))")
        }
        var checked = prepared
        checked.roomCheck = check
        return checked
    }
}
