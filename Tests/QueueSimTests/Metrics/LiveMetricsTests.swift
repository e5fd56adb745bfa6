import Foundation
import QueueClientCore
import Testing

@testable import QueueSim

/// What `/metrics` shows during a run comes from the engines' live counts; at the end of a run
/// it must say what metrics.prom's last second says, which is rebuilt from visitors.csv's rows.
@Suite("Metrics: the live values")
struct LiveMetricsTests {
    /// Two groups, a burst that overruns `maxWait` (passed and queued), enqueue 503s at random
    /// (retries, unavailable), patience (abandoned): every family has something to count.
    static let scenario = """
        version: 1
        name: live
        seed: 11
        target: { customerId: acme, waitingRoomId: launch }
        client: { pollInterval: 5s, maxWait: 3m }
        arrivals:
          phases:
            - { burst: 150 }
            - { duration: 60s, rate: 2 }
        visitors:
          - { name: app, weight: 3, patience: { mean: 2m } }
          - { name: web, weight: 1 }
        waitingRoom:
          outflow: 40/min
          latency: { enqueue: 30ms, queuePage: 15ms, jitter: 4ms }
          faults:
            - { from: 0s, to: 20s, endpoint: enqueue, status: 503, rate: 0.2 }
        """

    @Test func atTheEndTheLiveValuesAreMetricsPromsLastSecond() throws {
        let directory = try makeReportDirectory()
        let scenario = try ScenarioTestSupport.load(Self.scenario)
        let prepared = try PreparedRun(
            scenario: scenario, options: RunOptions(outputDirectory: directory, clock: .virtual))
        let progress = RunProgress(planned: prepared.summary.visitorCount)
        let runner = VirtualClockRunner(run: prepared, progress: progress, stopSignal: RunStopSignal())
        let report = try runner.executeCountingSkippedPolls().report
        let outcomes = Set(report.outcomeCounts.keys)
        #expect(outcomes.isSuperset(of: [.passed, .queued, .abandoned]), "\(outcomes)")

        let identity = MetricsSnapshot.Identity(runId: prepared.options.runId, scenario: "live", shard: "0/1")
        let live = LiveMetrics.snapshot(
            progress.snapshot(at: .origin), identity: identity, groupNames: ["app", "web"], room: nil)
        let file = try String(contentsOfFile: Recorder.path(directory, Recorder.metricsFile), encoding: .utf8)
        let lastSecond = Self.lastValues(file)
        let liveText = MetricsExposition.prometheus(live)
        var compared = 0
        for line in liveText.split(separator: "\n") where !line.hasPrefix("#") {
            let (series, value) = Self.split(line)
            // The generator's health is the wall clock's; metrics.prom has no lag gauge.
            if series.hasPrefix("queuesim_generator") { continue }
            #expect(
                lastSecond[series] == value, "\(series): live \(value), metrics.prom \(lastSecond[series] ?? "none")")
            compared += 1
        }
        #expect(compared > 40)
        // At the end nobody is on the queue page or in flight.
        #expect(liveText.contains(#"queuesim_in_flight{run_id="\#(identity.runId)",scenario="live",shard="0/1"} 0"#))
    }

    /// The value of each series' last sample, keyed by the series as a scrape writes it (the
    /// OpenMetrics counter `_total` and histogram sample names are the same in both formats).
    private static func lastValues(_ openMetrics: String) -> [String: String] {
        var values: [String: String] = [:]
        for line in openMetrics.split(separator: "\n") where !line.hasPrefix("#") {
            var parts = line.split(separator: " ")
            parts.removeLast()  // the timestamp
            let (series, value) = split(parts.joined(separator: " ")[...])
            values[series] = value
        }
        return values
    }

    private static func split(_ line: Substring) -> (String, String) {
        let space = line.lastIndex(of: " ")!
        return (String(line[..<space]), String(line[line.index(after: space)...]))
    }
}

/// metrics.prom's room series: the embedded room's queue at the end of every second.
@Suite("Metrics: the room's queue in metrics.prom")
struct RoomSeriesTests {
    @Test func aBurstDrainsAtTheOutflow() throws {
        // 300 at once, one released per second from second 0 on.
        let (_, directory) = try VirtualRun.run(
            """
            version: 1
            name: room-series
            seed: 5
            target: { customerId: acme, waitingRoomId: launch }
            client: { pollInterval: 5s, maxWait: 1h }
            arrivals:
              phases: [ { burst: 300 } ]
            visitors: [ { name: app } ]
            waitingRoom:
              outflow: 60/min
              latency: { enqueue: 20ms, queuePage: 10ms, jitter: 0ms }
            """)
        let series = try MetricsFileSeries.series(
            try String(contentsOfFile: Recorder.path(directory, Recorder.metricsFile), encoding: .utf8))
        func values(_ name: String) throws -> [Double] {
            try #require(series.first { $0.labels.contains { $0.name == "__name__" && $0.value == name } })
                .samples.map(\.value)
        }
        let queue = try values("queuesim_room_queue_length")
        let released = try values("queuesim_room_released_total")
        #expect(queue.count == released.count)
        for second in [0, 1, 10, 150, 298] where second < queue.count {
            #expect(released[second] == Double(second + 1), "second \(second)")
            #expect(queue[second] == Double(299 - second), "second \(second)")
        }
        #expect(released.last == 300)
        #expect(queue.last == 0)
    }
}
