import Foundation
import QueueClientCore
import Testing

@testable import QueueSim

/// The oracles of `sweep --check-theory` against the virtual engine, one shape at a time: a
/// scenario of 10,000–20,000 visitors (enough that the fluid limit holds to well within the
/// check's tolerance: 2 points on shares, 5 % on waits; the runs differ from the oracle by at
/// most 1.5 points and 2.5 %) runs in-process on the virtual clock, and the
/// check must pass; a run held to the other turn rule's oracle must fail.
@Suite("theory: the oracles against the virtual engine", .timeLimit(.minutes(3)))
struct TheoryOracleTests {
    static func scenario(
        arrivals: String, outflow: String, visitors: String = "[ { name: app } ]", turns: String = "wasted",
        eventStart: String = "0s", maxWait: String = "10h"
    ) -> String {
        """
        version: 1
        name: theory
        seed: 7
        clock: virtual
        target: { customerId: acme, waitingRoomId: launch }
        client: { pollInterval: 2s, maxWait: \(maxWait) }
        arrivals: { phases: \(arrivals) }
        visitors: \(visitors)
        waitingRoom:
          eventStart: \(eventStart)
          outflow: \(outflow)
          abandonedTurns: \(turns)
          latency: { enqueue: 0s, queuePage: 0s, jitter: 0s }
        """
    }

    static let figures = [
        SweepMetric(metric: .outcomeRatio(.passed)), SweepMetric(metric: .outcomeRatio(.abandoned)),
        SweepMetric(metric: .outcomeRatio(.queued)), SweepMetric(metric: .timing(.wait, .percentile(50))),
        SweepMetric.waitP95,
    ]

    /// Runs `yaml` figures-only on the virtual clock.
    static func run(_ yaml: String) throws -> (Scenario, RunReport) {
        let scenario = try ScenarioTestSupport.load(yaml)
        let prepared = try PreparedRun(scenario: scenario, options: RunOptions(clock: .virtual))
        var runner = VirtualClockRunner(
            run: prepared, progress: RunProgress(planned: prepared.summary.visitorCount), stopSignal: RunStopSignal())
        runner.keepsFiguresOnly = true
        return (scenario, try runner.execute())
    }

    /// The check of a run's figures against the oracle of `turns` (the scenario's own rule
    /// unless given).
    static func check(_ scenario: Scenario, _ report: RunReport, turns: AbandonedTurns? = nil) throws -> TheoryCheck {
        let oracle = try #require(TheoryOracle(scenario: scenario, turns: turns))
        return TheoryCheck(
            metrics: figures, means: figures.map { $0.value(in: report) }, oracle: oracle,
            maxWaitMs: scenario.client.maxWait.secondsDouble * 1000)
    }

    static func check(_ yaml: String) throws -> TheoryCheck {
        let (scenario, report) = try run(yaml)
        return try check(scenario, report)
    }

    static func expectPasses(_ check: TheoryCheck, _ comment: String) {
        #expect(check.figures.count == figures.count)
        for figure in check.figures {
            #expect(figure.passed, "\(comment): \(figure.sentence)")
        }
    }

    /// 20,000 at once, 2,000/min: waits uniform on [0, 10 min] (p50 5 min, p95 9 min 30 s).
    @Test func burstWithoutPatience() throws {
        let check = try Self.check(Self.scenario(arrivals: "[ { burst: 20000 } ]", outflow: "2000/min"))
        Self.expectPasses(check, "burst")
        let p95 = try #require(check.figures.first { $0.column == "wait_p95_ms" })
        #expect(abs(p95.oracle - 570_000) < 2_000, "\(p95.oracle)")
    }

    /// A ramp from 0 to 3,000/min over 10 min against 900/min raised to 1,800/min at 12 min:
    /// the no-abandonment fluid queue with a scheduled outflow.
    @Test func rampAndScheduledOutflow() throws {
        let check = try Self.check(
            Self.scenario(
                arrivals: "[ { duration: 10m, rate: 0, rampTo: 3000/min } ]",
                outflow: "[ { at: 0s, rate: 900/min }, { at: 12m, rate: 1800/min } ]"))
        Self.expectPasses(check, "ramp")
    }

    /// 1,000/min for 10 min, 600/min out, exponential patience θ = 10 min (the crowd of
    /// reference/waiting-room-models.md §5.7, shorter), each turn rule against its own oracle;
    /// the same run against the other rule's oracle fails the check (the rule moves the
    /// passing share by about 10 points here, 24 % against 65 % over an hour).
    @Test("steady overload, exponential patience; the wrong rule fails", arguments: ["wasted", "skipped"])
    func exponentialPatience(turns: String) throws {
        let (scenario, report) = try Self.run(
            Self.scenario(
                arrivals: "[ { duration: 10m, rate: 1000/min } ]", outflow: "600/min",
                visitors: "[ { name: app, patience: { mean: 10m } } ]", turns: turns))
        Self.expectPasses(try Self.check(scenario, report), turns)
        let wrong = try Self.check(scenario, report, turns: turns == "wasted" ? .skipped : .wasted)
        #expect(!wrong.passed)
        let passed = try #require(wrong.figures.first { $0.column == "passed_share" })
        #expect(!passed.passed && abs(passed.measured - passed.oracle) > 0.05, "\(passed.sentence)")
    }

    /// A burst into the pre-queue 5 min before the event start, log-normal patience (median
    /// 8 min, σ 0.6), a `maxWait` of 12 min that ends some stays (`queued`).
    @Test("pre-queue burst, log-normal patience", arguments: ["wasted", "skipped"])
    func lognormalPatience(turns: String) throws {
        let check = try Self.check(
            Self.scenario(
                arrivals: "[ { burst: 10000 } ]", outflow: "750/min",
                visitors: "[ { name: app, patience: { lognormal: { median: 8m, sigma: 0.6 } } } ]", turns: turns,
                eventStart: "5m", maxWait: "12m"))
        Self.expectPasses(check, turns)
    }

    /// A third of those who give up come back after about 2 min, at most twice: the orbit
    /// feeds the arrivals.
    @Test("comebacks", arguments: ["wasted", "skipped"])
    func comebacks(turns: String) throws {
        let check = try Self.check(
            Self.scenario(
                arrivals: "[ { duration: 10m, rate: 1000/min } ]", outflow: "600/min",
                visitors:
                    "[ { name: app, patience: { mean: 10m }, comeback: { share: 30%, after: { mean: 2m }, max: 2 } } ]",
                turns: turns))
        Self.expectPasses(check, "comebacks \(turns)")
    }
}
