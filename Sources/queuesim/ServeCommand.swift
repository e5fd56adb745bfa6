import ArgumentParser
import Foundation
import Logging
import QueueClientCore
import QueueSim

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve a scenario's embedded waiting room, for a real app or another load tool.",
        usage: "queuesim serve [<options>] <file>",
        discussion: """
            Starts the scenario's waiting room (mode, outflow, event start, invite-only
            keys, faults on the timeline) as an HTTP server and prints the URLs to
            configure. Binds 127.0.0.1 unless --host says otherwise. Stops on
            SIGINT/SIGTERM.

            The room's timeline starts now, or at --start-at (default: run.startAt): give
            the room the shards' --start-at and its event start, faults and mode changes
            fall on the shards' seconds. Before that instant the room answers as before its
            event start: enqueues wait in the pre-queue (docs/distributed.md).

            Every answer carries Queuesim-Room-Start: <second 0>, and GET
            /queuesim/status answers the room's configuration as JSON (second 0, mode,
            outflow per minute, event start, pre-queue, the scenario's SHA-256, run id).
            A shard (run --shard K/N) reads it before its first visitor and exits 3 when
            the room's second 0 is more than 1 s from its own. With a common start the
            room's metrics carry the shards' run_id (derived from the scenario file, seed
            and start); without one, run_id="serve-<second 0 in Unix seconds>".

            The room answers by path; when the scenario has a waitingRoomDomain, requests
            must carry that Host (point the domain at this server, or send the Host
            header). The banner prints the event start and two curl commands that enqueue
            and load the queue page here, under the room's own host name (--connect-to).

            --tls-cert FILE --tls-key FILE (PEM; or the scenario's waitingRoom.tls)
            serve HTTPS: ALPN offers h2 and http/1.1, so a client that offers h2 speaks
            it and one that offers only http/1.1, or no ALPN, speaks HTTP/1.1. Every
            route answers the same over both. An h2 connection allows at most 100
            concurrent streams; a connection idle 60 s, or whose TLS handshake is not
            over in 60 s, is closed. A missing or unreadable file, or a key that is not
            the certificate's, is exit 2 before anything listens.

            While it serves, each second with requests logs one line on stderr: the
            second of the room's timeline, requests by route (enqueue, queue page,
            protected API) with any status that was not a success or a redirect, and
            the visitors enqueued so far.

            Examples:
              queuesim serve scenarios/launch.yaml
              queuesim serve scenarios/proxy.yaml --port 8080 --log-level debug
              queuesim serve scenarios/launch.yaml --port 8080 \\
                  --start-at 2026-12-01T18:00:00Z
              queuesim serve scenarios/launch.yaml --port 8443 \\
                  --tls-cert cert.pem --tls-key key.pem
              curl -X POST -H 'Content-Type: application/json' \\
                  -d '{"userId":"u1","userAgent":"curl","sdkVersion":"iOS-3.5.2"}' \\
                  http://127.0.0.1:8080/api/mobileapp/queue/acme/spring-launch/enqueue
            """
    )

    @Argument(help: "The scenario file (YAML); its endpoint must be embedded.")
    var file: String

    @Option(help: ArgumentHelp("Address to bind.", valueName: "ADDRESS"))
    var host: String = "127.0.0.1"

    @Option(help: ArgumentHelp("Port to bind (0: any free port).", valueName: "PORT"))
    var port: Int = 8080

    @Option(
        help:
            "Logs on stderr: info (the default), a line per second with requests; debug, also a line per request sent."
    )
    var logLevel: LogLevelArgument = .info

    @Option(
        name: .customLong("start-at"),
        help: ArgumentHelp(
            "The room's second 0 (event start, faults, mode changes), e.g. 2026-12-01T18:00:00Z: the shards' --start-at (default: run.startAt, else now).",
            valueName: "TIME"))
    var startAt: String?

    @Option(
        help: ArgumentHelp(
            "Also serve the room's Prometheus metrics (queue length, releases) at http://HOST:PORT/metrics, e.g. 127.0.0.1:9465.",
            valueName: "HOST:PORT"))
    var metricsListen: String?

    @Option(
        name: .customLong("tls-cert"),
        help: ArgumentHelp(
            "Serve HTTPS (h2 and http/1.1 by ALPN) with this PEM certificate (chain); needs --tls-key.",
            valueName: "FILE"))
    var tlsCert: String?

    @Option(
        name: .customLong("tls-key"),
        help: ArgumentHelp("The PEM private key of --tls-cert's certificate.", valueName: "FILE"))
    var tlsKey: String?

    func validate() throws {
        if (tlsCert == nil) != (tlsKey == nil) {
            throw ValidationError("--tls-cert and --tls-key go together: give both, or neither for plain HTTP")
        }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0...65535 (got \(port))") }
        if let metricsListen, MetricsSession.ListenAddress(metricsListen) == nil {
            throw ValidationError("--metrics-listen takes HOST:PORT, e.g. 127.0.0.1:9465 (got \"\(metricsListen)\")")
        }
        if let startAt, StartInstant.parse(startAt) == nil {
            throw ValidationError(
                "--start-at takes an ISO 8601 time with its zone, e.g. 2026-12-01T18:00:00Z (got \"\(startAt)\")")
        }
    }

    func run() async throws {
        EventLoopSizing.matchAffinityMask()
        let scenario = try loadScenarioOrExit(file)
        guard scenario.target.endpoint == .embedded else {
            StandardError.print("\(file): serve needs endpoint: embedded; this scenario targets a real endpoint")
            throw ExitCode(RunExitStatus.invalidInput.rawValue)
        }
        // Second 0 of the room's timeline: the shards' common start when there is one.
        let start = RoomStart(startAt: startAt.flatMap(StartInstant.parse) ?? scenario.run.startAt)
        let configuration: WaitingRoomConfiguration
        do {
            configuration = RoomSetup.configuration(
                for: scenario, epochUnixSeconds: start.epochUnixSeconds,
                knownEnqueueKeys: try RoomSetup.knownEnqueueKeys(of: scenario))
        } catch {
            // The keys' CSV reader says which file and why; anything else only in words.
            StandardError.print("\(file): \(ErrorWording.fallback(error))")
            throw ExitCode(RunExitStatus.invalidInput.rawValue)
        }
        if !Self.isLoopback(host) {
            StandardError.print(
                "queuesim serve: warning: --host \(host) is not a loopback address, so other machines may reach this room; it has no authentication: anyone who reaches it can enqueue, pass the queue and call /api/protected. Bind 127.0.0.1 (the default) unless that is what you want."
            )
        }
        let tls = try loadTLS(scenario)
        var logger = Logger(label: "queuesim.serve")
        logger.logLevel = logLevel.level
        let host = host
        let runId = Self.runId(scenario: scenario, start: start)
        let status = RoomStatus(
            scenario: scenario, secondZero: start.startedAt, commonStart: start.isCommonStart, runId: runId)
        let server = WaitingRoomServer(
            configuration: configuration, host: host, port: port, clock: start.clock, logger: logger,
            logsEverySecond: true, announcement: try status.announcement(), tls: tls,
            onServerRunning: { boundPort in
                var banner = ServeBanner(configuration: configuration, host: host, port: boundPort, start: start)
                banner.runId = runId
                banner.tls = tls != nil
                FileHandle.standardOutput.write(Data((banner.text + "\n").utf8))
            })
        let metricsServer = try Self.startMetrics(
            metricsListen.flatMap(MetricsSession.ListenAddress.init), server: server, scenario: scenario, runId: runId)
        defer { metricsServer?.stop() }
        do {
            try await server.run(gracefulShutdownSignals: [SIGINT, SIGTERM])
        } catch {
            StandardError.print(
                "queuesim serve: could not serve on \(host):\(port): \(LiveTransportErrors.listenWords(error, from: .hostAndPort))"
            )
            throw ExitCode(RunExitStatus.aborted.rawValue)
        }
        StandardError.print("queuesim serve: stopped")
    }

    /// The certificate and key to serve: the options', else the scenario's `waitingRoom.tls`
    /// (checked when it was loaded), else none. A pair that cannot be served is exit 2.
    func loadTLS(_ scenario: Scenario) throws -> RoomTLS? {
        let files =
            tlsCert.flatMap { cert in tlsKey.map { RoomTLSFiles(certificate: cert, key: $0) } }
            ?? scenario.waitingRoom?.tls
        guard let files else { return nil }
        do {
            return try RoomTLS.load(certificate: files.certificate, key: files.key)
        } catch {
            let source = tlsCert == nil ? "\(file): waitingRoom.tls" : "--tls-cert/--tls-key"
            StandardError.print("queuesim serve: \(source): \(error)")
            throw ExitCode(RunExitStatus.invalidInput.rawValue)
        }
    }

    /// The room's run id: with a common start, the shards' own (`RunId.shared` of the scenario
    /// file, its seed and second 0), so a dashboard shows the room and its shards as one run;
    /// without one, `serve-<second 0 in Unix seconds>` (no shard shares that start).
    static func runId(scenario: Scenario, start: RoomStart) -> String {
        guard start.isCommonStart else { return "serve-\(start.epochUnixSeconds)" }
        return RunId.shared(scenarioSHA256: scenario.sourceSHA256, seed: scenario.seed, startAt: start.startedAt)
    }

    /// `/metrics` with the room's series (`queuesim_room_queue_length`,
    /// `queuesim_room_released_total`), labelled with the room's `run_id` (`runId(scenario:start:)`).
    static func startMetrics(
        _ listen: MetricsSession.ListenAddress?, server: WaitingRoomServer, scenario: Scenario, runId: String
    ) throws -> MetricsServer? {
        guard let listen else { return nil }
        if !isLoopback(listen.host) {
            StandardError.print(
                "queuesim serve: warning: --metrics-listen \(listen) is not a loopback address, so other machines may read the room's metrics"
            )
        }
        let identity = MetricsSnapshot.Identity(
            runId: runId, scenario: scenario.name, shard: "0/1")
        do {
            let metrics = try MetricsServer(host: listen.host, port: listen.port) {
                var snapshot = MetricsSnapshot(identity: identity)
                let figures = server.queueFigures()
                snapshot.set(MetricCatalog.roomQueueLength, [], Double(figures.queueLength))
                snapshot.set(MetricCatalog.roomReleased, [], Double(figures.released))
                return MetricsExposition.prometheus(snapshot)
            }
            var bound = listen
            bound.port = metrics.port
            StandardError.print("queuesim serve: metrics at http://\(bound)/metrics")
            return metrics
        } catch {
            StandardError.print(
                "queuesim serve: cannot serve metrics on \(listen): \(LiveTransportErrors.listenWords(error, from: .metricsListen))"
            )
            throw ExitCode(RunExitStatus.aborted.rawValue)
        }
    }

    /// `localhost`, `127.0.0.0/8` and `::1` (with or without brackets): only this machine can
    /// connect. Anything else (`0.0.0.0`, `::`, a LAN address, a host name) may be reachable.
    static func isLoopback(_ host: String) -> Bool {
        var address = host.lowercased()
        if address.hasPrefix("["), address.hasSuffix("]") { address = String(address.dropFirst().dropLast()) }
        if address == "localhost" || address == "::1" || address == "0:0:0:0:0:0:0:1" { return true }
        let octets = address.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }
}

/// `--log-level trace|debug|info|notice|warning|error|critical`, swift-log's levels: a wrong
/// word is refused by the parser, which lists the words. (A type of our own rather than a
/// retroactive conformance of `Logger.Level`.)
enum LogLevelArgument: String, CaseIterable, ExpressibleByArgument {
    case trace, debug, info, notice, warning, error, critical

    var level: Logger.Level {
        switch self {
        case .trace: .trace
        case .debug: .debug
        case .info: .info
        case .notice: .notice
        case .warning: .warning
        case .error: .error
        case .critical: .critical
        }
    }
}
