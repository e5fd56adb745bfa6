import Foundation
import StandInServers
import Testing

@testable import QueueSim

@Suite("Metrics: the /metrics endpoint")
struct MetricsServerTests {
    @Test func aScrapeGetsTheCurrentSnapshotAndOtherPathsAre404() throws {
        let counter = Counter()
        let server = try MetricsServer(host: "127.0.0.1", port: 0) {
            var snapshot = MetricsSnapshot(identity: .init(runId: "r", scenario: "s", shard: "0/1"))
            snapshot.set(MetricCatalog.inFlight, [], Double(counter.next()))
            return MetricsExposition.prometheus(snapshot)
        }
        defer { server.stop() }
        let first = try Self.curl("http://127.0.0.1:\(server.port)/metrics")
        #expect(first.status == 200)
        #expect(first.body.contains(#"queuesim_in_flight{run_id="r",scenario="s",shard="0/1"} 1"#))
        #expect(first.headers.lowercased().contains("content-type: text/plain; version=0.0.4; charset=utf-8"))
        let second = try Self.curl("http://127.0.0.1:\(server.port)/metrics")
        #expect(second.body.contains(#"shard="0/1"} 2"#))
        #expect(try Self.curl("http://127.0.0.1:\(server.port)/").status == 404)
    }

    /// A real Prometheus scrapes it.
    @Test(.enabled(if: PrometheusProcess.isInstalled, Comment(rawValue: PrometheusProcess.missing)))
    func prometheusScrapesIt() throws {
        let server = try MetricsServer(host: "127.0.0.1", port: 0) {
            var snapshot = MetricsSnapshot(identity: .init(runId: "scrape-test", scenario: "s", shard: "0/1"))
            snapshot.set(MetricCatalog.arrivals, ["app"], 7)
            return MetricsExposition.prometheus(snapshot)
        }
        defer { server.stop() }
        let prometheus = try PrometheusProcess(scrape: "127.0.0.1:\(server.port)")
        defer { prometheus.stop() }
        let result = try prometheus.waitFor(#"queuesim_arrivals_total{run_id="scrape-test"}"#) { !$0.isEmpty }
        #expect(result.first?.1 == 7)
        #expect(result.first?.0["group"] == "app")
    }

    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0
        func next() -> Int {
            lock.lock()
            defer { lock.unlock() }
            value += 1
            return value
        }
    }

    static func curl(_ url: String) throws -> (status: Int, headers: String, body: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-s", "-i", "--max-time", "5", url]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let parts = text.components(separatedBy: "\r\n\r\n")
        let headers = parts.first ?? ""
        let status = Int(headers.split(separator: " ").dropFirst().first ?? "") ?? 0
        return (status, headers, parts.dropFirst().joined(separator: "\r\n\r\n"))
    }
}
