import QueueClientCore
import Testing

@testable import QueueSim

/// The live progress line (issue 29, item 7): it fits the terminal, so a refresh never leaves
/// a trail; `req/s` is measured over a second or more; the virtual clock shows how far through
/// the plan the run is instead of simulated requests per wall second.
@Suite("progress line")
struct ProgressLineTests {
    /// A big launch: every counter has many digits, and the generator is saturated.
    static var bigLaunch: RunProgress.Snapshot {
        var snapshot = RunProgress.Snapshot()
        snapshot.planned = 100_000_000
        snapshot.arrived = 99_999_999
        snapshot.finished = 12_345_678
        snapshot.inQueue = 87_654_321
        snapshot.outcomes = [.passed: 12_000_000, .error: 345_678]
        snapshot.requests = 1_234_567_890
        snapshot.enqueueP95Milliseconds = 123_456
        snapshot.generatorSaturated = true
        snapshot.loopLag = .milliseconds(1234)
        return snapshot
    }

    @Test func aLongWallLineFitsEightyColumnsAndKeepsTheCountsAndTheWarning() {
        let line = ProgressLine(
            Self.bigLaunch, clock: .wall(elapsed: .seconds(36_000), requestsPerSecond: 1_234_567.4)
        ).text(width: 80)
        #expect(line.count <= 79)
        #expect(line.hasPrefix("10:00:00  arrived 99999999/100000000"))
        #expect(line.contains("passed 12000000"))
        #expect(line.contains("SATURATED"))
    }

    @Test func aWideTerminalGetsEveryPartInFull() {
        let line = ProgressLine(
            Self.bigLaunch, clock: .wall(elapsed: .seconds(75), requestsPerSecond: 1_234_567.4)
        ).text(width: 250)
        #expect(
            line
                == "01:15  arrived 99999999/100000000  in queue 87654321  passed 12000000  errors 345678  req/s 1234567  enqueue p95 123456ms  GENERATOR SATURATED (loop lag 1234ms: timings include its delay)"
        )
    }

    @Test(arguments: [20, 40, 60, 80, 100, 120])
    func everyWidthIsRespected(width: Int) {
        let wall = ProgressLine(Self.bigLaunch, clock: .wall(elapsed: .seconds(75), requestsPerSecond: 12))
        let virtual = ProgressLine(
            Self.bigLaunch, clock: .virtual(simulated: .seconds(4000), span: .seconds(3600), wall: .seconds(10)))
        #expect(wall.text(width: width).count <= width - 1)
        #expect(virtual.text(width: width).count <= width - 1)
    }

    @Test func theVirtualClockShowsThePlannedSpanVisitorsDoneAndTimeLeft() {
        var snapshot = RunProgress.Snapshot()
        snapshot.planned = 200_000
        snapshot.finished = 50_000
        snapshot.inQueue = 1_000
        snapshot.requests = 1_234_567_890
        snapshot.outcomes = [.passed: 49_000, .unavailable: 1_000]
        let line = ProgressLine(
            snapshot, clock: .virtual(simulated: .seconds(900), span: .seconds(3600), wall: .seconds(3))
        ).text(width: 120)
        // A quarter of the span in 3 s of wall time: 9 s left.
        #expect(
            line == "sim 15:00/1:00:00 300x  done 50000/200000  left ~00:09  in queue 1000  passed 49000  errors 1000")
        #expect(!line.contains("req/s"))
        // After the arrivals: the pace of the visitors finishing (a quarter done in 8 s: 24 s left).
        let after = ProgressLine(
            snapshot, clock: .virtual(simulated: .seconds(4000), span: .seconds(3600), wall: .seconds(8))
        ).text(width: 120)
        #expect(after.hasPrefix("sim 1:06:40 (arrivals ended 1:00:00) 500x  done 50000/200000  left ~00:24"))
    }

    @Test func requestsPerSecondWaitForAWholeSecondAndSpanIt() {
        var window = RequestRateWindow()
        #expect(window.rate(at: .milliseconds(250), requests: 100) == nil)
        #expect(window.rate(at: .milliseconds(500), requests: 100) == nil)
        #expect(window.rate(at: .milliseconds(750), requests: 300) == nil)
        // From second 0 (0 requests) to 1.0 s: 400 requests.
        #expect(window.rate(at: .milliseconds(1000), requests: 400) == 400)
        // From 0.25 s (100) to 1.25 s (500): a burst in one quarter is spread over the second.
        #expect(window.rate(at: .milliseconds(1250), requests: 500) == 400)
        #expect(window.rate(at: .milliseconds(1500), requests: 500) == 400)
    }

    @Test func theWidthComesFromTheTerminalThenColumnsThenEighty() {
        #expect(TerminalWidth.columns(terminal: 132, environment: ["COLUMNS": "100"]) == 132)
        #expect(TerminalWidth.columns(terminal: 0, environment: ["COLUMNS": "100"]) == 100)
        #expect(TerminalWidth.columns(terminal: nil, environment: ["COLUMNS": "wide"]) == 80)
        #expect(TerminalWidth.columns(terminal: nil, environment: [:]) == 80)
    }
}
