import Testing

@testable import QueueSim

/// A number a user reads carries its unit: a wait series' gap is in minutes (Queue-it's unit),
/// a count series' has none.
@Suite("fidelity: the largest gap's unit")
struct FidelityGapUnitTests {
    private let gap = FidelityGap(runMinute: 12, time: "2026-05-01T09:12:00Z", run: 24.01, real: 21, gap: 3.01)

    @Test("a wait series says minutes on every figure; a count series says none")
    func units() {
        #expect(
            FidelityText.gap(gap, series: "queueactualwaittime")
                == "+3.01 min at 2026-05-01T09:12:00Z (run 24.01 min, real 21 min)")
        #expect(
            FidelityText.gap(gap, series: "queueoutflow") == "+3.01 at 2026-05-01T09:12:00Z (run 24.01, real 21)")
        #expect(FidelityText.gap(nil, series: "queueactualwaittime") == "—")
    }
}
