import Foundation
import StandInServers
import Testing

/// Issue 31: `run --metrics-listen` scraped by a real Prometheus while a wall-clock run goes
/// on, and a virtual run's `--metrics-push` landing in one; either way the totals Prometheus
/// holds equal visitors.csv's.
@Suite("queuesim run: metrics for Prometheus", .serialized)
struct MetricsCommandTests {
    static let wallScenario = """
        version: 1
        name: metrics-wall
        seed: 3
        clock: wall
        target: { customerId: acme, waitingRoomId: launch, endpoint: embedded }
        client: { pollInterval: 1s, maxWait: 1m }
        arrivals:
          phases:
            - { duration: 3s, rate: 20 }
        visitors:
          - { name: app, weight: 3 }
          - { name: web, weight: 1 }
        waitingRoom:
          eventStart: 0s
          outflow: 900/min
          faults:
            - { from: 1s, to: 2s, endpoint: enqueue, status: 503, rate: 0.3 }
        """

    static let virtualScenario = """
        version: 1
        name: metrics-virtual
        seed: 5
        clock: virtual
        target: { customerId: acme, waitingRoomId: launch, endpoint: embedded }
        client: { pollInterval: 5s, maxWait: 4m }
        arrivals:
          phases:
            - { burst: 300 }
        visitors:
          - { name: app }
        waitingRoom:
          outflow: 60/min
        """

    /// visitors.csv's outcome counts (all groups).
    private static func outcomeCounts(_ directory: String) throws -> [String: Double] {
        let (header, rows) = try RunCommandProcess.rows(directory, "visitors.csv")
        let column = try #require(header.firstIndex(of: "outcome"))
        var counts: [String: Double] = [:]
        for row in rows { counts[row[column], default: 0] += 1 }
        return counts
    }

    private static func runId(_ directory: String) throws -> String {
        let data = try Data(contentsOf: URL(fileURLWithPath: directory + "/run.json"))
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return try #require(json["run_id"] as? String)
    }

    private static func write(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("metrics-\(UUID().uuidString).yaml")
            .path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    private static func byOutcome(_ result: [([String: String], Double)]) -> [String: Double] {
        Dictionary(result.compactMap { labels, value in labels["outcome"].map { ($0, value) } }, uniquingKeysWith: +)
    }

    @Test(.enabled(if: PrometheusProcess.isInstalled, Comment(rawValue: PrometheusProcess.missing)))
    func aWallClockRunIsScrapedAndItsTotalsEqualVisitorsCSV() async throws {
        let port = try PrometheusProcess.freePort()
        let prometheus = try PrometheusProcess(scrape: "127.0.0.1:\(port)")
        defer { prometheus.stop() }
        let file = try Self.write(Self.wallScenario)
        let out = RunCommandProcess.reportDirectory()
        // The linger is long enough for a Prometheus on a busy machine to scrape the totals.
        async let running = QueueSimProcess.runOffPool(
            [
                "run", file, "--out", out, "--no-progress", "--metrics-listen", "127.0.0.1:\(port)",
                "--metrics-linger", "10s",
            ], limit: .seconds(60))
        // A scrape of our own while it runs, for Prometheus's own checker.
        var scrape = ""
        for _ in 0..<100 where !scrape.contains("queuesim_visitors_total") {
            scrape = PrometheusTools.curl(["-f", "http://127.0.0.1:\(port)/metrics"])
            try await Task.sleep(for: .milliseconds(100))
        }
        let result = try await running
        #expect(result.status == 0, "\(result.stderr)")
        #expect(scrape.contains("queuesim_in_queue{"))
        let check = PrometheusTools.checkMetrics(scrape)
        #expect(check.status == 0, "\(check.said)")
        #expect(result.stderr.contains("queuesim run: metrics at http://127.0.0.1:\(port)/metrics"))
        let expected = try Self.outcomeCounts(out)
        #expect(expected["passed", default: 0] > 0)
        let runId = try Self.runId(out)
        // The run has ended, so the next scrape fails and Prometheus marks every series of the
        // target stale: an instant query then finds nothing. A range selector skips staleness
        // markers, so `last_over_time` reads the last scraped value however late we ask.
        let run = #"{run_id="\#(runId)"}"#
        func last(_ name: String) -> String { "last_over_time(\(name)\(run)[10m])" }
        let query = "sum by (outcome) (\(last("queuesim_visitors_total")))"
        let stored = Self.byOutcome(try prometheus.waitFor(query) { Self.byOutcome($0) == expected })
        #expect(stored == expected)
        // The arrivals and the room's series were scraped too.
        let arrivals = try prometheus.query("sum(\(last("queuesim_arrivals_total")))")
        #expect(arrivals.first?.1 == expected.values.reduce(0, +))
        #expect(try !prometheus.query(last("queuesim_room_released_total")).isEmpty)
        // metrics.prom has the room's queue and the generator's lag too, second by second.
        let promFile = try String(contentsOfFile: out + "/metrics.prom", encoding: .utf8)
        for name in ["queuesim_room_queue_length{", "queuesim_room_released_total{", "queuesim_generator_lag_seconds{"]
        {
            #expect(promFile.contains(name), "\(name)")
        }
    }

    @Test(.enabled(if: PrometheusProcess.isInstalled, Comment(rawValue: PrometheusProcess.missing)))
    func aVirtualRunsPushLandsWithTheTotalsOfVisitorsCSV() async throws {
        let prometheus = try PrometheusProcess()
        defer { prometheus.stop() }
        let file = try Self.write(Self.virtualScenario)
        let out = RunCommandProcess.reportDirectory()
        let result = try await QueueSimProcess.runOffPool(
            ["run", file, "--out", out, "--quiet", "--metrics-push", prometheus.remoteWriteURL], limit: .seconds(60))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("push"), "\(result.stderr)")
        let expected = try Self.outcomeCounts(out)
        #expect(expected.count >= 2, "the scenario ends some visitors passed and some queued: \(expected)")
        let runId = try Self.runId(out)
        let query = #"sum by (outcome) (queuesim_visitors_total{run_id="\#(runId)"})"#
        let stored = Self.byOutcome(try prometheus.waitFor(query) { Self.byOutcome($0) == expected })
        #expect(stored == expected)
    }

    @Test func listeningIsForWallClockRuns() throws {
        let file = try Self.write(Self.virtualScenario)
        let result = try QueueSimProcess.run(
            ["run", file, "--out", RunCommandProcess.reportDirectory(), "--metrics-listen", "127.0.0.1:0"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("--metrics-listen serves a wall-clock run"))
    }

    @Test func badMetricsOptionsAreUsageErrors() throws {
        let file = try Self.write(Self.virtualScenario)
        for (option, value, says) in [
            ("--metrics-listen", "9464", "--metrics-listen takes HOST:PORT"),
            ("--metrics-linger", "soon", "--metrics-linger takes a duration"),
            ("--metrics-push", "127.0.0.1:9090/api/v1/write", "--metrics-push takes an http:// or https:// URL"),
        ] {
            let result = try QueueSimProcess.run(["run", file, option, value])
            #expect(result.status == 2, "\(option) \(value)")
            #expect(result.stderr.contains(says), "\(result.stderr)")
        }
    }

    /// An address already taken ends the run before it starts: exit 3, nothing written.
    @Test func anAddressInUseIsExit3() throws {
        let holder = try MetricsPortHolder()
        let file = try Self.write(Self.wallScenario)
        let out = RunCommandProcess.reportDirectory()
        let result = try QueueSimProcess.run(
            ["run", file, "--out", out, "--metrics-listen", "127.0.0.1:\(holder.port)"], limit: .seconds(30))
        #expect(result.status == 3, "\(result.stderr)")
        #expect(result.stderr.contains("cannot serve metrics on 127.0.0.1:\(holder.port)"))
        // run has no --port: the advice names the option the address came from.
        #expect(result.stderr.contains("choose another port in --metrics-listen"), "\(result.stderr)")
        #expect(!result.stderr.contains("--port"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
        _ = holder
    }
}

/// A listening socket on a free loopback port, closed when released.
private final class MetricsPortHolder {
    let port: Int
    private let socket: Int32

    init() throws {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.socket = socket
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let listening = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(socket, generic, length) == 0 && listen(socket, 4) == 0
                    && getsockname(socket, generic, &length) == 0
            }
        }
        guard listening else {
            close(socket)
            throw CocoaError(.fileWriteUnknown)
        }
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(socket) }
}
