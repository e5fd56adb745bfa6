import NIOCore
import QueueClientCore

/// What the layers below read of a prepared run, each as a narrow value of their own: the clock
/// adapters a `DriverInput`, the row road a `RowContext`, the virtual clock a `RunWatch` (the
/// guardrails). Made here, in `Run/`, so nothing below names `PreparedRun`.
extension PreparedRun {
    /// What a clock adapter builds its engine from. `ownTemplates`: fresh group templates, for
    /// a thread that makes visitors of its own (`makeGroupTemplates`).
    func driverInput(ownTemplates: Bool = false) -> DriverInput {
        DriverInput(
            templates: ownTemplates ? makeGroupTemplates() : groupTemplates,
            behaviours: VisitorBehaviourBook(scenario: scenario),
            requestPacer: scenario.run.maxRequestRate.map { RequestPacer(perSecond: $0, shares: options.shard.count) },
            longestRequestTimeout: scenario.longestRequestTimeout,
            deadline: scenario.run.duration.map { .origin + $0 })
    }

    /// What a visitor's row reads of the run.
    var rowContext: RowContext {
        RowContext(
            groupNames: groupNames, flowWords: flowWords,
            eventIds: groupTemplates.indices.map { waitingRoomId(ofGroup: $0) }, groupPlatforms: groupPlatforms,
            seed: scenario.seed, mixesPlatforms: mixesPlatforms, hasComebacks: hasComebacks)
    }

    /// The scenario's windowed thresholds, judged on the run's clock; nil without any.
    var guardrailMonitor: GuardrailMonitor? {
        GuardrailMonitor(
            thresholds: scenario.thresholds, groupNames: groupNames,
            waitCap: .wait(maxWait: scenario.client.maxWait, runDuration: scenario.run.duration))
    }
}

extension RowWriter {
    /// A row writer for `run`'s visitors (`RowContext`).
    convenience init(
        recorder: Recorder, run: PreparedRun, tokenJudge: TokenJudge, capacity: Int = 8,
        progress: RunProgress? = nil, onTheCallersThread: Bool = false
    ) {
        self.init(
            recorder: recorder, rows: run.rowContext, tokenJudge: tokenJudge, capacity: capacity, progress: progress,
            onTheCallersThread: onTheCallersThread)
    }
}

extension LoopDriver {
    /// A driver of `run`'s visitors on one event loop, with group templates of its own; each
    /// finished visitor is told to `guardrails` before it goes to `rows`.
    convenience init(
        loop: any EventLoop, connections: any ConnectionFactory, part: Int, of parts: Int, run: PreparedRun,
        plan: VisitorPlan, quota: Int,
        endpoints: [LiveEndpoint], routes: LiveRoutes, sourceAddresses: [SocketAddress] = [], connectionLimit: Int,
        rows: RowBatch, clock: WallClock, progress: RunProgress, stopLine: LiveStopLine,
        guardrails: SharedGuardrailMonitor? = nil, pacer: SharedRequestPacer? = nil
    ) throws {
        var sink: any FinishedVisitorSink = rows
        if let guardrails { sink = GuardedRows(rows: rows, guardrails: guardrails) }
        try self.init(
            loop: loop, connections: connections, part: part, of: parts, input: run.driverInput(ownTemplates: true),
            plan: plan, quota: quota, endpoints: endpoints, routes: routes, sourceAddresses: sourceAddresses,
            connectionLimit: connectionLimit, rows: sink, clock: clock, progress: progress, stopLine: stopLine,
            pacer: pacer)
    }
}
