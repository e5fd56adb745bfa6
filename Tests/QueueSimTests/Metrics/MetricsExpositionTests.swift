import Foundation
import Testing

@testable import QueueSim

@Suite("Metrics: the exposition formats and the dashboard")
struct MetricsExpositionTests {
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    static func sample() -> MetricsSnapshot {
        var snapshot = MetricsSnapshot(identity: .init(runId: "20261126T1000Z-ab\"c", scenario: "launch", shard: "0/1"))
        snapshot.set(MetricCatalog.arrivals, ["app"], 12)
        snapshot.set(MetricCatalog.visitors, ["app", "passed"], 10)
        snapshot.set(MetricCatalog.visitors, ["app", "error"], 1)
        snapshot.set(MetricCatalog.inFlight, [], 1)
        var wait = BucketCounts(bounds: [1, 5])
        wait.record(seconds: 0.5)
        wait.record(seconds: 3, times: 2)
        wait.record(seconds: 9)
        snapshot.set(MetricCatalog.wait, ["app"], histogram: wait)
        return snapshot
    }

    @Test func aScrapeIsThePrometheusTextFormat() {
        let text = MetricsExposition.prometheus(Self.sample())
        let common = #"run_id="20261126T1000Z-ab\"c",scenario="launch",shard="0/1""#
        #expect(
            text == """
                # HELP queuesim_arrivals_total Visitors who arrived (started their journey).
                # TYPE queuesim_arrivals_total counter
                queuesim_arrivals_total{\(common),group="app"} 12
                # HELP queuesim_visitors_total Visitors who finished, by outcome (the outcome column of visitors.csv).
                # TYPE queuesim_visitors_total counter
                queuesim_visitors_total{\(common),group="app",outcome="passed"} 10
                queuesim_visitors_total{\(common),group="app",outcome="error"} 1
                # HELP queuesim_in_flight Visitors arrived and not yet finished.
                # TYPE queuesim_in_flight gauge
                queuesim_in_flight{\(common)} 1
                # HELP queuesim_wait_seconds Time finished visitors spent on the queue page.
                # TYPE queuesim_wait_seconds histogram
                queuesim_wait_seconds_bucket{\(common),group="app",le="1"} 1
                queuesim_wait_seconds_bucket{\(common),group="app",le="5"} 3
                queuesim_wait_seconds_bucket{\(common),group="app",le="+Inf"} 4
                queuesim_wait_seconds_count{\(common),group="app"} 4
                queuesim_wait_seconds_sum{\(common),group="app"} 15.5

                """)
    }

    @Test func metricsPromHoldsEachSeriesPointsInTimeOrderThenEOF() {
        var later = Self.sample()
        later.set(MetricCatalog.arrivals, ["app"], 20)
        later.set(MetricCatalog.arrivals, ["partner"], 3)
        let text = MetricsExposition.openMetrics([(1_764_151_200, Self.sample()), (1_764_151_201, later)])
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.first == "# TYPE queuesim_arrivals_total counter")
        #expect(lines[2].hasPrefix("queuesim_arrivals_total{") && lines[2].hasSuffix(#"group="app"} 12 1764151200"#))
        #expect(lines[3].hasSuffix(#"group="app"} 20 1764151201"#))
        #expect(lines[4].hasSuffix(#"group="partner"} 3 1764151201"#))
        #expect(lines.last == "# EOF")
        #expect(text.contains("# TYPE queuesim_wait_seconds histogram\n"))
    }

    @Test(
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: "/usr/bin/promtool"),
            "promtool is not installed (apt-get install prometheus): the formats are not checked by Prometheus's own tool"
        ))
    func promtoolAcceptsBothFormats() throws {
        for (arguments, text) in [
            (["check", "metrics"], MetricsExposition.prometheus(Self.sample()))
        ] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/promtool")
            process.arguments = arguments
            let input = Pipe()
            let output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            process.standardError = output
            try process.run()
            input.fileHandleForWriting.write(Data(text.utf8))
            try input.fileHandleForWriting.close()
            let said = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "\(said)")
        }
        // metrics.prom: promtool turns it into TSDB blocks.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("queuesim-om-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("metrics.prom")
        try MetricsExposition.openMetrics([(1_764_151_200, Self.sample()), (1_764_151_201, Self.sample())])
            .write(to: file, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/promtool")
        process.arguments = [
            "tsdb", "create-blocks-from", "openmetrics", file.path, folder.appendingPathComponent("data").path,
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let said = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(said)")
    }

    /// The dashboard's queries name only series queuesim exports, and every one is filtered by
    /// the run variable.
    @Test func theDashboardQueriesOnlyExportedSeries() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: Self.repositoryRoot + "/deploy/grafana/queuesim.json"))
        let dashboard = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let panels = try #require(dashboard["panels"] as? [[String: Any]])
        let expressions = panels.flatMap { panel in
            (panel["targets"] as? [[String: Any]] ?? []).compactMap { $0["expr"] as? String }
        }
        #expect(expressions.count >= 12)
        let pattern = try Regex("queuesim_[a-z_]+")
        var used: Set<String> = []
        for expression in expressions {
            #expect(expression.contains(#"run_id=~"$run_id""#), "\(expression)")
            for match in expression.matches(of: pattern) { used.insert(String(expression[match.range])) }
        }
        #expect(
            used.isSubset(of: MetricCatalog.sampleNames), "not exported: \(used.subtracting(MetricCatalog.sampleNames))"
        )
        // Every family the issue names is on the dashboard.
        let families = Set(MetricCatalog.families.map(\.name))
        let shown = Set(
            used.map { name in
                for suffix in ["_bucket", "_sum", "_count"] where name.hasSuffix(suffix) && !families.contains(name) {
                    return String(name.dropLast(suffix.count))
                }
                return name
            })
        #expect(shown == families, "not on the dashboard: \(families.subtracting(shown))")
        let variables = try #require((dashboard["templating"] as? [String: Any])?["list"] as? [[String: Any]])
        #expect(variables.contains { $0["name"] as? String == "run_id" })
    }
}
