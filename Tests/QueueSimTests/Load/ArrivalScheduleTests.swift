import Foundation
import QueueClientCore
import Testing

@testable import QueueSim

@Suite("Arrival schedule")
struct ArrivalScheduleTests {
    private func arrivals(_ phases: [ArrivalPhase], process: ArrivalProcess = .uniform, max: Int? = nil)
        -> Arrivals
    {
        Arrivals(process: process, phases: phases, maxVisitors: max)
    }

    private func instants(_ schedule: ArrivalSchedule) -> [RunInstant] {
        Array(schedule)
    }

    private func at(nanoseconds: Int64) -> RunInstant {
        RunInstant(sinceOrigin: .nanoseconds(nanoseconds))
    }

    @Test("uniform constant rate: arrivals centred in equal slots, evenly spaced across phases")
    func uniformConstantRate() throws {
        let schedule = try ArrivalSchedule(
            arrivals([
                .steady(duration: .seconds(1), rate: 10, rampTo: nil),
                .steady(duration: .seconds(1), rate: 10, rampTo: nil),
            ]),
            seed: 1)
        let expected = (0..<20).map { at(nanoseconds: 50_000_000 + Int64($0) * 100_000_000) }
        #expect(instants(schedule) == expected)
        #expect(schedule.plannedCount == 20)
        #expect(schedule.span == .seconds(2))
    }

    @Test("a fractional phase count rounds half up and stays inside the phase")
    func fractionalCounts() throws {
        let half = try ArrivalSchedule(arrivals([.steady(duration: .seconds(3), rate: 0.5, rampTo: nil)]), seed: 1)
        #expect(instants(half) == [at(nanoseconds: 1_000_000_000), at(nanoseconds: 3_000_000_000)])
        let below = try ArrivalSchedule(arrivals([.steady(duration: .seconds(3), rate: 0.4, rampTo: nil)]), seed: 1)
        #expect(instants(below) == [at(nanoseconds: 1_250_000_000)])
    }

    @Test("a ramp from zero places the k-th arrival where the rate integral reaches k + 1/2")
    func rampUpFromZero() throws {
        // 0 → 10/s over 10 s: slope 1/s², ∫ = t²/2, 50 arrivals, the k-th at √(2k + 1).
        let schedule = try ArrivalSchedule(arrivals([.steady(duration: .seconds(10), rate: 0, rampTo: 10)]), seed: 1)
        let times = instants(schedule)
        #expect(times.count == 50)
        #expect(schedule.plannedCount == 50)
        for (k, instant) in times.enumerated() {
            let expected = Int64((Double(2 * k + 1).squareRoot() * 1e9).rounded())
            let actual =
                instant.sinceOrigin.components.attoseconds / 1_000_000_000
                + instant.sinceOrigin.components.seconds * 1_000_000_000
            #expect(abs(actual - expected) <= 1, "arrival \(k)")
        }
    }

    @Test("a ramp down to zero keeps every arrival inside the phase, in order")
    func rampDownToZero() throws {
        let schedule = try ArrivalSchedule(
            arrivals([.steady(duration: .seconds(10), rate: 10, rampTo: 0), .burst(count: 1)]), seed: 1)
        let times = instants(schedule)
        #expect(times.count == 51)
        #expect(times == times.sorted())
        // 10t − t²/2 = 1/2 → t = 10 − √99.
        let first = (10 - 99.0.squareRoot()) * 1e9
        #expect(abs(Double(times[0].sinceOrigin.components.attoseconds) / 1e9 - first) <= 1)
        #expect(times[49] <= RunInstant(sinceOrigin: .seconds(10)))
        #expect(times[50] == RunInstant(sinceOrigin: .seconds(10)))
    }

    @Test("bursts arrive together at the timeline point; pauses move the timeline")
    func burstsAndPauses() throws {
        let schedule = try ArrivalSchedule(
            arrivals([
                .steady(duration: .seconds(1), rate: 2, rampTo: nil), .pause(duration: .seconds(5)), .burst(count: 3),
                .steady(duration: .seconds(1), rate: 1, rampTo: nil),
            ]), seed: 1)
        #expect(
            instants(schedule) == [
                at(nanoseconds: 250_000_000), at(nanoseconds: 750_000_000), at(nanoseconds: 6_000_000_000),
                at(nanoseconds: 6_000_000_000), at(nanoseconds: 6_000_000_000), at(nanoseconds: 6_500_000_000),
            ])
        #expect(schedule.span == .seconds(7))
    }

    @Test("maxVisitors keeps the first arrivals")
    func maxVisitorsCap() throws {
        let schedule = try ArrivalSchedule(
            arrivals([.burst(count: 2), .steady(duration: .seconds(10), rate: 10, rampTo: nil)], max: 5), seed: 1)
        #expect(schedule.plannedCount == 5)
        #expect(
            instants(schedule) == [
                .origin, .origin, at(nanoseconds: 50_000_000), at(nanoseconds: 150_000_000),
                at(nanoseconds: 250_000_000),
            ])
        let poisson = try ArrivalSchedule(
            arrivals([.steady(duration: .seconds(100), rate: 10, rampTo: nil)], process: .poisson, max: 7), seed: 3)
        #expect(instants(poisson).count == 7)
        #expect(poisson.plannedCount == 7)
    }

    @Test("poisson: count and gaps of an exponential process, within 4σ")
    func poissonStatistics() throws {
        let schedule = try ArrivalSchedule(
            arrivals([.steady(duration: .seconds(1000), rate: 10, rampTo: nil)], process: .poisson), seed: 42)
        let times = instants(schedule)
        #expect(abs(times.count - 10_000) <= 400)  // σ = √10 000 = 100
        #expect(schedule.plannedCount == times.count)
        #expect(times == times.sorted())
        let gaps = zip(times.dropFirst(), times).map { ($0 - $1).secondsDouble }
        let mean = gaps.reduce(0, +) / Double(gaps.count)
        #expect(abs(mean - 0.1) <= 0.004)  // σ of the mean ≈ 0.1/√10 000 = 0.001
        // Exponential gaps have a standard deviation equal to their mean (uniform ones: zero).
        let variance = gaps.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(gaps.count - 1)
        #expect(abs(variance.squareRoot() / mean - 1) <= 0.1)
    }

    @Test("poisson ramp: arrivals follow the rate integral")
    func poissonRamp() throws {
        // 0 → 20/s over 100 s: ∫ = 1000 in all, 250 in the first half.
        let schedule = try ArrivalSchedule(
            arrivals([.steady(duration: .seconds(100), rate: 0, rampTo: 20)], process: .poisson), seed: 7)
        let times = instants(schedule)
        #expect(abs(times.count - 1000) <= 127)
        let firstHalf = times.filter { $0 < RunInstant(sinceOrigin: .seconds(50)) }.count
        #expect(abs(firstHalf - 250) <= 64)
        #expect(abs(schedule.expectedCount - 1000) < 1e-9)
    }

    @Test("poisson: the same seed gives the same arrivals, another seed others")
    func poissonDeterminism() throws {
        let phases = arrivals(
            [.steady(duration: .seconds(60), rate: 5, rampTo: 50), .burst(count: 10)], process: .poisson)
        let first = instants(try ArrivalSchedule(phases, seed: 9))
        let again = instants(try ArrivalSchedule(phases, seed: 9))
        let other = instants(try ArrivalSchedule(phases, seed: 10))
        #expect(first == again)
        #expect(first != other)
    }

    @Test("--visitors N scales rates and bursts, keeps the span and gives exactly N (uniform)")
    func scaleKeepsShape() throws {
        let phases = arrivals([.steady(duration: .seconds(10), rate: 0, rampTo: 10), .burst(count: 50)])
        let scaled = try ArrivalSchedule(phases, seed: 1, visitors: 1000)
        let times = instants(scaled)
        #expect(scaled.scale == 10)
        #expect(times.count == 1000)
        #expect(times.filter { $0 == RunInstant(sinceOrigin: .seconds(10)) }.count == 500)
        #expect(scaled.span == .seconds(10))
        // Per-phase rounding never leaves the plan short of N.
        let uneven = arrivals([
            .steady(duration: .seconds(3), rate: 1, rampTo: 4), .burst(count: 7), .pause(duration: .seconds(2)),
            .steady(duration: .seconds(5), rate: 3, rampTo: nil), .burst(count: 1),
        ])
        for wanted in 1...300 {
            let schedule = try ArrivalSchedule(uneven, seed: 1, visitors: wanted)
            #expect(schedule.plannedCount == wanted)
            #expect(instants(schedule).count == wanted)
        }
    }

    @Test("--visitors scales the plan as capped by maxVisitors and replaces the cap")
    func scaleWithMaxVisitors() throws {
        let phases = arrivals([.steady(duration: .seconds(100), rate: 10, rampTo: nil)], max: 100)
        let scaled = try ArrivalSchedule(phases, seed: 1, visitors: 200)
        let times = instants(scaled)
        #expect(times.count == 200)
        // The capped run lasted 10 s; twice the visitors arrive in the same 10 s.
        #expect(times.last! < RunInstant(sinceOrigin: .seconds(10)))
    }

    @Test("--visitors with poisson: about N, never more")
    func scalePoisson() throws {
        let phases = arrivals([.steady(duration: .seconds(60), rate: 10, rampTo: nil)], process: .poisson)
        let scaled = try ArrivalSchedule(phases, seed: 5, visitors: 10_000)
        let count = instants(scaled).count
        #expect(count <= 10_000)
        #expect(count >= 10_000 - 400)
        #expect(scaled.scale == 10_000.0 / 600)
    }

    @Test("--visitors errors: negative, or nothing to scale")
    func scaleErrors() throws {
        let phases = arrivals([.steady(duration: .seconds(10), rate: 1, rampTo: nil)])
        #expect(throws: PlanError.invalidVisitorCount(-1)) { try ArrivalSchedule(phases, seed: 1, visitors: -1) }
        #expect(throws: PlanError.nothingToScale(visitors: 5)) {
            try ArrivalSchedule(arrivals([.pause(duration: .seconds(5))]), seed: 1, visitors: 5)
        }
        #expect(try ArrivalSchedule(phases, seed: 1, visitors: 0).plannedCount == 0)
    }

    @Test("a million arrivals stream without being stored", .timeLimit(.minutes(1)))
    func millionArrivals() throws {
        for process in ArrivalProcess.allCases {
            let schedule = try ArrivalSchedule(
                arrivals([.steady(duration: .seconds(1000), rate: 500, rampTo: 1500)], process: process), seed: 1)
            let started = ContinuousClock.now
            var count = 0
            var last = RunInstant.origin
            var ordered = true
            for instant in schedule {
                ordered = ordered && instant >= last
                last = instant
                count += 1
            }
            #expect(ordered)
            if process == .uniform { #expect(count == 1_000_000) } else { #expect(abs(count - 1_000_000) <= 4000) }
            // Loose: the real target (≪ 1 s in release) belongs to bench/.
            #expect(ContinuousClock.now - started < .seconds(5))
        }
    }
}
