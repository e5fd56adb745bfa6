import Foundation
import HTTPTypes
import QueueClientCore

/// Runs a scenario in virtual time: the run's `VisitorEngine` against the room service,
/// in-process, on the engine's calendar (`VirtualDriver`). Arrivals are pulled from the plan
/// lazily (one pending arrival at a time), so the calendar holds only events of visitors
/// already in flight.
package struct VirtualClockRunner: Sendable {
    package let run: PreparedRun
    package let progress: RunProgress
    package let stopSignal: RunStopSignal

    /// How many events between two looks at the stop signal and two progress publications.
    static let publishEvery = VirtualDriver<GuardrailMonitor>.publishEvery

    /// Skip queue-page polls whose answers the room can forecast exactly (see
    /// `PollShortcut`). On by default; tests turn it off to prove that the
    /// reports come out byte for byte the same without it.
    var pollShortcut = true

    /// Keep the run's figures (`RunReport`) and write no report files: a sweep's points.
    package var keepsFiguresOnly = false

    /// Record the rows on the engine's thread instead of a writer thread of their own: a sweep
    /// running a point on every core has no core to spare for a writer (`RowWriter`).
    package var recordsRowsOnTheEngineThread = false

    package init(run: PreparedRun, progress: RunProgress, stopSignal: RunStopSignal) {
        self.run = run
        self.progress = progress
        self.stopSignal = stopSignal
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
        let recorder =
            keepsFiguresOnly
            ? Recorder(figuresOnlyFor: run.runDescription)
            : try Recorder(directory: run.reportsDirectory, description: run.runDescription)
        // The engine (a slot for every visitor who was ever waiting at once), the calendar and
        // the room are gone before the reports are written: at a million visitors the slots
        // alone are hundreds of megabytes, and writing the reports is when the run peaks.
        let (end, guardrails, skippedPolls, room) = try simulate(into: recorder)
        var ending = RunEnding(
            end: end, startedAt: startedAt, endedAt: Date(),
            interrupted: stopSignal.wasInterrupted, terminated: stopSignal.wasTerminated)
        ending.guardrails = guardrails
        ending.room = room
        let report = try recorder.finish(ending)
        return (report, skippedPolls)
    }

    /// Hands the recorder the engine's request counts and the room's series, once every row
    /// is with it (the writer finished).
    private static func record(_ sent: SentRequests, roomSeries: RoomSeries, into recorder: Recorder) {
        let requestsPerSecond = sent.perSecond
        for second in 0..<requestsPerSecond.count where requestsPerSecond[second] != 0 {
            recorder.recordRequests(requestsPerSecond[second], inSecond: second)
        }
        recorder.recordAfterPassRequests(sent.afterPassPerSecond)
        if sent.keepsAnswers { recorder.recordAnswers(sent.answers) }
        recorder.recordRoomSeries(roomSeries)
    }

    /// Whether a visitor of the scenario may show its token to a connector (the room's
    /// protected API): the hybrid flow, and calls after passing.
    static func presentsTokens(_ scenario: Scenario) -> Bool {
        scenario.groups.contains { $0.flow == .protectedApi || $0.behaviour.afterPass != nil }
    }

    /// Runs the visitors to the end; every row is with the recorder when it returns.
    private func simulate(into recorder: Recorder) throws -> (
        end: RunInstant, guardrails: GuardrailResults?, skippedPolls: Int, room: RoomRuleCounts
    ) {
        var roomConfiguration = RoomSetup.configuration(
            for: run, epochUnixSeconds: WaitingRoomConfiguration.virtualEpochUnixSeconds)
        // A figures-only run shows no token and, without a protected API call, never has one
        // checked: its figures are the same with unsigned tokens.
        if keepsFiguresOnly && !Self.presentsTokens(run.scenario) { roomConfiguration.signsTokens = false }
        let room = WaitingRoomService(configuration: roomConfiguration)
        // A figures-only run writes no `token` column: no token is judged.
        let judge =
            keepsFiguresOnly
            ? TokenJudge.forFiguresOnly
            : TokenJudge(
                secretKey: roomConfiguration.settings.secretKey,
                epochUnixSeconds: WaitingRoomConfiguration.virtualEpochUnixSeconds)
        let rows = RowWriter(
            recorder: recorder, rows: run.rowContext, tokenJudge: judge,
            onTheCallersThread: recordsRowsOnTheEngineThread)
        // A sweep's points measure whole runs (docs/sweep.md): no guardrail stops one.
        let guardrails = keepsFiguresOnly ? nil : run.guardrailMonitor
        var driver = try VirtualDriver(
            input: run.driverInput(), plan: run.makePlan(), watch: guardrails, room: room, rows: rows,
            progress: progress, stopSignal: stopSignal)
        if !pollShortcut { driver.pollShortcut = nil }
        if keepsFiguresOnly { driver.engine.sent.keepsAnswers = false }
        do {
            try driver.run(until: run.scenario.run.duration.map { RunInstant.origin + $0 })
        } catch {
            rows.abandon()
            throw error
        }
        try rows.finish()
        Self.record(driver.engine.sent, roomSeries: driver.roomSeries, into: recorder)
        return (driver.now, driver.watch?.results, driver.skippedPolls, room.model.ruleCounts)
    }
}
