import Foundation
import QueueClientCore
import Testing

@testable import QueueSim

/// A sweep's point keeps its figures only: the same run, the same figures, no files.
@Suite("Figures-only virtual runs")
struct FiguresOnlyRunTests {
    static let scenario = """
        version: 1
        name: figures
        seed: 5
        target: { customerId: acme, waitingRoomId: launch }
        client: { pollInterval: 5s, maxWait: 4m }
        arrivals: { phases: [ { burst: 300 }, { duration: 20s, rate: 5 } ] }
        waitingRoom: { mode: queue, outflow: 120/min, latency: { enqueue: 20ms, queuePage: 10ms, jitter: 5ms } }
        thresholds: [ "wait.p95 < 2m", "passed >= 90%" ]
        """

    @Test func theSameFiguresAsAFullRunAndNoFiles() throws {
        let (full, directory) = try VirtualRun.run(Self.scenario)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let prepared = try PreparedRun(
            scenario: try ScenarioTestSupport.load(Self.scenario), options: RunOptions(clock: .virtual))
        var runner = VirtualClockRunner(
            run: prepared, progress: RunProgress(planned: prepared.summary.visitorCount), stopSignal: RunStopSignal())
        runner.keepsFiguresOnly = true
        let figures = try runner.execute()

        #expect(figures.visitorCount == full.visitorCount && figures.visitorCount == 400)
        #expect(figures.outcomeCounts == full.outcomeCounts)
        #expect(figures.verdicts == full.verdicts)
        #expect(figures.exitStatus == full.exitStatus)
        for metric in SweepMetric.columns(goals: [], thresholds: prepared.scenario.thresholds) {
            #expect(metric.value(in: figures) == metric.value(in: full), "\(metric.column)")
        }
        // The queue: 300 at once and 100 more over 20 s, 2 a second out: it lasts about 200 s.
        #expect(full.queue.lengthPeak > 250 && full.queue == figures.queue)
        let duration = try #require(full.queue.durationMs)
        #expect(duration >= 195_000 && duration < 215_000, "\(duration)")
        // The peak is the largest in_queue of timeline.csv.
        let timeline = try String(contentsOfFile: directory + "/timeline.csv", encoding: .utf8)
        let inQueue = timeline.split(separator: "\n").dropFirst().compactMap {
            Int($0.split(separator: ",", omittingEmptySubsequences: false)[4])
        }
        #expect(inQueue.max() == full.queue.lengthPeak)
        #expect(figures.directory.isEmpty)
    }
}
