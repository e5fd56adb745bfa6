import Foundation
import Testing

@testable import QueueSim

/// The sweep's memory estimate against peaks measured with `/usr/bin/time -v` (maximum
/// resident set size) on the release build; the command and figures are in docs/sweep.md,
/// "Memory". The estimate may be above a peak, never more than 10 % below it.
@Suite("Sweep memory")
struct SweepMemoryTests {
    struct Measured {
        var yaml: String
        var scale: Double
        var points: Int
        var jobs: Int
        var peakKiB: Int
    }

    /// A burst of 10,000 waiting a long time (outflow 1,000/min), scaled.
    static let burst = """
        version: 1
        name: mem
        seed: 3
        target: { customerId: acme, waitingRoomId: launch }
        client: { pollInterval: 5s, maxWait: 10h }
        arrivals: { phases: [ { burst: 10000 } ] }
        waitingRoom: { mode: queue, outflow: 100/min }
        """

    /// bench/virtual-10m.sh's shape: 500,000 arriving evenly over 10 minutes.
    static let uniform = """
        version: 1
        name: uniform
        seed: 6
        target: { customerId: acme, waitingRoomId: million }
        client: { pollInterval: 5s, maxWait: 2h, requestTimeout: 10s }
        arrivals:
          process: uniform
          phases:
            - { duration: 10m, rate: 50000/min }
        visitors:
          - { name: app }
        waitingRoom:
          mode: queue
          eventStart: 0s
          outflow: 10000/min
          latency: { enqueue: 20ms, queuePage: 10ms, jitter: 0ms }
        """

    static let measured: [Measured] = [
        Measured(yaml: burst, scale: 5, points: 1, jobs: 1, peakKiB: 77_572),
        Measured(yaml: burst, scale: 20, points: 1, jobs: 1, peakKiB: 213_476),
        Measured(yaml: burst, scale: 50, points: 1, jobs: 1, peakKiB: 491_156),
        Measured(yaml: burst, scale: 20, points: 2, jobs: 2, peakKiB: 395_004),
        Measured(
            yaml: burst.replacingOccurrences(of: "maxWait: 10h }", with: "maxWait: 10h, platform: android }"),
            scale: 20, points: 1, jobs: 1, peakKiB: 212_788),
        Measured(yaml: uniform, scale: 1, points: 1, jobs: 1, peakKiB: 145_116),
    ]

    @Test("the estimate for the runs in flight is at least 90 % of the measured peak", arguments: measured.indices)
    func estimateCoversTheMeasuredPeak(_ index: Int) throws {
        let measured = Self.measured[index]
        let outflows = (0..<measured.points).map { offset in
            let text = "\(1_000 + offset)/min"
            return SweepValue(text: text, magnitude: Double(1_000 + offset) / 60)
        }
        let overrides = [ScenarioOverride(path: "arrivals.scale", value: "\(measured.scale)", origin: "--set")]
        let scaled = try ScenarioLoader.load(
            bytes: Array(measured.yaml.utf8), path: ScenarioTestSupport.path, overrides: overrides, environment: [:])
        let plan = try SweepPlan(
            file: ScenarioTestSupport.path, bytes: Array(measured.yaml.utf8), base: scaled, overrides: overrides,
            commandLine: SweepSettings(axes: [SweepAxis(key: "waitingRoom.outflow", values: outflows)]),
            environment: [:], needsQuestion: false)
        let fit = try SweepMemory.fit(
            plan: plan, jobs: measured.jobs, budget: MemoryBudget(bytes: 64 << 30, origin: "test"))
        #expect(fit.jobs == measured.jobs)
        let estimate = SweepMemory.bytes(perRun: fit.perRun, jobs: fit.jobs)
        let peak = measured.peakKiB * 1024
        #expect(
            Double(estimate) >= 0.9 * Double(peak),
            "estimate \(MemoryBudget.describe(estimate)), measured \(MemoryBudget.describe(peak))")
    }
}
