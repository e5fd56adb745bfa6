import Foundation
import QueueClientCore
import Testing

@testable import QueueSim

/// Issue 6, item 5: a deterministic scenario gives the same outcome counts on the wall clock
/// and in virtual time, and wait percentiles within one poll interval of each other.
@Suite("Wall clock and virtual time agree")
struct WallVirtualAgreementTests {
    /// 60 visitors, evenly spaced at 20/s (arrivals at 25 ms, 75 ms, …), outflow 10/s: visitor
    /// k is released at k·100 ms and waits about k·50 ms. The enqueue latency (25 ms) puts every
    /// release at least 25 ms away from a whole-second poll boundary, so the scheduling noise of
    /// a wall run (a few ms on loopback) cannot move a `Retry-After` poll by a second.
    static let scenario = """
        version: 1
        name: agreement
        seed: 8
        target: { customerId: acme, waitingRoomId: agree }
        client: { pollInterval: 500ms, maxWait: 1m, requestTimeout: 5s }
        arrivals:
          process: uniform
          phases:
            - { duration: 3s, rate: 20 }
        waitingRoom:
          outflow: 600/min
          latency: { enqueue: 25ms, queuePage: 10ms, jitter: 0ms }
        run:
          duration: 30s
        """

    @Test("Same outcome counts; wait p50 and p95 within one poll interval", .timeLimit(.minutes(1)))
    func agreement() async throws {
        let virtual = try VirtualRun.run(Self.scenario, label: "agreement-virtual")
        // The comparison means something only for a wall run that kept its schedule: on a
        // machine busy with other work (the rest of the test suite, builds) a visitor can start
        // late or wait seconds for an answer the room gave in 25 ms. Such a run is repeated, at
        // most three times; the last one is judged whatever it looks like.
        var wall = try await VirtualRun.runOnWallClock(Self.scenario, label: "agreement-wall")
        for _ in 0..<2 where try Self.wasDisturbed(wall.directory) {
            wall = try await VirtualRun.runOnWallClock(Self.scenario, label: "agreement-wall")
        }
        #expect(virtual.report.visitorCount == 60)
        #expect(wall.report.visitorCount == 60)
        #expect(virtual.report.outcomeCounts == wall.report.outcomeCounts)
        #expect(virtual.report.outcomeCounts[.passed] == 60)

        let virtualWaits = try VirtualRun.visitors(virtual.directory).map(\.waitMs)
        let wallWaits = try VirtualRun.visitors(wall.directory).map(\.waitMs)
        let pollInterval: Int64 = 500
        for percent in [50, 95] {
            let v = Ranks.percentile(virtualWaits, percent)
            let w = Ranks.percentile(wallWaits, percent)
            #expect(abs(v - w) <= pollInterval, "p\(percent): virtual \(v) ms, wall \(w) ms")
        }
        // The waits are not trivially zero: the queue does build up.
        #expect(Ranks.percentile(virtualWaits, 95) >= 1_000)
    }

    /// A visitor started more than 100 ms late, or its enqueue took more than 100 ms beyond the
    /// modelled 25 ms.
    static func wasDisturbed(_ directory: String) throws -> Bool {
        try VirtualRun.visitors(directory).contains { row in
            let lag = (Int64(row.cells["start_ms"] ?? "") ?? 0) - row.arrivalMs
            let enqueue = Int64(row.cells["enqueue_ms"] ?? "") ?? 0
            return lag > 100 || enqueue > 125
        }
    }
}
