import Foundation
import QueueClientCore
import StandInServers
import Testing

@testable import QueueSim

/// Every run writes metrics.prom: a sample per series per second (a group's series sparser),
/// whose last samples are the run's totals (issue 31 item 1).
@Suite("Metrics: metrics.prom")
struct MetricsFileTests {
    static let scenario = """
        version: 1
        name: metrics
        seed: 3
        target: { customerId: acme, waitingRoomId: metrics }
        client: { pollInterval: 1s, maxWait: 1m }
        arrivals: { phases: [ { burst: 60 }, { duration: 10s, rate: 4 } ] }
        visitors: [ { name: app, weight: 3 }, { name: partner, weight: 1 } ]
        waitingRoom:
          mode: queue
          eventStart: 0s
          outflow: 240/min
          latency: { enqueue: 30ms, queuePage: 15ms, jitter: 0ms }
          faults: [ { endpoint: enqueue, status: 503, rate: 10% } ]
        """

    /// The last sample of each series named `name`, by the label `key`.
    static func last(_ text: String, _ name: String, by key: String) -> [String: Double] {
        var values: [String: Double] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix(name + "{") {
            let parts = line.split(separator: " ")
            guard parts.count == 3, let value = Double(parts[1]) else { continue }
            let labels = String(parts[0])
            guard let range = labels.range(of: "\(key)=\"") else { continue }
            let rest = labels[range.upperBound...]
            let label = String(rest[..<rest.firstIndex(of: "\"")!])
            values[label, default: 0] = value  // later samples replace earlier ones
        }
        return values
    }

    @Test func theLastSamplesAreTheRunsTotals() throws {
        let (_, directory) = try VirtualRun.run(Self.scenario)
        let manifest = try #require(
            try JSONSerialization.jsonObject(with: VirtualRun.bytes(directory, Recorder.manifestFile)) as? [String: Any]
        )
        let endpoints = try #require(manifest["requests_by_endpoint"] as? [[String: Any]])
        let enqueueCount = try #require(endpoints.first { $0["endpoint"] as? String == "enqueue" }?["count"] as? Int)
        let text = String(decoding: try VirtualRun.bytes(directory, Recorder.metricsFile), as: UTF8.self)
        #expect(text.hasPrefix("# TYPE queuesim_arrivals_total counter\n"))
        #expect(text.hasSuffix("# EOF\n"))
        let rows = try VirtualRun.visitors(directory)
        #expect(
            Self.last(text, "queuesim_arrivals_total", by: "group")
                == Dictionary(grouping: rows, by: { $0.cells["group"]! }).mapValues { Double($0.count) })
        var outcomes: [String: Double] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("queuesim_visitors_total{") {
            let outcome = String(line.split(separator: "outcome=\"")[1].prefix { $0 != "\"" })
            let group = String(line.split(separator: "group=\"")[1].prefix { $0 != "\"" })
            outcomes["\(group)/\(outcome)"] = Double(line.split(separator: " ")[1])!
        }
        var expected: [String: Double] = [:]
        for row in rows { expected["\(row.cells["group"]!)/\(row.outcome)", default: 0] += 1 }
        #expect(outcomes == expected)
        // Requests by status: the scripted 503s are there, and every answer is counted once.
        let enqueueLines = text.split(separator: "\n").filter {
            $0.hasPrefix("queuesim_requests_total{") && $0.contains("endpoint=\"enqueue\"")
        }
        let statuses = Self.last(enqueueLines.joined(separator: "\n"), "queuesim_requests_total", by: "status")
        #expect(statuses["503"] ?? 0 > 0)
        #expect(statuses.values.reduce(0, +) == Double(enqueueCount))
        let enqueueAnswers = text.split(separator: "\n").filter {
            $0.hasPrefix("queuesim_request_duration_seconds_count{") && $0.contains("endpoint=\"enqueue\"")
        }.last.map { Double($0.split(separator: " ")[1])! }
        #expect(enqueueAnswers == Double(enqueueCount))
        // Nobody is in flight or in the queue at the end.
        #expect(Self.last(text, "queuesim_in_flight", by: "shard") == ["0/1": 0])
        #expect(Self.last(text, "queuesim_in_queue", by: "group").values.allSatisfy { $0 == 0 })
    }

    @Test func theSameSeedWritesTheSameSamples() throws {
        let first = try VirtualRun.run(Self.scenario)
        let second = try VirtualRun.run(Self.scenario)
        func samples(_ directory: String) throws -> [String] {
            // The run id and the timestamps differ run to run; the values may not.
            String(decoding: try VirtualRun.bytes(directory, Recorder.metricsFile), as: UTF8.self)
                .split(separator: "\n").map { line in
                    var text = String(line)
                    if let range = text.range(of: #"run_id="[^"]*""#, options: .regularExpression) {
                        text.replaceSubrange(range, with: "run_id")
                    }
                    return text.split(separator: " ").dropLast(text.hasPrefix("#") ? 0 : 1).joined(separator: " ")
                }
        }
        #expect(try samples(first.directory) == samples(second.directory))
    }

    @Test(
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: "/usr/bin/promtool"),
            "promtool is not installed (apt-get install prometheus): metrics.prom was not checked by Prometheus's own tool"
        ))
    func promtoolTurnsItIntoBlocks() throws {
        let (_, directory) = try VirtualRun.run(Self.scenario)
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("queuesim-tsdb-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: output) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/promtool")
        process.arguments = [
            "tsdb", "create-blocks-from", "openmetrics", Recorder.path(directory, Recorder.metricsFile), output.path,
        ]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let said = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(said)")
        // And Prometheus's linter reads it as a valid exposition: every family typed and helped.
        let check = PrometheusTools.checkMetrics(
            try String(contentsOfFile: Recorder.path(directory, Recorder.metricsFile), encoding: .utf8))
        #expect(check.status == 0, "promtool check metrics: \(check.said)")
    }
}
