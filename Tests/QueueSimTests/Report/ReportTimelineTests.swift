import Foundation
import QueueClientCore
import Testing

@testable import QueueSim

@Suite("timeline.csv")
struct ReportTimelineTests {
    static let header =
        "second,arrivals,started,enqueued,in_queue,passed,disabled,queued,unavailable,error,requests,enqueue_p95_ms,closed,restarted,interrupted,passed_wait_p50_ms,passed_wait_p95_ms,time_utc,connections_opened,enqueue_ok,enqueue_ko,queue_page_ok,queue_page_ko,protected_api_ok,protected_api_ko,abandoned,after_pass_requests\n"

    @Test("counts per second: arrivals, starts, decisions, queue occupancy, outcomes, requests, p95")
    func countsPerSecond() throws {
        let directory = try makeReportDirectory()
        let recorder = try Recorder(directory: directory, description: describeRun())
        // In the queue from 0.3 s to 2.5 s: at the end of seconds 0 and 1.
        try recorder.record(queuedVisitor(0, arrival: 100, start: 200, enqueueMs: 100, waitMs: 2200))
        // Queued from 1.25 s until the run's end at 3 s: at the end of seconds 1 and 2; its end at
        // exactly 3.000 s counts in the last second.
        try recorder.record(
            queuedVisitor(1, arrival: 500, start: 1200, enqueueMs: 50, waitMs: 1750, outcome: .queued))
        try recorder.record(directVisitor(2, arrival: 1000, enqueueMs: 400, outcome: .disabled))
        try recorder.record(
            VisitorRecord(
                index: 3, group: "app", flow: "run", arrival: at(2900), start: at(2900),
                outcome: .interrupted,
                ended: at(3000)))
        for milliseconds in [200, 300, 1200, 1000, 2000, 2999, 3000] {
            recorder.recordRequest(at: at(milliseconds))
        }
        let report = try recorder.finish(ending(at: 3000))
        let expected =
            Self.header
                + """
                0,2,1,1,1,0,0,0,0,0,2,100,0,0,0,,,,,,,,,,,0,
                1,1,2,2,2,0,1,0,0,0,2,400,0,0,0,,,,,,,,,,,0,
                2,1,1,0,1,1,0,1,0,0,3,,0,0,1,2200,2200,,,,,,,,,0,

                """
        #expect(try readReport(directory, Recorder.timelineFile) == expected)
        #expect(report.requestCount == 7)
    }

    @Test("a run ending mid-second gets a row for that second")
    func partialLastSecond() throws {
        let directory = try makeReportDirectory()
        let recorder = try Recorder(directory: directory, description: describeRun())
        try recorder.record(directVisitor(0, arrival: 2100, enqueueMs: 20, outcome: .passed))
        _ = try recorder.finish(ending(at: 2500))
        let rows = try readReport(directory, Recorder.timelineFile).split(separator: "\n")
        #expect(rows.count == 4)
        #expect(rows[3] == "2,1,1,1,0,1,0,0,0,0,0,20,0,0,0,,,,,,,,,,,0,")
    }

    @Test("enqueue p95 is the nearest-rank value of that second's decisions")
    func p95NearestRank() throws {
        let directory = try makeReportDirectory()
        let recorder = try Recorder(directory: directory, description: describeRun())
        // Twenty decisions in second 0 taking 1…20 ms: rank ⌈0.95·20⌉ = 19.
        for index in 0..<20 {
            try recorder.record(
                directVisitor(19 - index, arrival: 0, enqueueMs: 20 - index, outcome: .disabled))
        }
        _ = try recorder.finish(ending(at: 1000))
        let row = try readReport(directory, Recorder.timelineFile).split(separator: "\n")[1]
        #expect(row == "0,20,20,20,0,0,20,0,0,0,0,19,0,0,0,,,,,,,,,,,0,")
    }

    @Test("connections_opened: the wall clock's count per second, empty when nothing counted them")
    func connectionsOpened() throws {
        let directory = try makeReportDirectory()
        let recorder = try Recorder(directory: directory, description: describeRun())
        try recorder.record(directVisitor(0, arrival: 100, enqueueMs: 20, outcome: .passed))
        // Two event loops' counts add up; a second without a new connection is 0, not empty.
        var first = PerSecondCounts()
        first.add(at: 0, 3)
        var second = PerSecondCounts()
        second.add(at: 0)
        second.add(at: 2, 5)
        recorder.recordConnections(first)
        recorder.recordConnections(second)
        _ = try recorder.finish(ending(at: 3000))
        let rows = try readReport(directory, Recorder.timelineFile).split(separator: "\n")
        let header = rows[0].split(separator: ",")
        let column = try #require(header.firstIndex(of: "connections_opened"))
        #expect(header[column - 1] == "time_utc", "appended after the earlier columns")
        let cells = rows.dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false)[column] }
        #expect(cells == ["4", "0", "5"])
    }
}

/// A virtual run that jumps over a long idle stretch keeps no per-second state for it
/// (issue 12: a long `pause` allocated 75 GB), yet still writes one row per second.
@Suite("timeline: idle time costs rows, not memory")
struct TimelineIdleTimeTests {
    @Test func countsAcrossFarApartSecondsReadBackExactly() {
        var counts = PerSecondCounts()
        counts.add(at: 5_000_000)
        counts.add(at: 3, 2)
        counts.add(at: 5_000_000, 4)
        counts.add(at: 1_500)
        #expect(counts[3] == 2)
        #expect(counts[1_500] == 1)
        #expect(counts[5_000_000] == 5)
        #expect(counts[4] == 0)
        #expect(counts[4_999_999] == 0)
        #expect(counts[-1] == 0)
        #expect(counts.count == 5_000_001)
        #expect(counts.total == 8)
    }
}

/// A chain of forecast polls is counted in bulk (`addProgression`): exactly the counts of one
/// `add(at:)` per instant, across blocks of seconds, with periods shorter and longer than a
/// second and starts inside a second.
@Suite("per-second counts: a progression counts as its instants one by one")
struct PerSecondProgressionTests {
    @Test(arguments: [
        (first: Int64(0), period: Int64(1_000_000_000), count: 3_000),
        (first: 1_023_700_000_000, period: 30_010_000_000, count: 90),
        (first: 999_999_999, period: 333_333_333, count: 10_000),
        (first: 5_000_000_000_123, period: 2_047_000_000_001, count: 7),
        (first: 42, period: 1, count: 1),
        (first: 17_000_000_000, period: 30_010_000_000, count: 0),
    ])
    func matchesOneByOne(progression: (first: Int64, period: Int64, count: Int)) {
        var bulk = PerSecondCounts()
        var oneByOne = PerSecondCounts()
        // Counts already there stay and add up.
        bulk.add(at: 1_100, 2)
        oneByOne.add(at: 1_100, 2)
        bulk.addProgression(
            firstNanoseconds: progression.first, periodNanoseconds: progression.period, count: progression.count)
        for k in 0..<Int64(progression.count) {
            oneByOne.add(at: Int((progression.first + k * progression.period) / 1_000_000_000))
        }
        #expect(bulk.nonZero.map { [$0.second, $0.count] } == oneByOne.nonZero.map { [$0.second, $0.count] })
        #expect(bulk.total == oneByOne.total)
        #expect(bulk.count == oneByOne.count)
    }
}
