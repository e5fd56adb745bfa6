import QueueClientCore
import Testing

@testable import QueueSim

/// The fluid model (waiting-room-models.md §5.1): a cohort of N at event start, outflow μ.
/// The k-th released visitor (k from 0) is released at k/μ, so waits are uniform on [0, N/μ].
/// A visitor learns of its release at its next poll: `Retry-After` is the whole seconds to its
/// turn rounded up, so the poll that finds it released comes less than 1 s after the release
/// (plus the modelled queue-page latency).
@Suite("Fluid model: a burst at event start")
struct FluidModelTests {
    @Test("Every released visitor waits k/μ, within one second of polling")
    func everyRankMatchesTheFluidLine() throws {
        let (report, directory) = try VirtualRun.run(
            """
            version: 1
            name: fluid
            seed: 3
            target: { customerId: acme, waitingRoomId: fluid }
            client: { pollInterval: 1s, maxWait: 1h }
            arrivals:
              phases:
                - { burst: 600 }
            waitingRoom:
              outflow: 120/min
              latency: { enqueue: 0ms, queuePage: 0ms, jitter: 0ms }
            """)
        #expect(report.outcomeCounts[.passed] == 600)
        let waits = try VirtualRun.visitors(directory).map(\.waitMs).sorted()
        for (rank, wait) in waits.enumerated() {
            let fluid = Int64(rank) * 500  // 1/μ = 0.5 s
            #expect(wait >= fluid && wait < fluid + 1000, "rank \(rank): waited \(wait) ms, fluid \(fluid) ms")
        }
    }

    /// Issue 6: 10,000 in a burst at 1,000/min: median 300 s ± 3 s, max 600 s ± 3 s.
    @Test("10,000 at 1,000/min: median 300 s and max 600 s, within 3 s")
    func burstOracle() throws {
        let (report, directory) = try VirtualRun.run(
            """
            version: 1
            name: burst
            seed: 6
            target: { customerId: acme, waitingRoomId: burst }
            client: { pollInterval: 2s, maxWait: 30m }
            arrivals:
              phases:
                - { burst: 10000 }
            waitingRoom:
              eventStart: 0s
              outflow: 1000/min
              latency: { enqueue: 20ms, queuePage: 10ms, jitter: 0ms }
            """)
        #expect(report.outcomeCounts[.passed] == 10_000)
        let waits = try VirtualRun.visitors(directory).map(\.waitMs)
        let median = Ranks.percentile(waits, 50)
        let maximum = waits.max() ?? 0
        #expect(abs(median - 300_000) <= 3_000, "median \(median) ms")
        #expect(abs(maximum - 600_000) <= 3_000, "max \(maximum) ms")
        // The report's own percentiles (HdrHistogram, 2 significant digits) say the same.
        let histogram = report.measurements.timings.histogram(for: .wait)
        let p50 = Int64(histogram.valueAtPercentile(50))
        #expect(abs(p50 - 300_000) <= 3_000 + 300_000 / 100, "summary p50 \(p50) ms")
        #expect(abs(Int64(histogram.maxRecorded) - 600_000) <= 3_000 + 600_000 / 100)
    }
}
