import Foundation
import HTTPTypes
import Logging
import NIOCore
import NIOPosix
import QueueClientCore
import Synchronization

/// Runs a scenario on the wall clock: an open model in which visitors arrive on schedule,
/// whatever the responses do. One `LoopDriver` per event loop (one loop per core) owns the
/// visitors whose index is its number modulo the loops, as slots on a calendar driven by
/// NIO timers, with its own keep-alive connection pool. With `endpoint: embedded` the room
/// starts on 127.0.0.1 (a free port) for the run, on the same event loops.
package struct WallClockRunner: Sendable {
    package let run: PreparedRun
    package let progress: RunProgress
    package let stopSignal: RunStopSignal
    private let logger: Logger
    /// How hosts met mid-run are resolved (a test's stand-in resolver, a short deadline).
    var hostPolicy = MidRunHosts.Policy()

    package init(run: PreparedRun, progress: RunProgress, stopSignal: RunStopSignal, logger: Logger) {
        self.run = run
        self.progress = progress
        self.stopSignal = stopSignal
        self.logger = logger
    }

    /// Most HTTP connections a run keeps open, over all its loops (`DescriptorBudget`'s, which
    /// counts them before the run).
    package static let connectionPoolLimit = DescriptorBudget.sharedConnectionLimit

    /// How long after a second is over its guardrail windows are judged (wall clock).
    static let guardrailGrace: Duration = .milliseconds(250)

    /// Runs to the end (or the stop signal) and writes the reports. Throws `RunAbort` when the
    /// run cannot start; reports are written whenever a visitor could have arrived.
    package func execute() async throws -> RunReport {
        let scenario = run.scenario
        // The run's second 0. With the embedded room it is the room's too (its event start,
        // faults and modes are on the same timeline); with a real endpoint it starts after the
        // reachability check, so a slow check does not make the first visitors late. With a
        // common start (`--start-at`) it is that instant, even for a process that got there
        // late: every shard's visitors then arrive at the same planned instants.
        var (clock, startedAt, startLag) = Self.origin(commonStart: scenario.run.startAt)
        let epoch = Int64(startedAt.timeIntervalSince1970)
        let roomConfiguration = run.isEmbedded ? RoomSetup.configuration(for: run, epochUnixSeconds: epoch) : nil
        let room = roomConfiguration.map { EmbeddedRoomHandle(configuration: $0, clock: clock, logger: logger) }
        defer {
            progress.freezeRoom()
            room?.stop()
        }
        let routes = LiveRoutes(
            scenario: scenario, room: try await connectTarget(room: room), embedded: room != nil,
            builtInAPI: RoomSetup.builtInProtectedAPIURL(for: scenario))
        let caFile = scenario.target.caFile ?? room?.certificateFile
        let applicationProtocols = LiveTransport.applicationProtocols(for: scenario.client.http)
        let endpoints = try Self.resolve(routes, caFile: caFile, applicationProtocols: applicationProtocols)
        let transport = try makeTransport(embeddedRoom: room != nil, endpoints: endpoints)
        defer { transport.shutDown() }
        let midRunHosts = MidRunHosts(
            policy: hostPolicy, firstIndex: endpoints.count, caFile: caFile,
            applicationProtocols: applicationProtocols)
        // Before the loops shut down: a lookup still under way must not reach them after.
        defer { midRunHosts.close() }
        if routes.destinations.contains(where: { !$0.isEmbeddedRoom }) {
            try await Self.checkReachable(routes, endpoints: endpoints, loop: transport.loops[0])
            (clock, startedAt, startLag) = Self.origin(commonStart: scenario.run.startAt)
        }

        // Created only once the run can start: a run that aborts leaves no report folder debris.
        let recorder: Recorder
        do {
            recorder = try Recorder(directory: run.reportsDirectory, description: run.runDescription)
        } catch {
            throw RunAbort("cannot write reports to \(run.reportsDirectory): \(error)")
        }
        let judge = TokenJudge(secretKey: roomConfiguration?.settings.secretKey, epochUnixSeconds: epoch)
        var rows = run.rowContext
        // Where h2 may be agreed, each row says which HTTP versions answered its visitor.
        rows.recordsProtocols = routes.destinations.contains { $0.target.scheme == "https" }
        let writer = RowWriter(
            recorder: recorder, rows: rows, tokenJudge: judge, capacity: 16 * transport.loops.count,
            progress: progress)
        let cpuAtStart = ProcessCPUTime.now()
        let roomSampler = room.map { RoomSampler(room: $0, clock: clock) }
        let guardrails = SharedGuardrailMonitor(
            thresholds: scenario.thresholds, groupNames: run.groupNames,
            waitCap: .wait(maxWait: scenario.client.maxWait, runDuration: scenario.run.duration))
        let outcomes: [LoopDriver.Outcome]
        do {
            outcomes = try await runDrivers(
                on: transport.loops, endpoints: endpoints, routes: routes, midRunHosts: midRunHosts, writer: writer,
                clock: clock, guardrails: guardrails)
        } catch {
            roomSampler?.stop()
            writer.abandon()
            throw error
        }
        if let roomSampler { recorder.recordRoomSeries(await roomSampler.finish()) }
        try writer.finish()
        let cpuSeconds = ProcessCPUTime.now() - cpuAtStart
        let end = runEnd(clock: clock)
        var generator = Self.record(outcomes, in: recorder, loops: transport.loops.count, cpuSeconds: cpuSeconds)
        generator.connections = routes.summary(groupNames: run.groupNames)
        generator.protocolsByEndpoint = transport.protocols.figures(
            origins: routes.destinations.map(\.target.origin) + midRunHosts.origins)
        generator.tlsHandshakes = transport.protocols.handshakeFigures
        generator.setResolvedHosts(midRunHosts.resolvedHosts)
        var ending = RunEnding(
            end: end, startedAt: startedAt, endedAt: Date(), interrupted: stopSignal.wasInterrupted,
            terminated: stopSignal.wasTerminated, generator: generator, startLag: startLag,
            guardrails: judgeLastWindows(guardrails, end: end))
        ending.room = room?.ruleCounts()
        return try recorder.finish(ending)
    }

    /// Where the run's requests go: the embedded room, started now on loopback, or the base URL.
    private func connectTarget(room: EmbeddedRoomHandle?) async throws -> ConnectTarget {
        if let room {
            let target = ConnectTarget(scheme: room.scheme, host: "127.0.0.1", port: try await room.start())
            progress.attachRoom { room.queueFigures() }
            return target
        }
        guard case .baseURL(let scheme, let host, let port) = run.scenario.target.endpoint else {
            preconditionFailure("an endpoint is embedded or a base URL")
        }
        return ConnectTarget(scheme: scheme, host: host, port: port)
    }

    /// Each destination's endpoint, resolved once (a name that does not resolve aborts the run).
    /// - Parameter applicationProtocols: what TLS offers by ALPN (none: HTTP/1.1 only).
    static func resolve(_ routes: LiveRoutes, caFile: String?, applicationProtocols: [String] = []) throws
        -> [LiveEndpoint]
    {
        var endpoints: [LiveEndpoint] = []
        for (index, destination) in routes.destinations.enumerated() {
            do {
                endpoints.append(
                    try LiveEndpoint.resolve(
                        destination.target, serverName: destination.host, verifiesName: !destination.isEmbeddedRoom,
                        caFile: caFile, applicationProtocols: applicationProtocols))
            } catch {
                throw RunAbort(
                    "the \(describe(routes, endpoint: index)) \(destination.target.origin) is not reachable: \(error)")
            }
        }
        return endpoints
    }

    /// The run's transport (`LiveTransport.forRun`) on one loop per usable core, at most one
    /// per visitor of `run.concurrency`.
    private func makeTransport(embeddedRoom: Bool, endpoints: [LiveEndpoint]) throws -> LiveTransport {
        let sharedLoops = Array(MultiThreadedEventLoopGroup.singleton.makeIterator()).count
        let usable = min(ProcessCPUTime.usableCores() ?? sharedLoops, sharedLoops)
        let loopCount = max(1, min(usable, run.scenario.run.concurrency))
        do {
            return try LiveTransport.forRun(
                loops: loopCount, embeddedRoom: embeddedRoom, endpoints: endpoints, http: run.scenario.client.http)
        } catch {
            throw RunAbort("cannot start the event loops: \(LiveTransportErrors.plain(error))")
        }
    }

    /// Where the run ended on its clock: now, or earlier when `run.duration` or a guardrail
    /// stopped it.
    private func runEnd(clock: WallClock) -> RunInstant {
        var end = clock.now
        if let duration = run.scenario.run.duration, stopSignal.reason == .runEnded {
            end = min(end, .origin + duration)
        }
        if let stoppedAt = stopSignal.stoppedAt, stopSignal.reason == .guardrail {
            end = min(end, clock.instant(of: stoppedAt))
        }
        return end
    }

    /// Records what the drivers counted; the generator's report of them.
    private static func record(
        _ outcomes: [LoopDriver.Outcome], in recorder: Recorder, loops: Int, cpuSeconds: Double
    ) -> GeneratorReport {
        var health = GeneratorHealth()
        for (second, count) in mergedRequestCounts(outcomes) { recorder.recordRequests(count, inSecond: second) }
        for outcome in outcomes {
            health.merge(outcome.health)
            recorder.recordAnswers(outcome.answers)
            recorder.recordAfterPassRequests(outcome.afterPassPerSecond)
            recorder.recordConnections(outcome.connectionsPerSecond)
        }
        recorder.recordGeneratorLag(health.maxLoopLagPerSecond)
        var generator = health.report(
            loops: loops, cpuSeconds: cpuSeconds, visitors: recorder.recordedCount,
            requests: outcomes.reduce(0) { $0 + $1.requestsPerSecond.total })
        generator.connectionsOpened = outcomes.reduce(0) { $0 + $1.connectionsOpened }
        return generator
    }

    /// The guardrails' results: at the run's own end its last windows are judged on every row;
    /// stopped by a guardrail, the trip is told.
    private func judgeLastWindows(_ guardrails: SharedGuardrailMonitor?, end: RunInstant) -> GuardrailResults? {
        guard let guardrails else { return nil }
        if stopSignal.reason == nil || stopSignal.reason == .runEnded {
            _ = guardrails.finish(at: end)
            return guardrails.results
        }
        var results = guardrails.results
        if stopSignal.reason == .guardrail { results.trip = guardrails.trip(stoppedAt: end) }
        return results
    }

    /// The run's clock and its wall-clock start: now, or the common start when there is one
    /// (then also how late this process is for it; zero when it waited for it).
    static func origin(commonStart: Date?) -> (clock: WallClock, startedAt: Date, lag: Duration?) {
        guard let commonStart else { return (WallClock(), Date(), nil) }
        let (now, wallNow) = (ContinuousClock.now, Date())
        let late = Duration.nanoseconds(Int64((wallNow.timeIntervalSince(commonStart) * 1e9).rounded()))
        // Early by a few microseconds (the wait wakes up on its own clock) counts as on time.
        return (WallClock(origin: now - late), commonStart, max(.zero, late))
    }

    /// Starts one driver per loop and waits for all of them. The stop signal (SIGINT, or
    /// `run.duration`) stops every driver at the same instant.
    private func runDrivers(
        on loops: [LiveTransport.Loop], endpoints: [LiveEndpoint], routes: LiveRoutes, midRunHosts: MidRunHosts,
        writer: RowWriter, clock: WallClock,
        guardrails: SharedGuardrailMonitor?
    ) async throws -> [LoopDriver.Outcome] {
        let plan = try run.makePlan()
        let quotas = Self.split(run.scenario.run.concurrency, into: loops.count)
        let connectionLimits = Self.split(Self.connectionLimit(of: run, routes: routes), into: loops.count)
        // Shared connections are opened ahead of a burst; a phone opens none before it needs it.
        let warm = Self.split(routes.isAllShared ? Self.largestBurst(of: run) : 0, into: loops.count)
        let sourceAddresses = try (run.scenario.client.sourceAddresses?.addresses ?? []).map {
            try SocketAddress(ipAddress: $0, port: 0)
        }
        let stopLine = LiveStopLine()
        let pacer = run.scenario.run.maxRequestRate.map {
            SharedRequestPacer(RequestPacer(perSecond: $0, shares: run.options.shard.count))
        }
        let deadline = run.scenario.run.duration.map { RunInstant.origin + $0 }
        /// Where the run stops on its own clock: when it was told to (not when this code got to
        /// it), and never after `run.duration`.
        let stopInstant: @Sendable () -> RunInstant = { [clock, stopSignal] in
            var instant = clock.now
            if let stoppedAt = stopSignal.stoppedAt { instant = min(instant, clock.instant(of: stoppedAt)) }
            if stopSignal.reason == .runEnded, let deadline { instant = min(instant, deadline) }
            return instant
        }
        // The line first, before any driver starts: a stop that comes while the drivers are being
        // started must keep them from starting visitors that arrive after it.
        stopSignal.onStop { stopLine.draw(at: stopInstant()) }
        var drivers: [NIOLoopBound<LoopDriver>] = []
        var finished: [EventLoopFuture<LoopDriver.Outcome>] = []
        for (index, transportLoop) in loops.enumerated() {
            let (run, rows, progress, loop) = (run, writer.makeBatch(), progress, transportLoop.eventLoop)
            let started = try await loop.submit {
                let driver = try LoopDriver(
                    loop: loop, connections: transportLoop.makeConnectionFactory(), part: index, of: loops.count,
                    run: run, plan: plan, quota: quotas[index],
                    endpoints: endpoints, routes: routes, sourceAddresses: sourceAddresses,
                    connectionLimit: connectionLimits[index], rows: rows, clock: clock, progress: progress,
                    stopLine: stopLine, guardrails: guardrails, pacer: pacer)
                driver.midRunHosts = midRunHosts
                driver.tlsCarrier = transportLoop.tlsCarrier
                return (NIOLoopBound(driver, eventLoop: loop), driver.start(warmConnections: warm[index]))
            }.get()
            drivers.append(started.0)
            finished.append(started.1)
        }
        let deadlineTask = deadline.map { deadline in
            loops[0].eventLoop.scheduleTask(in: .nanoseconds(max(0, (deadline - clock.now).wholeNanoseconds))) {
                [stopSignal] in stopSignal.stop(.runEnded)
            }
        }
        defer { deadlineTask?.cancel() }
        let guardrailTask = guardrails.map { guardrails in
            // Each second is judged a quarter of a second after it is over: the loops hand their
            // rows over as they finish visitors, and a row a little late still counts in its second.
            loops[0].eventLoop.scheduleRepeatedTask(
                initialDelay: .nanoseconds(
                    max(0, (RunInstant.origin + Self.guardrailGrace - clock.now).wholeNanoseconds)),
                delay: .seconds(1)
            ) { [stopSignal] task in
                guard stopSignal.reason == nil else {
                    task.cancel()
                    return
                }
                if guardrails.advance(to: clock.now - Self.guardrailGrace) != nil { stopSignal.stop(.guardrail) }
            }
        }
        defer { guardrailTask?.cancel() }
        stopSignal.onStop { [stopSignal, drivers] in
            let reason = stopSignal.reason ?? .interrupted
            let instant = stopInstant()
            stopLine.draw(at: instant)
            for driver in drivers {
                driver.eventLoop.execute { driver.value.stop(reason: reason, at: instant) }
            }
        }
        var outcomes: [LoopDriver.Outcome] = []
        var firstError: (any Error)?
        for future in finished {
            do {
                outcomes.append(try await future.get())
            } catch {
                if firstError == nil {
                    firstError = error
                    for driver in drivers {
                        driver.eventLoop.execute { driver.value.abandon(error) }
                    }
                }
            }
        }
        if let firstError { throw firstError }
        return outcomes
    }

    /// The most visitors the plan sends at one instant (its largest `burst`, scaled like the
    /// plan). The pools open that many connections before the first arrival, so a burst
    /// measures the server's answers, not the generator opening hundreds of sockets (on both
    /// ends, with the embedded room) in the same millisecond.
    static func largestBurst(of run: PreparedRun) -> Int {
        let largest = run.scenario.arrivals.phases.reduce(0) { largest, phase in
            guard case .burst(let count) = phase else { return largest }
            return max(largest, count)
        }
        // A process shard (`--shard K/N`) sends its share of the burst (every N-th visitor of it).
        let shards = Double(run.options.shard.count)
        let scaled = Int((Double(largest) * run.summary.scale / shards).rounded(.up))
        return min(scaled, run.summary.visitorCount, run.scenario.run.concurrency, connectionPoolLimit)
    }

    /// The most connections the run's pools keep open together: the shared model's cap, or,
    /// when visitors own their connections, what the descriptor limit allows (the preflight
    /// has checked that the plan's peak fits in it).
    static func connectionLimit(of run: PreparedRun, routes: LiveRoutes) -> Int {
        let shared = min(run.scenario.run.concurrency, connectionPoolLimit)
        guard routes.hasDeviceGroups else { return shared }
        let perConnection = run.scenario.target.endpoint == .embedded ? 2 : 1
        let descriptors = DescriptorLimit.raiseToHardLimit() - DescriptorBudget.reserve
        return max(shared, descriptors / perConnection)
    }

    /// What a destination is, for messages: "endpoint" for the room's, "protected API", or
    /// the `target.hosts` entry of its host.
    static func describe(_ routes: LiveRoutes, endpoint index: Int) -> String {
        let index = UInt8(index)
        if routes.groups.contains(where: { $0.roomEndpoint == index }) || index == 0 { return "endpoint" }
        if routes.groups.contains(where: { $0.protectedApiEndpoint == index }) { return "protected API" }
        return "target.hosts entry \(routes.destinations[Int(index)].host)"
    }

    /// `total` in `parts` shares that differ by at most one and add up to `total`.
    static func split(_ total: Int, into parts: Int) -> [Int] {
        (0..<parts).map { total / parts + ($0 < total % parts ? 1 : 0) }
    }

    private static func mergedRequestCounts(_ outcomes: [LoopDriver.Outcome]) -> [(second: Int, count: Int)] {
        let seconds = outcomes.map(\.requestsPerSecond.count).max() ?? 0
        return (0..<seconds).compactMap { second in
            let count = outcomes.reduce(0) { $0 + $1.requestsPerSecond[second] }
            return count > 0 ? (second, count) : nil
        }
    }

    /// Before any visitor: a base URL that refuses connections, or whose certificate does not
    /// verify, is exit 3, not 10,000 `unavailable` rows. The room's (not embedded) answers a
    /// `GET /` through the engine's own client, as documented; every other destination (a
    /// protected API, a `target.hosts` entry) only takes a connection: a phone sends it no
    /// stray request, and a KnownUser connector would answer one with a redirect.
    static func checkReachable(
        _ routes: LiveRoutes, endpoints: [LiveEndpoint], loop: LiveTransport.Loop
    ) async throws {
        for (index, destination) in routes.destinations.enumerated() where !destination.isEmbeddedRoom {
            let what = describe(routes, endpoint: index)
            if index == 0 {
                try await checkReachable(destination, endpoint: endpoints[index], loop: loop, naming: what)
                continue
            }
            if case .failure(let error) = await LiveProbe.connect(to: endpoints[index], timeout: .seconds(10)) {
                throw unreachable(destination, naming: what, error: error)
            }
        }
    }

    /// The room's check: a `GET /` naming the room's host, through the engine's own client.
    static func checkReachable(
        _ destination: LiveRoutes.Destination, endpoint: LiveEndpoint, loop: LiveTransport.Loop,
        naming what: String = "endpoint"
    ) async throws {
        let target = destination.target
        var head = HTTPRequest(method: .get, scheme: target.scheme, authority: endpoint.authority, path: "/")
        head.headerFields[HTTPField.Name.userAgent] = "queuesim reachability check"
        let outcome = await LiveProbe.send(
            OutgoingRequest(head: head), to: endpoint, on: loop, timeout: .seconds(10))
        if case .failure(let error) = outcome {
            switch error {
            case .connectFailed, .tls, .timedOut:
                throw unreachable(destination, naming: what, error: error)
            case .connectionReset, .other:
                return
            }
        }
    }

    /// The abort of a destination that cannot be reached; a refused certificate says which name
    /// it was checked against.
    private static func unreachable(_ destination: LiveRoutes.Destination, naming what: String, error: TransportError)
        -> RunAbort
    {
        var message = "the \(what) \(destination.target.origin) is not reachable: \(error)"
        if case .tls = error, !destination.isEmbeddedRoom {
            message +=
                " (checked against \(destination.host), the host the requests name, as a phone checks it)"
        }
        return RunAbort(message)
    }
}
