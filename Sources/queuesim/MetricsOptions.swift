import ArgumentParser
import QueueClientCore
import QueueSim

/// `run --metrics-listen`, `--metrics-linger`, `--metrics-push` (docs/metrics.md).
struct MetricsOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Serve Prometheus metrics at http://HOST:PORT/metrics while a wall-clock run goes on (e.g. 127.0.0.1:9464; loopback unless you name another address).",
            valueName: "HOST:PORT"))
    var metricsListen: String?

    @Option(
        help: ArgumentHelp(
            "How long /metrics keeps serving the final values after the run, so the last scrape sees the totals (default 15s; Ctrl-C ends it).",
            valueName: "DURATION"))
    var metricsLinger: String = "15s"

    @Option(
        help: ArgumentHelp(
            "Push the metrics to a Prometheus remote-write URL: every 5 s and at the end on the wall clock; the whole run (metrics.prom) after a virtual one.",
            valueName: "URL"))
    var metricsPush: String?

    @Option(
        help: ArgumentHelp(
            "The most all pushing at the end of a run may take, 1s to 10m; Ctrl-C cancels the push at once.",
            valueName: "DURATION"))
    var metricsPushTimeout: String = "30s"

    func validate() throws {
        if let metricsListen, MetricsSession.ListenAddress(metricsListen) == nil {
            throw ValidationError("--metrics-listen takes HOST:PORT, e.g. 127.0.0.1:9464 (got \"\(metricsListen)\")")
        }
        if ScenarioUnits.duration(metricsLinger).map({ $0 >= .zero && $0 <= .seconds(3600) }) != true {
            throw ValidationError(
                "--metrics-linger takes a duration from 0s to 1h, e.g. 15s (got \"\(metricsLinger)\")")
        }
        if let metricsPush, case .failure(let problem) = PushURL.parse(metricsPush) {
            // The URL may carry a password: the message quotes it redacted.
            throw ValidationError(
                "--metrics-push takes an http:// or https:// URL, e.g. http://127.0.0.1:9090/api/v1/write; "
                    + "\"\(SecretRedaction.redact(metricsPush))\" \(problem)")
        }
        if pushTimeout == nil {
            throw ValidationError(
                "--metrics-push-timeout takes a duration from 1s to 10m, e.g. 30s (got \"\(metricsPushTimeout)\")")
        }
    }

    /// `--metrics-push-timeout`, nil outside 1s–10m.
    private var pushTimeout: Duration? {
        ScenarioUnits.duration(metricsPushTimeout).flatMap { $0 >= .seconds(1) && $0 <= .seconds(600) ? $0 : nil }
    }

    var settings: MetricsSession.Settings {
        MetricsSession.Settings(
            listen: metricsListen.flatMap(MetricsSession.ListenAddress.init),
            linger: ScenarioUnits.duration(metricsLinger) ?? .seconds(15),
            pushURL: metricsPush.flatMap { try? PushURL.parse($0).get() }, pushTimeout: pushTimeout ?? .seconds(30))
    }

    /// The session for this run, its listener bound; nil without metrics options. Exit 2 for
    /// `--metrics-listen` on the virtual clock, 3 when the address cannot be bound.
    func session(for prepared: PreparedRun, progress: RunProgress) throws -> MetricsSession? {
        let settings = settings
        guard !settings.isEmpty else { return nil }
        if let listen = settings.listen {
            if prepared.clock == .virtual {
                StandardError.print(
                    "queuesim run: --metrics-listen serves a wall-clock run while it goes on; a virtual run's seconds are simulated: every run writes metrics.prom, and --metrics-push sends it to a remote-write receiver"
                )
                throw ExitCode(RunExitStatus.invalidInput.rawValue)
            }
            if !ServeCommand.isLoopback(listen.host) {
                StandardError.print(
                    "queuesim run: warning: --metrics-listen \(listen) is not a loopback address, so other machines may read this run's metrics"
                )
            }
        }
        let description = prepared.runDescription
        let identity = MetricsSnapshot.Identity(
            runId: description.runId, scenario: description.scenarioName,
            shard: description.shard.map { "\($0.shard.index)/\($0.shard.count)" } ?? "0/1")
        let live =
            prepared.clock == .wall
            ? LiveMetrics(
                identity: identity, groupNames: description.groupNames, progress: progress, clock: WallClock())
            : nil
        do {
            let session = try MetricsSession(settings: settings, live: live) { sentence in
                StandardError.print("queuesim run: warning: \(SecretRedaction.redact(sentence))")
            }
            if let listen = settings.listen, let port = session.port {
                var bound = listen
                bound.port = port
                StandardError.print("queuesim run: metrics at http://\(bound)/metrics")
            }
            return session
        } catch {
            StandardError.print(
                "queuesim run: cannot serve metrics on \(settings.listen?.description ?? ""): \(LiveTransportErrors.listenWords(error, from: .metricsListen))"
            )
            throw ExitCode(RunExitStatus.aborted.rawValue)
        }
    }
}
