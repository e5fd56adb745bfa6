import Foundation
import QueueClientCore
import Testing

@testable import QueueSim

/// M/D/1 (waiting-room-models.md §5.2): Poisson arrivals at λ, one release every 1/μ (smooth
/// outflow), ρ = λ/μ = 0.8. Pollaczek–Khinchine: Wq = ρ / (2μ(1−ρ)).
///
/// Method (§5.5): drop the first 10 % as warm-up, 20 batch means, accept if the analytic Wq
/// lies within the 95 % confidence interval or 3 standard errors of the simulated mean.
@Suite("M/D/1 at rho = 0.8")
struct MD1TheoryTests {
    static let rho = 0.8

    /// Release times straight from the room's model: the room's outflow is the M/D/1 server.
    /// `release_n = max(arrival_n, release_{n−1} + 1/μ)` is the Lindley recursion, so the
    /// model's release instant minus the arrival is exactly the M/D/1 queueing delay — no poll
    /// quantization involved. μ = 60/min (1/μ = 1 s) → Wq = 2 s.
    @Test("The room's release times give the M/D/1 mean wait")
    func releaseTimesFromTheModel() {
        let mu = 1.0  // per second
        var model = WaitingRoomModel(configuration: RoomFixture.configuration(outflowPerMinute: mu * 60))
        var random = SeededRandom(seed: 2024, purpose: .arrivalJitter)
        var time = 0.0
        var waits: [Double] = []
        let visitors = 200_000
        waits.reserveCapacity(visitors)
        for _ in 0..<visitors {
            time += -log(1 - random.nextUnit()) / (Self.rho * mu)
            let arrival = RunInstant(wholeNanoseconds: Int64(time * 1e9))
            guard case .queued(let ticket, _) = model.enqueue(enqueueKey: nil, enqueueToken: nil, at: arrival),
                let release = model.releaseInstant(ofTicket: ticket)
            else {
                Issue.record("visitor was not queued with a release instant")
                return
            }
            waits.append(Double((release - arrival).wholeNanoseconds) / 1e9)
        }
        let expected = Self.rho / (2 * mu * (1 - Self.rho))
        let batches = BatchMeans(Array(waits.dropFirst(visitors / 10)), batches: 20)
        #expect(batches.accepts(expected), "Wq \(batches.mean) ± \(batches.standardError) vs \(expected)")
        // P(Wq = 0) = 1 − ρ: the share released at the instant they arrive.
        let immediate = Double(waits.filter { $0 == 0 }.count) / Double(waits.count)
        #expect(abs(immediate - (1 - Self.rho)) < 0.01, "P(Wq = 0) = \(immediate)")
    }

    /// The whole pipeline: visitors, client core, room, reports. What `wait_ms` measures is not
    /// the release delay: the client learns of its release at its next poll. With zero latency
    /// and `Retry-After` = ⌈time to turn⌉ whole seconds, a visitor who must wait x > 0 seconds
    /// polls at entry + whole seconds and sees its turn at ⌈x⌉. So `wait_ms` = ⌈x⌉ exactly, and
    /// x lies in (⌈x⌉ − 1, ⌈x⌉]. We pick 1/μ = 10 s so the 1 s quantization is small next to the
    /// waits, and subtract its expectation, ½ s per waiting visitor (arrival phases are
    /// continuous, so the fractional part of x is uniform), before comparing with
    /// Wq = 0.8 / (2 · 0.1/s · 0.2) = 20 s. Comparing release times exactly is the test above.
    @Test("wait_ms of a Poisson run, less poll quantization, matches the M/D/1 mean wait")
    func endToEndWaits() throws {
        let perMinute = 6.0
        let (_, directory) = try VirtualRun.run(
            """
            version: 1
            name: md1
            seed: 99
            clock: virtual
            target: { customerId: acme, waitingRoomId: md1 }
            client: { pollInterval: 1s, maxWait: 10h }
            arrivals:
              process: poisson
              phases:
                - { duration: 50h, rate: \(Self.rho * perMinute)/min }
            waitingRoom:
              outflow: \(perMinute)/min
              latency: { enqueue: 0ms, queuePage: 0ms, jitter: 0ms }
            """)
        // Fifty hours of run: its report folder is over a gigabyte, not to be left in /tmp.
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let rows = try VirtualRun.visitors(directory)
        #expect(rows.count > 12_000)
        #expect(rows.allSatisfy { $0.outcome == "passed" })
        let corrected = rows.map { row -> Double in
            let measured = Double(row.waitMs) / 1000
            return measured > 0 ? measured - 0.5 : 0
        }
        let expected = Self.rho / (2 * (perMinute / 60) * (1 - Self.rho))
        let batches = BatchMeans(Array(corrected.dropFirst(rows.count / 10)), batches: 20)
        #expect(batches.accepts(expected), "Wq \(batches.mean) ± \(batches.standardError) vs \(expected)")
    }
}
