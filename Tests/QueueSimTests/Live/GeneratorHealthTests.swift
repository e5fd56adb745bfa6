import QueueClientCore
import Testing

@testable import QueueSim

/// When does the run say its own generator fell behind? On instants given by the test.
@Suite("generator health: saturated seconds and what the end screen says")
struct GeneratorHealthTests {
    static func at(_ milliseconds: Int64) -> RunInstant { .origin + .milliseconds(milliseconds) }

    /// 100 probes a second for `seconds` seconds, with `lag` in the seconds listed.
    static func probed(seconds: Int, lag: Duration, inSeconds late: Set<Int>, lateProbesPerSecond: Int = 100)
        -> GeneratorHealth
    {
        var health = GeneratorHealth()
        for second in 0..<seconds {
            for probe in 0..<100 {
                let instant = at(Int64(second) * 1000 + Int64(probe) * 10)
                let isLate = late.contains(second) && probe < lateProbesPerSecond
                health.probe(lag: isLate ? lag : .microseconds(200), at: instant)
            }
        }
        return health
    }

    @Test("a loop that kept up: no window, and the end screen says so")
    func keptUp() {
        let report = Self.probed(seconds: 20, lag: .zero, inSeconds: []).report(
            loops: 2, cpuSeconds: 1.5, visitors: 100, requests: 300)
        #expect(report.saturatedWindows.isEmpty)
        #expect(report.saturatedSeconds == 0)
        #expect(report.verdict.hasPrefix("the load generator kept up"))
        #expect(report.cpuMicrosecondsPerRequest == 5000)
    }

    @Test("seconds 10 to 13 late by 120 ms: one window 00:10 to 00:14")
    func oneWindow() {
        let report = Self.probed(seconds: 20, lag: .milliseconds(120), inSeconds: [10, 11, 12, 13]).report(
            loops: 1, cpuSeconds: 1, visitors: 1, requests: 1)
        #expect(report.saturatedWindows == [GeneratorReport.Window(fromSecond: 10, toSecond: 14)])
        #expect(report.saturatedSeconds == 4)
        #expect(
            report.verdict
                == "the load generator was saturated for 4 s: timings from 00:10 to 00:14 include its own delay")
        // Histogram precision (two significant digits).
        #expect(abs((report.loopLagMaxMs ?? 0) - 120) < 2)
    }

    @Test("one late probe in a hundred is the p99, not over it; two are")
    func percentileEdge() {
        let one = Self.probed(seconds: 3, lag: .milliseconds(80), inSeconds: [1], lateProbesPerSecond: 1)
        #expect(one.report(loops: 1, cpuSeconds: 0, visitors: 0, requests: 0).saturatedWindows.isEmpty)
        let two = Self.probed(seconds: 3, lag: .milliseconds(80), inSeconds: [1], lateProbesPerSecond: 2)
        #expect(
            two.report(loops: 1, cpuSeconds: 0, visitors: 0, requests: 0).saturatedWindows == [
                GeneratorReport.Window(fromSecond: 1, toSecond: 2)
            ])
    }

    @Test("late starts saturate a second too; loops merge second by second")
    func lateStartsAndMerge() {
        var first = GeneratorHealth()
        var second = GeneratorHealth()
        for visitor in 0..<50 {
            first.started(lag: .milliseconds(1), at: Self.at(5_000 + Int64(visitor)))
            second.started(
                lag: visitor < 2 ? .milliseconds(300) : .milliseconds(1), at: Self.at(5_000 + Int64(visitor)))
        }
        // Alone, the second loop had 2 late starts in 50 (4 %); merged, 2 in 100 (2 %): still over 1 %.
        first.merge(second)
        let report = first.report(loops: 2, cpuSeconds: 0, visitors: 100, requests: 100)
        #expect(report.saturatedWindows == [GeneratorReport.Window(fromSecond: 5, toSecond: 6)])
        #expect(abs((report.arrivalLagMaxMs ?? 0) - 300) < 4)
    }
}
