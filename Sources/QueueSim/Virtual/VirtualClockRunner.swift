import Foundation
import HTTPTypes
import QueueClientCore

/// Runs a scenario in virtual time: the same client-core machines against the same room
/// service, in-process, on a discrete-event loop. No task or thread per visitor: a visitor is
/// a `VisitorMachine` value in an array slot, and an event is `(time, sequence, slot, what)`.
///
/// Arrivals are pulled from the plan lazily (one pending arrival at a time), so the heap holds
/// only events of visitors already in flight.
package struct VirtualClockRunner: Sendable {
    package let run: PreparedRun
    package let status: LiveRunStatus
    package let stopSignal: RunStopSignal

    /// How many events between two looks at the stop signal and two progress publications.
    static let publishEvery = 16_384

    /// Skip queue-page polls whose answers the room can forecast exactly (see
    /// `Simulation.skipForecastPolls`). On by default; tests turn it off to prove that the
    /// reports come out byte for byte the same without it.
    var pollShortcut = true

    package init(run: PreparedRun, status: LiveRunStatus, stopSignal: RunStopSignal) {
        self.run = run
        self.status = status
        self.stopSignal = stopSignal
    }

    enum Event {
        /// `atTurn`: the poll shortcut stopped here because the visitor's turn has come, so
        /// this poll is not forecast (no need to ask the room again).
        case wake(slot: Int, atTurn: Bool = false)
        /// Indirect: a response is a large value, and the heap holds one event per visitor in
        /// flight (mostly `wake`s), so the heap's entries stay small.
        indirect case response(slot: Int, IncomingResponse)
        /// Indirect too: the error's payload would otherwise widen every heap entry.
        indirect case failure(slot: Int, TransportError)

        var slot: Int {
            switch self {
            case .wake(let slot, _), .response(let slot, _), .failure(let slot, _): slot
            }
        }
    }

    /// One visitor in flight: its machine and what its report row needs from the plan (the
    /// rest of the planned visitor — user id, enqueue key or token — is in the machine's
    /// configuration, so it is not kept twice).
    struct Slot: Sendable {
        var machine: VisitorMachine
        let index: Int
        let arrival: RunInstant
        let groupIndex: Int
    }

    package func execute() throws -> RunReport {
        try executeCountingSkippedPolls().report
    }

    /// `execute()` on a thread of its own, awaited without holding a thread of Swift's
    /// cooperative pool: the loop computes for seconds to minutes without a suspension point,
    /// and a blocked pool thread would starve the progress display and the signal handling
    /// (the pool has one thread per core).
    package func executeOnItsOwnThread() async throws -> RunReport {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread { [self] in
                continuation.resume(with: Result { try execute() })
            }
            thread.name = "queuesim-virtual"
            thread.start()
        }
    }

    /// Runs, and says how many queue-page polls the shortcut answered without the room.
    func executeCountingSkippedPolls() throws -> (report: RunReport, skippedPolls: Int) {
        let startedAt = Date()
        let scenario = run.scenario
        let recorder = try Recorder(directory: scenario.reportsDirectory, description: run.runDescription)
        let roomConfiguration = RoomSetup.configuration(
            for: run, epochUnixSeconds: WaitingRoomConfiguration.virtualEpochUnixSeconds)
        let room = WaitingRoomService(configuration: roomConfiguration)
        let judge = TokenJudge(
            secretKey: roomConfiguration.settings.secretKey,
            epochUnixSeconds: WaitingRoomConfiguration.virtualEpochUnixSeconds)
        var simulation = try Simulation(
            run: run, room: room, recorder: recorder, tokenJudge: judge, status: status, stopSignal: stopSignal)
        simulation.pollShortcut = pollShortcut
        do {
            try simulation.run(until: scenario.run.duration.map { RunInstant.origin + $0 })
        } catch {
            simulation.abandonRowWriter()
            throw error
        }
        try simulation.finishRowWriter()
        let report = try recorder.finish(
            RunEnding(
                end: simulation.loop.now, startedAt: startedAt, endedAt: Date(),
                interrupted: stopSignal.wasInterrupted, terminated: stopSignal.wasTerminated))
        return (report, simulation.skippedPolls)
    }
}
