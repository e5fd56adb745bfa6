import Histogram
import QueueClientCore
import Testing

@testable import QueueSim

@Suite("compare: rules, noise bands and verdicts")
struct CompareRuleTests {
    @Test func rulesReadTheirDirectionAndSize() throws {
        let wait = try CompareRule(parsing: "wait.p95: +10%")
        #expect(wait.metric == .timing(.wait, .percentile(95)))
        #expect(wait.worseDirection == 1)
        #expect(wait.limit(base: 60_000) == 6_000)
        let passed = try CompareRule(parsing: "passed: -1pp")
        #expect(passed.worseDirection == -1)
        #expect(passed.limit(base: 0.97) == 0.01)
        #expect(try CompareRule(parsing: "enqueue.p99: +200ms").limit(base: 1) == 200)
        #expect(try CompareRule(parsing: "wait.max: +2m").limit(base: 1) == 120_000)
        #expect(try CompareRule(parsing: "error.count: +5").limit(base: 100) == 5)
        #expect(try CompareRule(parsing: "total.p50: off").limit(base: 1) == nil)
        #expect(CompareRule.defaults.count == CompareRule.defaultRuleTexts.count)
    }

    @Test func badRulesSayWhatIsWrong() {
        func problem(_ text: String) -> String {
            do {
                _ = try CompareRule(parsing: text)
                return "parsed"
            } catch {
                return error.message
            }
        }
        #expect(problem("wait.p95 +10%").contains("is not a rule"))
        #expect(problem("wait.p95: 10%").contains("needs a sign"))
        #expect(problem("wait.p95: +5").contains("a timing moves by a duration"))
        #expect(problem("error: +5").contains("a share moves by percentage points"))
        #expect(problem("wait.p95: +0.5pp").contains("percentage points (`pp`) are for shares"))
        #expect(problem("passed: -abc%").contains("is not a size"))
    }

    /// Later rules replace earlier ones for the same metric: defaults, the run's block, --rule.
    @Test func laterRulesReplaceEarlierOnes() throws {
        let rules = RunComparison.rules(
            recorded: [try CompareRule(parsing: "wait.p95: +20%")],
            commandLine: [try CompareRule(parsing: "wait.p95: +5%"), try CompareRule(parsing: "error: off")])
        #expect(rules.filter { $0.metric == .timing(.wait, .percentile(95)) }.map(\.source) == ["wait.p95: +5%"])
        #expect(rules.first { $0.metric == .outcomeRatio(.error) }?.allowance == .off)
        #expect(rules.count == CompareRule.defaults.count)
    }

    @Test func theWilsonIntervalOfAShareStaysInsideZeroToOne() throws {
        let none = try #require(NoiseBand.share(0, of: 1000))
        #expect(none.lower < 1e-12 && none.upper > 0.003 && none.upper < 0.004)
        let half = try #require(NoiseBand.share(500, of: 1000))
        #expect(abs(half.lower - 0.469) < 0.001 && abs(half.upper - 0.531) < 0.001)
        #expect(NoiseBand.share(0, of: 0) == nil)
    }

    /// The order-statistic interval of the median of 1…1000: ranks 500 ± 31.
    @Test func aPercentileIntervalComesFromTheRanksAroundIt() throws {
        var histogram = Histogram<UInt64>(numberOfSignificantValueDigits: .three)
        for value in 1...1000 { histogram.record(UInt64(value)) }
        let median = try #require(NoiseBand.percentile(50, of: histogram))
        #expect(median.lower == 469 && median.upper == 532)
        #expect(NoiseBand.percentile(50, of: Histogram<UInt64>(numberOfSignificantValueDigits: .three)) == nil)
    }

    @Test func verdictsJudgeTheBadDirectionBeyondTheAllowanceAndTheNoise() throws {
        let rule = try CompareRule(parsing: "wait.p95: +10%")
        func verdict(_ base: Double?, _ new: Double?, rule: CompareRule? = rule, noise: Bool = false)
            -> RunComparison.Verdict
        {
            RunComparison.verdict(
                RunComparison.Row(
                    scope: "all", metric: .timing(.wait, .percentile(95)), base: base, new: new, rule: rule,
                    withinNoise: noise, verdict: .missing))
        }
        #expect(verdict(100, 110) == .ok)
        #expect(verdict(100, 111) == .regression)
        #expect(verdict(100, 111, noise: true) == .noise)
        #expect(verdict(100, 80) == .improved)
        #expect(verdict(100, 80, noise: true) == .ok)
        #expect(verdict(nil, 80) == .missing)
        #expect(verdict(100, 100, rule: nil) == .same)
        #expect(verdict(100, 130, rule: nil) == .changed)
        #expect(verdict(100, 130, rule: nil, noise: true) == .withinNoise)
        #expect(verdict(100, 200, rule: try CompareRule(parsing: "wait.p95: off")) == .changed)
    }
}

@Suite("Path text without Foundation's path methods")
struct PathTextTests {
    @Test func piecesOfAPath() {
        #expect(PathText.lastComponent("d") == "d")
        #expect(PathText.lastComponent("reports/launch/") == "launch")
        #expect(PathText.lastComponent("/") == "/")
        #expect(PathText.parent("d") == "")
        #expect(PathText.parent("reports/d") == "reports")
        #expect(PathText.parent("/d") == "/")
        #expect(PathText.parent("a//b/") == "a")
        #expect(PathText.withoutExtension("s.yaml") == "s")
        #expect(PathText.withoutExtension(".hidden") == ".hidden")
        #expect(PathText.appending("keys.csv", to: "data/") == "data/keys.csv")
        #expect(PathText.appending("keys.csv", to: ".") == "./keys.csv")
    }
}
