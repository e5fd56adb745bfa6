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

    /// Both ways a sweep records a point's rows: on a writer thread, and on the engine's own
    /// thread (when every core runs a point).
    @Test(arguments: [false, true])
    func theSameFiguresAsAFullRunAndNoFiles(rowsOnTheEngineThread: Bool) throws {
        let (full, directory) = try VirtualRun.run(Self.scenario)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let prepared = try PreparedRun(
            scenario: try ScenarioTestSupport.load(Self.scenario), options: RunOptions(clock: .virtual))
        var runner = VirtualClockRunner(
            run: prepared, progress: RunProgress(planned: prepared.summary.visitorCount), stopSignal: RunStopSignal())
        runner.keepsFiguresOnly = true
        runner.recordsRowsOnTheEngineThread = rowsOnTheEngineThread
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

    /// A figures-only run with no protected API call leaves its tokens unsigned (64 zeros for
    /// the hash): a client reads one as it reads a signed token, and no connector accepts it.
    @Test func unsignedTokensOnlyWhereNobodyChecksThem() throws {
        let token = KnownUserToken(
            eventId: "launch", queueId: "7b0e4c7a-52b5-4d8e-9a63-1f1c1f0c2b6d", expiryUnixSeconds: 1_735_689_900,
            redirectType: "queue")
        let signed = token.signed(secretKey: "secret")
        let placeholder = token.unsignedPlaceholder
        #expect(placeholder.utf8.count == signed.utf8.count)
        #expect(placeholder == token.unsignedText + "~h_" + String(repeating: "0", count: 64))
        let validator = KnownUserTokenValidator(secretKey: "secret", eventId: "launch")
        #expect((try? validator.validate(signed, nowUnixSeconds: 1_735_689_600).get()) != nil)
        #expect((try? validator.validate(placeholder, nowUnixSeconds: 1_735_689_600).get()) == nil)

        func presents(_ visitors: String) throws -> Bool {
            VirtualClockRunner.presentsTokens(
                try ScenarioTestSupport.load(
                    Self.scenario.replacingOccurrences(of: "thresholds:", with: "visitors: \(visitors)\nthresholds:")))
        }
        #expect(try !presents("[ { name: app } ]"))
        #expect(try presents("[ { name: app }, { name: hybrid, flow: protectedApi } ]"))
        #expect(try presents("[ { name: app, afterPass: { calls: 2, thinkTime: { fixed: 5s } } } ]"))
    }

    /// Visitors who call the shop after passing show their tokens to the room's connector: such
    /// a run signs them even figures-only, and its after-pass figures are the full run's.
    @Test func afterPassCallsKeepSignedTokens() throws {
        let scenario = Self.scenario.replacingOccurrences(
            of: "thresholds:",
            with: "visitors: [ { name: app, afterPass: { calls: 2, thinkTime: { fixed: 5s } } } ]\nthresholds:")
        let (full, directory) = try VirtualRun.run(scenario)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let prepared = try PreparedRun(
            scenario: try ScenarioTestSupport.load(scenario), options: RunOptions(clock: .virtual))
        var runner = VirtualClockRunner(
            run: prepared, progress: RunProgress(planned: prepared.summary.visitorCount), stopSignal: RunStopSignal())
        runner.keepsFiguresOnly = true
        let figures = try runner.execute()
        #expect(figures.outcomeCounts == full.outcomeCounts)
        #expect(full.behaviour.afterPassRequests > 0 && figures.behaviour == full.behaviour)
    }
}
