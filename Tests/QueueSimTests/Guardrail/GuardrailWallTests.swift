import Foundation
import QueueClientCore
import Testing

@testable import QueueSim

/// Guardrails and the request cap on the wall clock, against the embedded room on loopback.
@Suite("Guardrails: wall clock", .serialized, .timeLimit(.minutes(1)))
struct GuardrailWallTests {
    @Test("a guardrail stops a wall-clock run within a second or so of the window that failed it")
    func guardrailStopsAWallRun() async throws {
        // From 2 s every enqueue is answered 400: those visitors end `error` at once.
        let reports = try await RunFixture.wall(
            """
            version: 1
            name: wall-storm
            seed: 3
            target: { customerId: acme, waitingRoomId: launch }
            arrivals: { phases: [ { duration: 30s, rate: 20 } ] }
            waitingRoom:
              mode: safetynet
              outflow: 6000/min
              faults:
                - { from: 2s, endpoint: enqueue, status: 400 }
            thresholds:
              - { threshold: "error < 5%", over: 2s, abortOnFail: true, minVisitors: 10 }
            """)
        #expect(reports.report.exitStatus == .guardrailStopped)
        let trip = try #require(reports.report.guardrailTrip)
        // The window 1..3 is the first with errors in it (half of its visitors); it is judged
        // a quarter of a second after second 3. A loaded machine may hand the rows over late,
        // and the window 2..4 trips instead.
        #expect(trip.window.to >= 3 && trip.window.to <= 4, "\(trip)")
        #expect(trip.window.measured >= 0.05, "\(trip)")
        #expect(trip.at >= .origin + .seconds(3) && trip.at < .origin + .seconds(8), "\(trip.at)")
        #expect(reports.report.durationMs == trip.at.milliseconds)
        // Every visitor who arrived has a row; nobody arrived after the stop.
        reports.expectContract(arrivals: reports.visitors.rows.count)
        #expect(reports.visitors.rows.count < 200)
        let lastArrival = reports.visitors.column("arrival_ms").compactMap(Int64.init).max() ?? 0
        #expect(lastArrival <= trip.at.milliseconds)
        #expect(reports.manifest["exit_code"] as? Int == 4)
    }

    @Test("run.maxRequestRate holds on the wall clock: a burst of 120 enqueues at 40/s takes three seconds")
    func maxRequestRateOnTheWallClock() async throws {
        let reports = try await RunFixture.wall(
            """
            version: 1
            name: wall-capped
            seed: 3
            target: { customerId: acme, waitingRoomId: launch }
            arrivals: { phases: [ { burst: 120 } ] }
            waitingRoom: { mode: safetynet, outflow: 60000/min }
            run: { maxRequestRate: 40/s }
            """)
        reports.expectContract(arrivals: 120)
        #expect(reports.outcomes == ["passed": 120])
        let perSecond = reports.timeline.column("requests").compactMap(Int.init)
        #expect(perSecond.reduce(0, +) == 120)
        // Turns are 25 ms apart, so the run as a whole never goes faster than the cap; a loop
        // that stalls sends its overdue turns together, which can put a few more in one second.
        #expect((perSecond.max() ?? 0) <= 45, "\(perSecond)")
        #expect(Double(perSecond.reduce(0, +) - 1) / (Double(reports.report.durationMs) / 1000) <= 40.001)
        // The 120th request's turn comes at 119 × 25 ms.
        #expect(reports.report.durationMs >= 2_975, "\(reports.report.durationMs)")
        let enqueueTimes = reports.visitors.column("enqueue_ms").compactMap(Int.init)
        #expect((enqueueTimes.max() ?? 0) >= 2_900, "the last visitor waited for its turn")
    }
}
