import Foundation
import Testing

/// Issue 52, item 5: `validate` answers the launch question at once, from the fluid model, and
/// its plan summary does not contradict itself.
@Suite("queuesim validate: the fluid estimate")
struct ValidateEstimateCommandTests {
    /// The first number after `prefix` in `text` (`9,670` → 9670), nil when absent.
    static func number(after prefix: String, in text: String) -> Double? {
        guard let range = text.range(of: prefix) else { return nil }
        let digits = text[range.upperBound...].prefix { $0.isNumber || $0 == "," || $0 == "." }
        return Double(digits.filter { $0 != "," })
    }

    /// `47m 30s` (or `47m`) after `prefix`, in seconds.
    static func wait(after prefix: String, in text: String) -> Double? {
        guard let range = text.range(of: prefix) else { return nil }
        let rest = text[range.upperBound...]
        guard let minutes = Double(rest.prefix { $0.isNumber }), rest.dropFirst(String(Int(minutes)).count).first == "m"
        else { return nil }
        let afterMinutes = rest.dropFirst(String(Int(minutes)).count + 1).drop { $0 == " " }
        let seconds = Double(afterMinutes.prefix { $0.isNumber }) ?? 0
        return minutes * 60 + seconds
    }

    @Test func theLaunchQuestionIsAnsweredWithAWaitAndANeededOutflow() throws {
        // 300,000 people in the first 10 minutes, outflow 5,000/min, wait.p95 < 20m: the visitor
        // arriving at t minutes waits 5t, so the p95 is 47.5 minutes, 60 % get through within
        // 30 minutes, and wait.p95 < 20m needs μ with 9.5·(30,000/μ − 1) = 20: 9,661/min.
        let file = try TemporaryScenario(
            """
            version: 1
            clock: virtual
            target: { customerId: acme, waitingRoomId: onsale }
            client: { maxWait: 30m }
            arrivals: { phases: [ { duration: 10m, rate: 500/s } ] }
            waitingRoom: { outflow: 5000/min }
            thresholds: [ "wait.p95 < 20m" ]
            """)
        let started = Date()
        let result = try QueueSimProcess.run(["validate", file.path])
        let elapsed = Date().timeIntervalSince(started)
        #expect(result.status == 0, "\(result.stderr)")
        let out = result.stdout
        #expect(out.contains("  estimate    fluid estimate: wait p50 about "), "\(out)")
        let p95 = try #require(Self.wait(after: ", p95 about ", in: out), "\(out)")
        #expect(abs(p95 - 47.5 * 60) / (47.5 * 60) < 0.01)
        #expect(out.contains("about 60% get through within maxWait 30m"))
        let peak = try #require(Self.number(after: "peak queue about ", in: out))
        #expect(abs(peak - 250_000) / 250_000 < 0.01)
        let needed = try #require(Self.number(after: "outflow needed for wait.p95 < 20m: about ", in: out))
        #expect(abs(needed - 30_000 / (1 + 20 / 9.5)) / 9661 < 0.01)
        #expect(out.contains("outflow needed for wait.p95 < 20m: about 9,670/min"))
        // The stderr warning tells the same model's figures, not a second opinion.
        #expect(result.stderr.contains("fluid model: 120,000 visitors (40%) wait longer"), "\(result.stderr)")
        // Instant (a loose bound: the debug binary on a shared machine).
        #expect(elapsed < 5, "validate took \(elapsed) s")
    }

    @Test func aSingleBurstMatchesTheClosedForm() throws {
        // N = 100,000 at once, μ = 5,000/min: the last waits N/μ = 20 minutes, the p95 is
        // 0.95·N/μ = 19 minutes, and wait.p95 < 10m needs 0.95·N/10m = 9,500/min.
        let file = try TemporaryScenario(
            """
            version: 1
            clock: virtual
            target: { customerId: acme, waitingRoomId: onsale }
            client: { maxWait: 1h }
            arrivals: { phases: [ { burst: 100000 } ] }
            waitingRoom: { outflow: 5000/min }
            thresholds: [ "wait.p95 < 10m", "passed >= 99%" ]
            """)
        let result = try QueueSimProcess.run(["validate", file.path])
        #expect(result.status == 0, "\(result.stderr)")
        let out = result.stdout
        let p95 = try #require(Self.wait(after: ", p95 about ", in: out), "\(out)")
        #expect(abs(p95 - 0.95 * 20 * 60) / (0.95 * 20 * 60) < 0.01)
        let p50 = try #require(Self.wait(after: "wait p50 about ", in: out))
        #expect(abs(p50 - 10 * 60) / (10 * 60) < 0.01)
        let needed = try #require(Self.number(after: "outflow needed for wait.p95 < 10m: about ", in: out))
        #expect(abs(needed - 9500) / 9500 < 0.01)
        #expect(out.contains("all get through within maxWait 1h; peak queue about 100,000 visitors"))
        // Only wait thresholds ask for an outflow.
        #expect(!out.contains("outflow needed for passed"))
    }

    @Test func aRealEndpointHasNoEstimate() throws {
        let file = try TemporaryScenario(
            """
            version: 1
            target: { customerId: acme, waitingRoomId: launch, endpoint: "http://127.0.0.1:8080" }
            arrivals: { phases: [ { burst: 10 } ] }
            """)
        let result = try QueueSimProcess.run(["validate", file.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stdout.contains("fluid estimate"))
    }

    @Test func thePlanSummaryCountsABurstAndDoesNotContradictItself() throws {
        let result = try QueueSimProcess.run(
            ["validate", "scenarios/launch.yaml", "scenarios/soak.yaml", "scenarios/what-outflow.yaml"])
        #expect(result.status == 0, "\(result.stderr)")
        let out = result.stdout
        // launch.yaml: 800 at once on a ramp at 150/s is the busiest second, not "peak 150/s".
        #expect(
            out.contains(
                "1,900 planned, arriving over 15s (uniform), peak 943 in one second (burst included), 150/s in steady phases"
            ), "\(out)")
        #expect(out.contains("1,000 planned, arriving at once (uniform), peak 1,000 in one second (burst included)"))
        // The soak runs on the virtual clock, where run.concurrency holds nobody back: it no longer
        // reads "at most 10,000 visitors in flight" above "17,853 visitors in flight at the peak".
        #expect(!out.contains("until every visitor has finished, at most"))
        #expect(out.contains("until every visitor has finished, no limit on visitors in flight (virtual clock)"))
        #expect(out.contains("stop after 50s, at most 10,000 visitors in flight at once (run.concurrency)"))
        #expect(out.contains("visitors in flight at once (arrivals within one longest visit)"))
        // Faults are named as what the estimate leaves out.
        #expect(out.contains("fluid estimate (leaves out the scripted faults): wait p50 "))
    }
}

extension ValidateEstimateCommandTests {
    @Test func theHelpSaysWhatTheEstimateIs() throws {
        let result = try QueueSimProcess.run(["validate", "--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("For an embedded queue it adds the fluid"))
        #expect(result.stdout.contains("wait.p95 < 20m: about 9,670/min`), all marked \"about\""))
    }
}

extension ValidateEstimateCommandTests {
    @Test func visitorsScalesTheCountThePeakAndTheEstimate() throws {
        // what-outflow.yaml: 1,000 at once at 150/min; --visitors 2000 doubles the burst, so the
        // row says 2,000 planned (as the memory row's 2,000 in flight) and the p95 doubles.
        let result = try QueueSimProcess.run(["validate", "scenarios/what-outflow.yaml", "--visitors", "2000"])
        #expect(result.status == 0, "\(result.stderr)")
        let out = result.stdout
        #expect(
            out.contains(
                "2,000 planned (--visitors scales the phases below), arriving at once (uniform), peak 2,000 in one second"
            ), "\(out)")
        #expect(out.contains("for up to 2,000 visitors in flight at once"))
        let p95 = try #require(Self.wait(after: ", p95 about ", in: out))
        #expect(abs(p95 - 0.95 * 2000 / 2.5) / (0.95 * 2000 / 2.5) < 0.01)
    }
}
