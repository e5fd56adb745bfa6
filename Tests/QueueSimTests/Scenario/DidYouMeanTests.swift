import Testing

@testable import QueueSim

/// Near misses in thresholds and misplaced keys get the word that was meant, at the place of
/// the typo (issue 29, item 7).
@Suite("did you mean: metrics, groups, the clock key")
struct DidYouMeanTests {
    static let groups =
        ScenarioTestSupport.minimal + """
            visitors:
              - { name: app, weight: 3 }
              - { name: partner, weight: 1 }

            """

    @Test func aMisspelledMetricNamesTheMetricMeant() {
        let yaml =
            Self.groups + """
                thresholds:
                  - waits.p95 < 5m
                  - wait.95 < 5m
                  - enqueue.p95s < 300ms
                  - error.cout > 3
                  - "visitor >= 10"
                  - partner: totl.max < 1m

                """
        #expect(
            ScenarioTestSupport.problems(yaml) == [
                "12:5: unknown metric `waits.p95`; did you mean `wait.p95`?",
                "13:5: unknown metric `wait.95`; did you mean `wait.p95`?",
                "14:5: unknown metric `enqueue.p95s`; did you mean `enqueue.p95`?",
                "15:5: unknown metric `error.cout`; did you mean `error.count`?",
                "16:6: unknown metric `visitor`; did you mean `visitors`?",
                "17:14: unknown metric `totl.max`; did you mean `total.max`?",
            ])
    }

    @Test func aMetricWithNothingCloseListsWhatThereIs() {
        #expect(
            ScenarioTestSupport.problems(Self.groups + "thresholds:\n  - latency < 5m\n") == [
                "12:5: unknown metric `latency`; expected an outcome (passed, error, …) for its share, OUTCOME.count, visitors, or enqueue|wait|total with .p50, .p95, .p99.9, .min, .max or .mean"
            ])
    }

    @Test func aMisspelledGroupNamesTheGroupMeant() {
        #expect(
            ScenarioTestSupport.problems(
                Self.groups
                    + "thresholds:\n  - \"aps: passed >= 99%\"\n  - partnr: wait.p95 < 5m\n  - web: error < 1%\n")
                == [
                    "12:5: this threshold names the group `aps`, but it is not one of the scenario's groups; did you mean `app`?",
                    "13:5: a threshold for one group reads `- GROUP: METRIC OPERATOR VALUE`, but `partnr` is not one of the scenario's groups; did you mean `partner`?",
                    "14:5: a threshold for one group reads `- GROUP: METRIC OPERATOR VALUE`, but `web` is not one of the scenario's groups (`app`, `partner`)",
                ])
    }

    @Test func aClockUnderRunIsSentToTheTopLevel() {
        #expect(
            ScenarioTestSupport.problems(ScenarioTestSupport.minimal + "run:\n  clock: virtual\n") == [
                "9:3: unknown key `clock` in `run`; `clock` belongs in the top level of the scenario (`clock: virtual`, beside `seed`)"
            ])
    }
}
