import Foundation
import QueueClientCore
import Testing

@testable import QueueSim

/// Issue 29, items 4 and 5: run.json and report.html say what was rehearsed, and the page
/// reads at a glance (verdict first, the outflow on its own chart, steps for per-second
/// counts, a per-endpoint table, round ticks, durations as `32m 54s`).
@Suite("report.html at a glance, and the rehearsed configuration")
struct ReportGlanceTests {
    static let scenario = """
        version: 1
        name: glance
        seed: 9
        target: { customerId: acme, waitingRoomId: launch }
        client: { maxWait: 20m, pollInterval: 3s }
        arrivals:
          process: uniform
          phases:
            - { duration: 20s, rate: 5 }
            - { burst: 40 }
        visitors:
          - { name: app, weight: 3, platform: ios, enqueueKey: super-secret-key-1 }
          - { name: partner, weight: 1, platform: android, flow: tryPass, enqueueKey: { csv: keys.csv, column: key, order: sequence } }
        waitingRoom:
          outflow: 300/min
          eventStart: 5s
          tokenValidity: 5m
          secretKey: not-the-default-secret
          latency: { queuePage: 40ms }
          faults:
            - { from: 10s, to: 12s, endpoint: enqueue, status: 503, rate: 50% }
        thresholds:
          - passed >= 10%
        """

    static func run(label: String = #function) throws -> (directory: String, report: RunReport) {
        let folder = try RunFixture.makeFolder(label)
        try (["key"] + (0..<200).map { "key-\($0)" }).joined(separator: "\n")
            .write(toFile: folder + "/keys.csv", atomically: true, encoding: .utf8)
        let prepared = try RunFixture.prepare(
            scenario, folder: folder, options: RunOptions(clock: .virtual, concurrency: 777))
        let report = try VirtualClockRunner(
            run: prepared, progress: RunProgress(planned: prepared.summary.visitorCount), stopSignal: RunStopSignal()
        ).execute()
        return (prepared.reportsDirectory, report)
    }

    static func manifest(_ directory: String) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(readReport(directory, Recorder.manifestFile).utf8))
            as! [String: Any]
    }

    @Test func runJsonRecordsTheRehearsedConfiguration() throws {
        let (directory, _) = try Self.run()
        let configuration = try #require(try Self.manifest(directory)["configuration"] as? [String: Any])
        let room = try #require(configuration["room"] as? [String: Any])
        #expect(room["mode"] as? String == "queue")
        #expect(room["outflow_per_minute"] as? Double == 300)
        #expect(room["event_start_ms"] as? Int == 5000)
        #expect(room["token_validity_ms"] as? Int == 300_000)
        #expect(room["secret_key"] as? String == "<redacted>" && room["secret_key_is_default"] as? Bool == false)
        let faults = try #require(room["faults"] as? [[String: Any]])
        #expect(faults.map { $0["summary"] as? String } == ["10s–12s: enqueue requests: answer 503 on 50% of requests"])
        let groups = try #require(configuration["groups"] as? [[String: Any]])
        #expect(groups.map { $0["name"] as? String } == ["app", "partner"])
        #expect(groups.map { $0["platform"] as? String } == ["ios", "android"])
        #expect(groups.map { $0["share"] as? Double } == [0.75, 0.25])
        #expect(groups.map { $0["max_wait_ms"] as? Int } == [1_200_000, 1_200_000])
        #expect(groups.map { $0["poll_interval_ms"] as? Int } == [3000, 3000])
        #expect(groups.map { $0["connections"] as? String } == ["device", "device"])
        #expect(groups[0]["enqueue_key"] as? String == "<redacted>")
        #expect(groups[1]["enqueue_key"] as? String == "csv \(directory.dropLast(8))/keys.csv column key (sequence)")
        let feeders = try #require(configuration["feeders"] as? [[String: Any]])
        #expect(feeders.map { $0["column"] as? String } == ["key"])
        #expect(feeders.first?["used_by"] as? [String] == ["partner.enqueueKey"])
        let arrivals = try #require(configuration["arrivals"] as? [String: Any])
        #expect(arrivals["phases"] as? [String] == ["steady 20s at 5/s (300/min)", "burst 40"])
        #expect(arrivals["planned_visitors"] as? Int == 140)
        let run = try #require(configuration["run"] as? [String: Any])
        #expect(run["clock"] as? String == "virtual" && run["concurrency"] as? Int == 777 && run["seed"] as? Int == 9)
        #expect(configuration["overrides"] as? [String: String] == ["clock": "virtual", "concurrency": "777"])
    }

    @Test func noCredentialReachesAnyReport() throws {
        let (directory, _) = try Self.run()
        for file in [Recorder.manifestFile, Recorder.pageFile, Recorder.summaryFile, Recorder.timelineFile] {
            let text = try readReport(directory, file)
            for secret in ["super-secret-key-1", "not-the-default-secret", "key-1"] {
                #expect(!text.contains(secret), "\(file) holds \(secret)")
            }
        }
    }

    @Test func answersByEndpointAddUpAndAreInRunJsonAndThePage() throws {
        let (directory, report) = try Self.run()
        let manifest = try Self.manifest(directory)
        let endpoints = try #require(manifest["requests_by_endpoint"] as? [[String: Any]])
        #expect(endpoints.map { $0["endpoint"] as? String } == ["enqueue", "queue_page"])
        let enqueue = endpoints[0]
        let statuses = try #require(enqueue["statuses"] as? [[String: Any]])
        // The scripted fault answers 503 to half the enqueue calls in its window.
        #expect(statuses.map { $0["status"] as? String } == ["200", "503"])
        #expect((enqueue["ok"] as? Int ?? 0) + (enqueue["ko"] as? Int ?? 0) == enqueue["count"] as? Int)
        #expect(enqueue["ko"] as? Int == statuses[1]["latency_ms"].flatMap { ($0 as? [String: Any])?["count"] as? Int })
        // Every request of this run was answered before it ended.
        #expect(endpoints.reduce(0) { $0 + ($1["count"] as? Int ?? 0) } == report.requestCount)
        let queuePage = try #require(endpoints[1]["latency_ms"] as? [String: Any])
        #expect(queuePage["p50"] as? Int == 40, "the modelled queue-page latency")
        let latency = try #require(manifest["queue_page_latency_ms"] as? [String: Any])
        #expect((latency["bins"] as? [[Int]])?.isEmpty == false)

        // timeline.csv's answers per second add up to the same counts.
        let timeline = try CSVColumnReader.parse(try readReport(directory, Recorder.timelineFile), path: "")
        let column = try #require(timeline[0].firstIndex(of: "enqueue_ko"))
        #expect(timeline.dropFirst().compactMap { Int($0[column]) }.reduce(0, +) == enqueue["ko"] as? Int)
        let connections = try #require(timeline[0].firstIndex(of: "connections_opened"))
        #expect(timeline.dropFirst().allSatisfy { $0[connections].isEmpty }, "the virtual clock opens no connection")

        let html = try readReport(directory, Recorder.pageFile)
        #expect(html.contains("<section id=\"endpoints\"><h2>Requests by endpoint</h2>"))
        #expect(html.contains("<td>enqueue</td><td>200 × "))
        #expect(html.contains("Queue-page answer time by when it came"))
        #expect(html.contains("Answers by endpoint and status"))
    }

    @Test func thePageLeadsWithTheVerdictAndWhatWasRehearsed() throws {
        let (directory, _) = try Self.run()
        let html = try readReport(directory, Recorder.pageFile)
        let banner = try #require(html.range(of: "<div id=\"verdict\" class=\"banner pass\"><strong>PASS</strong>"))
        #expect(banner.lowerBound < html.range(of: "<h1>")!.lowerBound, "the verdict comes first")
        #expect(html.contains("all 1 thresholds held"))
        let configuration = try #require(html.range(of: "<section id=\"configuration\">"))
        #expect(configuration.lowerBound < html.range(of: "<section id=\"thresholds\">")!.lowerBound)
        for fact in [
            "<dt>room mode</dt><dd>queue</dd>", "<dt>outflow</dt><dd>300/min</dd>", "<dt>event start</dt><dd>5s</dd>",
            "<dt>token validity</dt><dd>5m 0s</dd>", "<dt>secret key</dt><dd>set (redacted)</dd>",
            "<dt>overrides</dt><dd>--clock virtual --concurrency 777</dd>",
            "<dt>connections</dt><dd>none opened on the virtual clock (configured: device)</dd>",
            "<td>app</td><td>75% (weight 3)</td><td>run</td><td>ios (SDK",
            "<td>20m 0s</td><td>3s</td>", "key &lt;redacted&gt;",
            "<li>10s–12s: enqueue requests: answer 503 on 50% of requests</li>",
        ] {
            #expect(html.contains(fact), "\(fact)")
        }
        // The outflow has a chart of its own, and per-second counts are steps, not lines.
        #expect(html.contains("Passed: the outflow at work"))
        #expect(html.contains("<path class=\"s0\" d=\"M80 "))
        #expect(!html.contains("<polyline"))
        // Exact values on hover, and tables that scroll on a phone.
        #expect(html.contains("<rect class=\"hover\""))
        #expect(html.contains("<div class=\"scroll\"><table>"))
        #expect(html.contains("<div class=\"narrow\"><svg viewBox=\"0 0 400 260\""))
    }

    @Test func aRebuiltPageIsTheRunsOwn() throws {
        let (directory, _) = try Self.run()
        let written = try readReport(directory, Recorder.pageFile)
        try FileManager.default.removeItem(atPath: Recorder.path(directory, Recorder.pageFile))
        _ = try ReportRebuild.rebuild(directory)
        #expect(try readReport(directory, Recorder.pageFile) == written)
    }

    @Test func timeTicksFallOnRoundTimes() {
        // A 1000 s run: ticks every 2 minutes, not at 8:20 and 16:40.
        let elapsed = TimeTicks.ticks(from: 0, to: 1000, count: 10, axis: .elapsed).map(\.1)
        #expect(elapsed == ["0:00", "2:00", "4:00", "6:00", "8:00", "10:00", "12:00", "14:00", "16:00"])
        // With a start instant (22:13:25 UTC), on whole minutes of the clock.
        let start = Date(timeIntervalSince1970: 1_700_000_000 + 5)  // 2023-11-14T22:13:25Z
        let clock = TimeTicks.ticks(from: 0, to: 300, count: 5, axis: .clock(start: start))
        #expect(clock.map(\.1) == ["22:14", "22:15", "22:16", "22:17", "22:18"])
        #expect(clock.first?.0 == 35)
        // The wait-by-arrival chart starts at the first arrival, not at 0.
        #expect(TimeTicks.ticks(from: 125, to: 190, count: 4, axis: .elapsed).map(\.1) == ["2:30", "3:00"])
    }

    @Test func durationAxesTickOnRoundDurations() {
        // An 11-minute wait: ticks every 5 minutes, not every 3.33.
        #expect(SVGChart.durationTicks(max: 660_000, count: 5) == [0, 300_000, 600_000, 900_000])
        #expect(SVGChart.durationTicks(max: 2_400, count: 5) == [0, 500, 1000, 1500, 2000, 2500])
        #expect(SVGChart.durationTicks(max: 24, count: 5) == [0, 5, 10, 15, 20, 25])
    }

    @Test func durationsReadAsTheEndScreenWritesThem() {
        #expect(Durations.text(milliseconds: Int64(1_974_271)) == "32m 54s")
        #expect(Durations.text(milliseconds: Int64(850)) == "850ms")
        #expect(Durations.text(milliseconds: Int64(3_700_000)) == "1h 2m")
    }

    @Test func stepsThinByAveragingAndLinesByPoints() {
        let steps = SVGChart.Series(
            name: "a", points: (0..<10).map { (Double($0), Double($0)) }, style: .steps(width: 1))
        let thinned = SVGChart.thin(steps, to: 5)
        #expect(thinned.points.map(\.y) == [0.5, 2.5, 4.5, 6.5, 8.5])
        #expect(thinned.style == .steps(width: 2))
    }

    @Test func environmentReferencesSayWhereAValueCameFrom() {
        let text = """
            waitingRoom:
              secretKey: ${QUEUESIM_SECRET:-dev-secret}   # ${NOT_THIS}
              outflow: ${OUTFLOW}/min
            """
        let found = EnvironmentReferences.find(in: text, environment: ["OUTFLOW": "300"])
        #expect(
            found == [
                .init(variable: "QUEUESIM_SECRET", key: "secretKey", line: 2, from: "default"),
                .init(variable: "OUTFLOW", key: "outflow", line: 3, from: "environment"),
            ])
    }

    /// A file written on Windows: its lines end in CRLF, and each still has its own number.
    @Test func environmentReferencesOfACRLFFileCountItsLines() {
        let text = "waitingRoom:\r\n  mode: embedded\r\n  outflow: ${OUTFLOW:-60}/min\r\n"
        #expect(
            EnvironmentReferences.find(in: text, environment: [:]) == [
                .init(variable: "OUTFLOW", key: "outflow", line: 3, from: "default")
            ])
    }

    @Test func latencyOverTimeStaysBoundedAndKeepsItsPercentiles() {
        var latency = LatencyOverTime()
        for second in 0..<5000 { latency.record(second < 2500 ? 40 : 4000, inSecond: second) }
        #expect(latency.binSeconds == 16, "5000 s in at most 600 bins")
        let bins = latency.percentiles([50], minimumSeconds: 1)
        #expect(bins.count == 313)
        // Within the bucket's 6 %: 40 ms reads 41 ms (the middle of the bucket 40–41).
        #expect(bins.first?.values == [41])
        let slow = Double(bins.last!.values[0])
        #expect(abs(slow - 4000) / 4000 < 0.07)
        #expect(LatencyOverTime.value(ofBucket: LatencyOverTime.bucket(of: 17)) == 17)
    }
}

/// Issue 28's report pieces on the wall clock: the connection model that ran, new connections
/// per second beside arrivals (and in timeline.csv), handshake percentiles in the tables, and
/// clock times on the time axes.
@Suite("report.html on the wall clock: connections and clock times", .timeLimit(.minutes(1)))
struct WallReportGlanceTests {
    @Test func connectionsOpenedAreCountedChartedAndTabled() async throws {
        let yaml = """
            version: 1
            name: wall-glance
            seed: 5
            target: { customerId: acme, waitingRoomId: launch }
            client: { pollInterval: 200ms, maxWait: 1m, requestTimeout: 5s, connections: device }
            arrivals: { phases: [ { duration: 1s, rate: 12 } ] }
            visitors: [ { name: app } ]
            waitingRoom: { mode: queue, outflow: 6000/min }
            """
        let (report, directory) = try await VirtualRun.runOnWallClock(yaml)
        #expect(report.visitorCount == 12)
        let manifest = try ReportGlanceTests.manifest(directory)
        let generator = try #require(manifest["generator"] as? [String: Any])
        let opened = try #require(generator["connections_opened"] as? Int)
        #expect(opened >= 12, "device: every visitor opens its own")

        // timeline.csv's per-second count adds up to run.json's total, and the answers are there.
        let timeline = try CSVColumnReader.parse(try readReport(directory, Recorder.timelineFile), path: "")
        let column = try #require(timeline[0].firstIndex(of: "connections_opened"))
        #expect(timeline.dropFirst().compactMap { Int($0[column]) }.reduce(0, +) == opened)
        #expect(timeline.dropFirst().allSatisfy { Int($0[column]) != nil }, "a count in every second")
        let enqueueOK = try #require(timeline[0].firstIndex(of: "enqueue_ok"))
        #expect(timeline.dropFirst().compactMap { Int($0[enqueueOK]) }.reduce(0, +) == 12)

        let html = try readReport(directory, Recorder.pageFile)
        #expect(html.contains("<dt>connections</dt><dd>device, \(opened) opened</dd>"))
        #expect(html.contains("Arrivals and new connections (per second)"))
        #expect(html.contains("new connections/s"))
        // The handshake of each visitor's first request: connect p50 has a value, not "–".
        let row = try #require(html.components(separatedBy: "<tr class=\"passed\"><td>all</td>").last)
        let cells = row.prefix(while: { $0 != "\n" }).components(separatedBy: "<td class=\"num\">").dropFirst()
        #expect(cells.count == 12)
        #expect(cells.dropFirst(8).first?.hasPrefix("–") == false, "connect p50: \(cells)")
        // Clock times (UTC) on the time axes: a 2-second run ticks on whole seconds of the day.
        #expect(html.contains("time (UTC)"))
        #expect(html.range(of: #">\d\d:\d\d:\d\d</text>"#, options: .regularExpression) != nil)
    }
}

extension ReportGlanceTests {
    /// A merged report names what its shards rehearsed: the first shard's configuration, with
    /// the whole run's concurrency and plan rather than one shard's share.
    @Test func aMergedRunsConfigurationIsTheWholeRuns() throws {
        let folder = try RunFixture.makeFolder()
        let scenario = try RunFixture.scenario(
            """
            version: 1
            target: { customerId: acme, waitingRoomId: launch }
            arrivals: { phases: [ { burst: 30 } ] }
            visitors: [ { name: app } ]
            waitingRoom: { outflow: 600/min }
            run: { concurrency: 90 }
            """, folder: folder)
        let reports = (0..<3).map { index in
            var description = describeRun(groups: ["app"])
            var shardScenario = scenario
            shardScenario.run.concurrency = 30
            description.configuration = RunConfiguration(
                scenario: shardScenario, overrides: ["shard": "\(index)/3"], plannedVisitors: 10)
            return ShardReport(
                description: description,
                identity: ShardIdentity(
                    shard: PlanShard(index: index, count: 3)!, visitorsOverride: nil, plannedVisitors: 30,
                    shardVisitors: 10),
                ending: ending(at: 1000), statistics: OutcomeStatistics(groupNames: ["app"]), requestsPerSecond: [])
        }
        let merged = try #require(ShardMerge.configuration(of: reports, plannedVisitors: 30))
        #expect(merged.run.concurrency == 90)
        #expect(merged.arrivals.plannedVisitors == 30)
        #expect(merged.overrides.isEmpty)
        #expect(merged.room?.outflowPerMinute == 600)
        // A shard written before the configuration existed: not recorded, rather than a guess.
        var older = reports
        older[1].configuration = nil
        #expect(ShardMerge.configuration(of: older, plannedVisitors: 30) == nil)
    }
}

extension ReportGlanceTests {
    /// A killed run's recovered report still says what was rehearsed (`.run.pending.json` keeps
    /// it), and says the answers by endpoint died with the process rather than showing none.
    @Test func aRecoveredRunKeepsItsConfiguration() throws {
        let directory = try makeReportDirectory()
        let folder = try RunFixture.makeFolder()
        let scenario = try RunFixture.scenario(
            """
            version: 1
            target: { customerId: acme, waitingRoomId: launch }
            arrivals: { phases: [ { burst: 3 } ] }
            visitors: [ { name: app } ]
            waitingRoom: { outflow: 1200/min }
            """, folder: folder)
        var description = describeRun(groups: ["app"], runId: "20250301T120000Z-dead")
        description.configuration = RunConfiguration(scenario: scenario, overrides: [:], plannedVisitors: 3)
        do {
            let recorder = try Recorder(directory: directory, description: description)
            try recorder.record(directVisitor(0, arrival: 0, enqueueMs: 20, outcome: .passed))
            try recorder.flushRows()
        }
        _ = try ReportRecovery.recover(directory)
        let manifest = try Self.manifest(directory)
        let room = try #require((manifest["configuration"] as? [String: Any])?["room"] as? [String: Any])
        #expect(room["outflow_per_minute"] as? Double == 1200)
        #expect(manifest["requests_by_endpoint"] == nil)
        let html = try readReport(directory, Recorder.pageFile)
        #expect(html.contains("<dt>outflow</dt><dd>1,200/min</dd>"))
        #expect(html.contains("Not recorded: a recovered report"))
        let timeline = try readReport(directory, Recorder.timelineFile).split(separator: "\n")
        #expect(timeline[1].hasSuffix(",,,,,,,,0,"), "connections, answers and after-pass calls unknown: empty, not 0")
    }
}

extension WallReportGlanceTests {
    /// `queuesim report` on a wall run's folder draws the page's clock axes, configuration and
    /// answers as the run did: the start instant is read back at run.json's precision. (The
    /// rest of a wall page can move by a millisecond: rows keep whole milliseconds.)
    @Test func aWallRunsPageRebuildsTheSame() async throws {
        let yaml = """
            version: 1
            target: { customerId: acme, waitingRoomId: launch }
            client: { pollInterval: 200ms, maxWait: 1m, requestTimeout: 5s }
            arrivals: { phases: [ { duration: 1s, rate: 8 } ] }
            visitors: [ { name: app } ]
            waitingRoom: { mode: queue, outflow: 6000/min }
            """
        let (_, directory) = try await VirtualRun.runOnWallClock(yaml)
        let written = try readReport(directory, Recorder.pageFile)
        try FileManager.default.removeItem(atPath: Recorder.path(directory, Recorder.pageFile))
        _ = try ReportRebuild.rebuild(directory)
        let rebuilt = try readReport(directory, Recorder.pageFile)
        func axisLabels(_ page: String) -> [String] {
            page.components(separatedBy: "text-anchor=\"").dropFirst().compactMap { part in
                part.hasPrefix("middle") || part.hasPrefix("end")
                    ? part.split(separator: "<").first.map(String.init) : nil
            }
        }
        #expect(axisLabels(rebuilt) == axisLabels(written))
        #expect(axisLabels(written).contains { $0.range(of: #"\d\d:\d\d:\d\d$"#, options: .regularExpression) != nil })
        func section(_ id: String, of page: String) -> String? {
            page.range(of: "<section id=\"\(id)\">").map { start in
                String(page[start.lowerBound...]).components(separatedBy: "</section>")[0]
            }
        }
        for id in ["configuration", "endpoints"] {
            #expect(section(id, of: rebuilt) == section(id, of: written), "\(id)")
        }
        #expect(written.contains("new connections/s"))
    }
}
