import Foundation
import HTTPTypes
import Logging
import QueueClientCore
import Synchronization

/// Why a run could not start or had to be abandoned (exit code 3).
public struct RunAbort: Error, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}

/// Runs a scenario on the wall clock: an open model in which visitors arrive on schedule,
/// whatever the responses do, each visitor a child task driving its `VisitorMachine` over real
/// HTTP. With `endpoint: embedded` the room starts on 127.0.0.1 (a free port) for the run.
public struct WallClockRunner: Sendable {
    public let run: PreparedRun
    public let status: LiveRunStatus
    public let stopSignal: RunStopSignal
    public let clock: WallClock
    private let logger: Logger

    public init(run: PreparedRun, status: LiveRunStatus, stopSignal: RunStopSignal, logger: Logger) {
        self.run = run
        self.status = status
        self.stopSignal = stopSignal
        self.logger = logger
        clock = WallClock()
    }

    /// Most HTTP connections the shared client keeps open. Visitors spend their time waiting
    /// between polls, so far fewer requests are in flight than visitors; every open loopback
    /// connection costs tens of KiB on each side (client and embedded room live in this
    /// process), and an uncapped pool took 20,000 queued visitors past 1 GiB. A request that
    /// finds every connection busy waits in the pool; under a launch burst that wait shows in
    /// `enqueue_ms` — measured in docs/benchmarks.md.
    public static let connectionPoolLimit = 1024

    /// Runs to the end (or the stop signal) and writes the reports. Throws `RunAbort` when the
    /// run cannot start; reports are written whenever a visitor could have arrived.
    public func execute() async throws -> RunReport {
        let startedAt = Date()
        let epoch = Int64(startedAt.timeIntervalSince1970)
        let scenario = run.scenario
        let roomConfiguration = run.isEmbedded ? RoomSetup.configuration(for: run, epochUnixSeconds: epoch) : nil
        let room = roomConfiguration.map { EmbeddedRoomHandle(configuration: $0, clock: clock, logger: logger) }
        let connectTarget: ConnectTarget
        if let room {
            connectTarget = ConnectTarget(scheme: "http", host: "127.0.0.1", port: try await room.start())
        } else {
            guard case .baseURL(let scheme, let host, let port) = scenario.target.endpoint else {
                preconditionFailure("an endpoint is embedded or a base URL")
            }
            connectTarget = ConnectTarget(scheme: scheme, host: host, port: port)
        }
        let transport = AsyncHTTPTransport(
            connectTo: connectTarget,
            maxConnectionsPerHost: min(scenario.run.concurrency, Self.connectionPoolLimit))
        defer { room?.stop() }
        do {
            if room == nil { try await Self.checkReachable(connectTarget, transport: transport) }
        } catch {
            try? await transport.shutdown()
            throw error
        }

        // Created only once the run can start: a run that aborts leaves no report folder debris.
        let recorder: SharedRecorder
        do {
            recorder = try SharedRecorder(directory: scenario.reportsDirectory, description: run.runDescription)
        } catch {
            try? await transport.shutdown()
            throw RunAbort("cannot write reports to \(scenario.reportsDirectory): \(error)")
        }
        let judge = TokenJudge(secretKey: roomConfiguration?.settings.secretKey, epochUnixSeconds: epoch)
        // When the stop came: visitors whose intended arrival is after it never arrived.
        let stoppedAt = Mutex<Instant?>(nil)
        let dispatch = Task {
            try await dispatchVisitors(
                transport: transport, recorder: recorder, tokenJudge: judge,
                stoppedAt: { stoppedAt.withLock { $0 } })
        }
        stopSignal.onStop { [clock] in
            stoppedAt.withLock { $0 = clock.now }
            dispatch.cancel()
        }
        let deadline = scenario.run.duration.map { Instant.origin + $0 }
        let deadlineWatch = deadline.map { deadline in
            Task { [clock, stopSignal] in
                try await clock.sleep(until: deadline)
                stopSignal.stop(.runEnded)
            }
        }
        let dispatchError: (any Error)?
        do {
            try await dispatch.value
            dispatchError = nil
        } catch {
            dispatchError = error
        }
        deadlineWatch?.cancel()
        var end = clock.now
        if let deadline, stopSignal.reason == .runEnded { end = min(end, deadline) }
        try? await transport.shutdown()
        if let dispatchError { throw dispatchError }
        return try recorder.finish(
            RunEnding(end: end, startedAt: startedAt, endedAt: Date(), interrupted: stopSignal.wasInterrupted))
    }

    /// Hands every planned visitor to a child task at its intended arrival, never more than
    /// `run.concurrency` at once; a visitor that finds no free slot waits, and its `start_ms`
    /// shows it. When the run stops, visitors that had arrived but not started get their rows.
    private func dispatchVisitors(
        transport: AsyncHTTPTransport, recorder: SharedRecorder, tokenJudge: TokenJudge,
        stoppedAt: @Sendable () -> Instant?
    ) async throws {
        var plan = try run.makePlan()
        let limit = max(1, run.scenario.run.concurrency)
        var unstarted: PlannedVisitor?
        try await withThrowingTaskGroup(of: Void.self) { group in
            var inFlight = 0
            while let visitor = try plan.next() {
                if visitor.arrival > clock.now {
                    do {
                        try await clock.sleep(until: visitor.arrival)
                    } catch {
                        unstarted = visitor
                        break
                    }
                }
                status.arrived()
                while inFlight >= limit, !Task.isCancelled {
                    try await group.next()
                    inFlight -= 1
                }
                if Task.isCancelled {
                    unstarted = visitor
                    break
                }
                inFlight += 1
                group.addTask {
                    try await runVisitor(visitor, transport: transport, recorder: recorder, tokenJudge: tokenJudge)
                }
            }
            try await group.waitForAll()
        }
        // Visitors whose intended arrival had come when the run stopped arrived: they get a row.
        let stoppedAt = stoppedAt() ?? clock.now
        while true {
            let next: PlannedVisitor?
            if let pending = unstarted {
                next = pending
                unstarted = nil
            } else {
                next = try plan.next()
                if let next, next.arrival <= stoppedAt { status.arrived() }
            }
            guard let visitor = next, visitor.arrival <= stoppedAt else { break }
            try recorder.record(VisitorRecord(unstartedVisitor: visitor, run: run, stoppedAt: stoppedAt))
            status.finished(.interrupted, enqueueMilliseconds: nil)
        }
    }

    private func runVisitor(
        _ visitor: PlannedVisitor, transport: AsyncHTTPTransport, recorder: SharedRecorder, tokenJudge: TokenJudge
    ) async throws {
        let configuration = run.visitorConfiguration(for: visitor)
        var machine = VisitorMachine(configuration: configuration)
        status.started()
        let result = await QueueClientCore.runVisitor(
            &machine, transport: transport, clock: clock,
            cancellationReason: { [stopSignal] in stopSignal.reason ?? .interrupted },
            onRequest: { [status] instant in
                recorder.recordRequest(at: instant)
                status.requestSent()
            },
            onPhaseChange: { [status] old, new in status.phaseChanged(from: old, to: new) })
        let record = VisitorRecord(
            visitor: visitor, result: result, run: run, configuration: configuration, tokenJudge: tokenJudge)
        try recorder.record(record)
        status.finished(result.outcome, enqueueMilliseconds: record.enqueueMilliseconds)
    }

    /// Before any visitor: a base URL that refuses connections is exit 3, not 10,000 `unavailable` rows.
    static func checkReachable(_ target: ConnectTarget, transport: AsyncHTTPTransport) async throws {
        var head = HTTPRequest(method: .get, scheme: target.scheme, authority: target.authority, path: "/")
        head.headerFields[HTTPField.Name.userAgent] = "queuesim reachability check"
        let outcome = await transport.execute(OutgoingRequest(head: head), timeout: .seconds(10))
        if case .failure(let error) = outcome {
            switch error {
            case .connectFailed, .tls, .timedOut:
                throw RunAbort("the endpoint \(target.origin) is not reachable: \(error)")
            case .connectionReset, .other:
                return
            }
        }
    }
}
