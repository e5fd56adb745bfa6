import QueueClientCore
import Testing

@testable import QueueSim

/// The monitor on its own (sans-IO): visitors and seconds in, judgements and trips out.
@Suite("Guardrails: judging windows")
struct GuardrailMonitorTests {
    static func threshold(_ line: String, _ span: ThresholdWindow.Span, abort: Bool = false, minVisitors: Int = 2)
        -> Threshold
    {
        var threshold = try! ThresholdParser.parse(line).get()
        threshold.window = ThresholdWindow(span: span, abortOnFail: abort, minVisitors: minVisitors, text: "test")
        return threshold
    }

    static func at(_ milliseconds: Int64) -> RunInstant { .origin + .milliseconds(milliseconds) }

    static func visitor(_ outcome: VisitorOutcome, endedMs: Int64, group: Int = 0, waitMs: Int64? = nil)
        -> WindowSample
    {
        WindowSample(outcome: outcome, groupIndex: group, ended: at(endedMs), waitMs: waitMs)
    }

    @Test("a sliding window is judged at each whole second once it is full, and trips at the second that closed it")
    func slidingWindowTrips() throws {
        var monitor = try #require(
            GuardrailMonitor(
                thresholds: [Self.threshold("unavailable < 50%", .sliding(.seconds(3)), abort: true)],
                groupNames: ["default"]))
        // Seconds 0-2: two passed each; second 3: three unavailable, one passed.
        for second in 0..<3 {
            monitor.record(Self.visitor(.passed, endedMs: Int64(second) * 1000 + 100))
            monitor.record(Self.visitor(.passed, endedMs: Int64(second) * 1000 + 900))
        }
        let judged1 = monitor.advance(to: Self.at(3_000))
        #expect(judged1 == nil, "window 0..3: 0 of 6 unavailable")
        for offset in [0, 200, 400] { monitor.record(Self.visitor(.unavailable, endedMs: 3_000 + Int64(offset))) }
        monitor.record(Self.visitor(.passed, endedMs: 3_999))
        // Window 1..4 holds 5 passed and 3 unavailable (37.5%): it holds. Window 2..5: 3 passed,
        // 3 unavailable (50%, not below 50%) once second 4 is over.
        let judged2 = monitor.advance(to: Self.at(4_999))
        #expect(judged2 == nil)
        let tripped = monitor.advance(to: Self.at(5_000))
        let trip = try #require(tripped)
        #expect(trip.window == JudgedWindow(from: 2, to: 5, measured: 0.5))
        #expect(trip.at == Self.at(5_000))
        #expect(trip.thresholdIndex == 0)
        let verdict = try #require(monitor.results.verdicts[0])
        #expect(verdict.judgedWindows == 3)
        #expect(verdict.failedWindows == 1)
        // After a trip nothing more is judged.
        monitor.record(Self.visitor(.passed, endedMs: 5_100))
        let judged3 = monitor.advance(to: Self.at(9_000))
        #expect(judged3 == trip)
        #expect(monitor.results.verdicts[0]?.judgedWindows == 3)
    }

    @Test("a window with fewer than minVisitors visitors is not judged; counts are judged whatever the number")
    func minVisitors() throws {
        var monitor = try #require(
            GuardrailMonitor(
                thresholds: [
                    Self.threshold("unavailable < 50%", .sliding(.seconds(2)), abort: true, minVisitors: 3),
                    Self.threshold("unavailable.count < 1", .sliding(.seconds(2))),
                ],
                groupNames: ["default"]))
        monitor.record(Self.visitor(.unavailable, endedMs: 500))
        monitor.record(Self.visitor(.passed, endedMs: 1_500))
        let judged4 = monitor.advance(to: Self.at(10_000))
        #expect(judged4 == nil, "1 of 2 unavailable, but 2 < minVisitors")
        let results = monitor.results
        #expect(results.verdicts[0]?.judgedWindows == 0)
        #expect(results.verdicts[0]?.passed == true)
        // The count's windows: 0..2 fails (1 unavailable), 1..3 holds (0), later ones hold too.
        #expect(results.verdicts[1]?.firstFailure == JudgedWindow(from: 0, to: 2, measured: 1))
        #expect(results.verdicts[1]?.failedWindows == 1)
        #expect(results.verdicts[1]?.judgedWindows == 9)
    }

    @Test("during: the whole part when it is over; with abortOnFail also the part so far")
    func duringPart() throws {
        let lines = [
            Self.threshold("passed >= 50%", .during(from: .seconds(2), to: .seconds(6))),
            Self.threshold("passed >= 50%", .during(from: .seconds(2), to: .seconds(6)), abort: true),
        ]
        var monitor = try #require(GuardrailMonitor(thresholds: lines, groupNames: ["default"]))
        // Before the part: not counted. In it: 1 error then 3 passed.
        monitor.record(Self.visitor(.error, endedMs: 1_000))
        monitor.record(Self.visitor(.error, endedMs: 2_100))
        monitor.record(Self.visitor(.passed, endedMs: 2_200))
        monitor.record(Self.visitor(.error, endedMs: 2_300))
        // So far 1 of 3 passed at second 3: the guardrail trips; the other waits for the end.
        let tripped = monitor.advance(to: Self.at(3_000))
        let trip = try #require(tripped)
        #expect(trip.thresholdIndex == 1)
        #expect(trip.window == JudgedWindow(from: 2, to: 3, measured: 1.0 / 3))
        #expect(monitor.results.verdicts[0]?.judgedWindows == 0)

        var patient = try #require(GuardrailMonitor(thresholds: [lines[0]], groupNames: ["default"]))
        for sample in [(VisitorOutcome.error, 2_100), (.passed, 2_200), (.error, 2_300), (.passed, 4_000)] {
            patient.record(Self.visitor(sample.0, endedMs: Int64(sample.1)))
        }
        patient.record(Self.visitor(.passed, endedMs: 6_500))  // after the part
        let judged5 = patient.advance(to: Self.at(8_000))
        #expect(judged5 == nil)
        let verdict = try #require(patient.results.verdicts[0])
        #expect(verdict.judgedWindows == 1)
        #expect(verdict.worst == JudgedWindow(from: 2, to: 6, measured: 0.5))
        #expect(verdict.passed)
    }

    @Test("after: a count so far trips only when it cannot get better")
    func afterCountSoFar() throws {
        var monitor = try #require(
            GuardrailMonitor(
                thresholds: [
                    Self.threshold("passed.count > 5", .after(.seconds(1)), abort: true),
                    Self.threshold("error.count <= 1", .after(.seconds(1)), abort: true),
                ],
                groupNames: ["default"]))
        monitor.record(Self.visitor(.error, endedMs: 1_500))
        let judged6 = monitor.advance(to: Self.at(2_000))
        #expect(judged6 == nil, "1 error is allowed; 0 passed may still grow")
        monitor.record(Self.visitor(.error, endedMs: 2_500))
        let tripped = monitor.advance(to: Self.at(3_000))
        let trip = try #require(tripped)
        #expect(trip.thresholdIndex == 1)
        #expect(trip.window == JudgedWindow(from: 1, to: 3, measured: 2))
    }

    @Test("the run's end judges the last window, shorter than the others when the run was")
    func lastWindowAtTheEnd() throws {
        var monitor = try #require(
            GuardrailMonitor(
                thresholds: [Self.threshold("unavailable < 50%", .sliding(.seconds(30)), abort: true)],
                groupNames: ["default"]))
        monitor.record(Self.visitor(.unavailable, endedMs: 4_000))
        monitor.record(Self.visitor(.unavailable, endedMs: 7_000))
        monitor.record(Self.visitor(.passed, endedMs: 9_200))
        // A 9.2 s run: no full 30 s window; the end judges 0..10.
        let tripped = monitor.finish(at: Self.at(9_200))
        let trip = try #require(tripped)
        #expect(trip.window == JudgedWindow(from: 0, to: 10, measured: 2.0 / 3))
        #expect(trip.at == Self.at(9_200))
    }

    @Test("a group's threshold counts that group's visitors; a timing reads the window's values")
    func groupAndTiming() throws {
        var monitor = try #require(
            GuardrailMonitor(
                thresholds: [
                    {
                        var threshold = Self.threshold("wait.max < 10s", .sliding(.seconds(1)), abort: true)
                        threshold.group = "partner"
                        return threshold
                    }()
                ],
                groupNames: ["default", "partner"]))
        monitor.record(Self.visitor(.passed, endedMs: 100, group: 0, waitMs: 60_000))
        monitor.record(Self.visitor(.passed, endedMs: 200, group: 1, waitMs: 2_000))
        monitor.record(Self.visitor(.passed, endedMs: 300, group: 1, waitMs: 3_000))
        let judged7 = monitor.advance(to: Self.at(1_000))
        #expect(judged7 == nil, "the default group's long wait is not partner's")
        monitor.record(Self.visitor(.passed, endedMs: 1_100, group: 1, waitMs: 12_000))
        monitor.record(Self.visitor(.passed, endedMs: 1_200, group: 1))  // never queued: no wait
        monitor.record(Self.visitor(.passed, endedMs: 1_300, group: 1, waitMs: 1_000))
        let tripped = monitor.advance(to: Self.at(2_000))
        let trip = try #require(tripped)
        #expect(trip.window.from == 1)
        #expect(trip.window.measured >= 12_000 && trip.window.measured < 12_020, "the histogram's bucket of 12 s")
    }

    @Test("a scenario without windowed thresholds has no monitor")
    func noMonitorWithoutWindows() {
        #expect(GuardrailMonitor(thresholds: [try! ThresholdParser.parse("passed > 1%").get()], groupNames: []) == nil)
    }

    @Test("the pacer lets requests leave 1/rate apart, in the order they asked, with no burst")
    func pacer() {
        var pacer = RequestPacer(perSecond: 4)
        #expect(pacer.interval == .milliseconds(250))
        let turns = (0..<6).map { _ in pacer.reserve(at: .origin) }
        #expect(turns == (0..<6).map { Self.at(Int64($0) * 250) })
        // After a quiet spell the next request leaves at once, the one after it a gap later.
        #expect(pacer.reserve(at: Self.at(10_000)) == Self.at(10_000))
        #expect(pacer.reserve(at: Self.at(10_000)) == Self.at(10_250))
        // A process shard of four sends a quarter of the cap.
        #expect(RequestPacer(perSecond: 4, shares: 4).interval == .seconds(1))
        // Rounded up: 3/s never becomes a little more than 3 in a second.
        #expect(RequestPacer(perSecond: 3).interval == .nanoseconds(333_333_334))
    }
}
