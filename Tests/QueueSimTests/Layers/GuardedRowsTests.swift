import QueueClientCore
import Testing

@testable import QueueSim

/// A live loop's rows with the run's guardrails in front (`GuardedRows`, wired by `Run/` so the
/// loop driver names neither): every finished visitor reaches both, and a window of them that
/// fails a guardrail trips it.
@Suite("GuardedRows: the wall clock's guardrails see every row")
struct GuardedRowsTests {
    /// Collects what it is handed, and counts flushes.
    struct CollectedRows: FinishedVisitorSink {
        var accepted: [Int] = []
        var flushes = 0
        mutating func accept(_ finished: FinishedVisitor) throws { accepted.append(finished.index) }
        mutating func flush() throws { flushes += 1 }
    }

    static func finished(_ index: Int, _ outcome: VisitorOutcome, endedMs: Int64) -> FinishedVisitor {
        let marks = VisitorMarks(started: .origin, ended: .origin + .milliseconds(endedMs))
        return FinishedVisitor(
            index: index, arrival: .origin, groupIndex: 0, result: VisitorResult(outcome: outcome, marks: marks))
    }

    @Test("rows go on in order and flush reaches them; the guardrails trip on the window they fill")
    func rowsAndGuardrails() throws {
        var threshold = try ThresholdParser.parse("unavailable < 50%").get()
        threshold.window = ThresholdWindow(span: .sliding(.seconds(1)), abortOnFail: true, minVisitors: 2, text: "1s")
        let guardrails = try #require(SharedGuardrailMonitor(thresholds: [threshold], groupNames: ["default"]))
        var sink = GuardedRows(rows: CollectedRows(), guardrails: guardrails)
        try sink.accept(Self.finished(0, .unavailable, endedMs: 100))
        try sink.accept(Self.finished(1, .unavailable, endedMs: 200))
        try sink.accept(Self.finished(2, .passed, endedMs: 300))
        try sink.flush()
        #expect(sink.rows.accepted == [0, 1, 2])
        #expect(sink.rows.flushes == 1)
        let trip = try #require(guardrails.advance(to: .origin + .seconds(1)))
        #expect(trip.window == JudgedWindow(from: 0, to: 1, measured: 2.0 / 3.0))
    }

    @Test("the virtual clock's watch: the guardrails stop the run at the second that closed the failing window")
    func virtualWatchStops() throws {
        var threshold = try ThresholdParser.parse("unavailable < 50%").get()
        threshold.window = ThresholdWindow(span: .sliding(.seconds(2)), abortOnFail: true, minVisitors: 2, text: "2s")
        var watch = try #require(GuardrailMonitor(thresholds: [threshold], groupNames: ["default"]))
        watch.visitorFinished(Self.finished(0, .unavailable, endedMs: 500))
        watch.visitorFinished(Self.finished(1, .unavailable, endedMs: 1_500))
        #expect(watch.secondsOver(upTo: .origin + .milliseconds(1_999)) == nil, "window 0..2 not over yet")
        #expect(watch.secondsOver(upTo: .origin + .milliseconds(2_400)) == .origin + .seconds(2))
        #expect(watch.results.trip?.window == JudgedWindow(from: 0, to: 2, measured: 1))
    }
}
