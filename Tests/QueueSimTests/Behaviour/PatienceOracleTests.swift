import Foundation
import Testing

@testable import QueueSim

/// Visitors who give up, against the queueing oracles, on the virtual clock, for both of the
/// room's counting rules (`waitingRoom.abandonedTurns`): a burst of `N` visitors at event start,
/// an outflow of `r` per second, no latency, every visitor on the queue page from 0 s.
@Suite("patience: the oracles", .timeLimit(.minutes(3)))
struct PatienceOracleTests {
    static func scenario(visitors: Int, outflowPerMinute: Int, patience: String, turns: String) -> String {
        """
        version: 1
        name: patience
        seed: 11
        clock: virtual
        target: { customerId: acme, waitingRoomId: launch }
        client: { pollInterval: 2s, maxWait: 10h }
        arrivals: { phases: [ { burst: \(visitors) } ] }
        visitors: [ { name: app, patience: \(patience) } ]
        waitingRoom:
          outflow: \(outflowPerMinute)/min
          abandonedTurns: \(turns)
          latency: { enqueue: 0s, queuePage: 0s, jitter: 0s }
        """
    }

    /// Fixed patience `T`, `r·T < N`: the first `r·T` turns come while their visitors still
    /// wait, the rest come after everyone left. Tolerance: the queue page answers `Retry-After`
    /// in whole seconds (capped at 30), so a visitor learns of its turn up to 1 s after it; the
    /// visitors whose turn comes in the last second before `T` may give up first — at most `r`
    /// of them. The counting rule changes nothing here: every turn before `T` goes to a visitor
    /// still waiting.
    @Test("fixed patience T: r·T pass, N − r·T abandon", arguments: ["wasted", "skipped"])
    func fixedPatience(turns: String) throws {
        let (n, r, t) = (1_000, 10, 60)
        let reports = try RunFixture.virtual(
            Self.scenario(visitors: n, outflowPerMinute: r * 60, patience: "{ fixed: \(t)s }", turns: turns),
            label: "fixed-\(turns)")
        reports.expectContract(arrivals: n)
        let passed = reports.outcomes["passed", default: 0]
        let abandoned = reports.outcomes["abandoned", default: 0]
        #expect(passed + abandoned == n)
        #expect(passed >= r * t - r && passed <= r * t, "passed \(passed), expected r·T = \(r * t) − at most r")
        for row in reports.visitors.rows where row["outcome"] == "abandoned" {
            // Patience counts from landing on the queue page (0 s here) to closing the app.
            #expect(row["wait_ms"] == "\(t * 1000)")
            #expect(row["total_ms"] == "\(t * 1000)")
        }
        // Nobody who gave up polled after it: its last poll was before T.
        #expect(reports.timeline.column("abandoned").compactMap(Int.init).reduce(0, +) == abandoned)
    }

    /// Exponential patience with mean θ (the fluid models of docs/waiting-room.md):
    ///
    /// - wasted turns: turn k (k/r s after the start) finds its visitor with probability
    ///   `e^(−k/(rθ))`, so `Σ_k e^(−k/(rθ)) ≈ rθ(1 − e^(−N/(rθ)))` pass. Tolerance: the count is
    ///   a sum of independent Bernoulli draws whose standard deviation is
    ///   `√(Σ p(1−p)) = √(rθ[(1 − e^(−N/(rθ))) − (1 − e^(−2N/(rθ)))/2])` ≈ 34 here; we allow 4 of
    ///   them (1 in 15,000 for a fair seed), plus the ≤ 1 s Retry-After rounding (≈ 0.1 %).
    /// - skipped turns: the live queue drains at `r + Q/θ`, so it empties at
    ///   `t* = θ·ln(1 + N/(rθ))` and `r·t*` pass. The room learns a visitor left only once it has
    ///   been silent 60 s at its turn (it polled up to 30 s before leaving), so turns of visitors
    ///   who left less than ~45 s before are still wasted: a share w ≈ 45/θ = 2.5 % of turns,
    ///   which slows the drain to `r(1 − w)` (t* 1.6 % later, passes 1 % fewer). Tolerance: that
    ///   bias, plus 4 standard deviations of the noise (≈ 1 %): 5 % on both figures.
    @Test("exponential patience θ: the fluid model of each counting rule", arguments: ["wasted", "skipped"])
    func exponentialPatience(turns: String) throws {
        let (n, r, theta) = (6_000, 2.0, 1_800.0)
        let reports = try RunFixture.virtual(
            Self.scenario(visitors: n, outflowPerMinute: Int(r * 60), patience: "{ mean: 30m }", turns: turns),
            label: "exponential-\(turns)")
        let passed = Double(reports.outcomes["passed", default: 0])
        #expect(Int(passed) + reports.outcomes["abandoned", default: 0] == n)
        let rTheta = r * theta
        let lastPass =
            reports.visitors.rows.filter { $0["outcome"] == "passed" }
            .compactMap { $0["total_ms"].flatMap(Double.init) }.max()! / 1000
        if turns == "wasted" {
            let expected = rTheta * (1 - exp(-Double(n) / rTheta))
            let spread = (rTheta * ((1 - exp(-Double(n) / rTheta)) - (1 - exp(-2 * Double(n) / rTheta)) / 2))
                .squareRoot()
            #expect(abs(passed - expected) <= 4 * spread + 0.001 * expected, "passed \(passed), fluid \(expected)")
            // Turns come at the outflow whoever is there: the last of them at N/r.
            #expect(lastPass <= Double(n) / r + 1)
        } else {
            let empties = theta * log(1 + Double(n) / rTheta)
            #expect(abs(passed - r * empties) <= 0.05 * r * empties, "passed \(passed), fluid \(r * empties)")
            #expect(abs(lastPass - empties) <= 0.05 * empties, "queue emptied at \(lastPass) s, fluid \(empties) s")
        }
    }
}
