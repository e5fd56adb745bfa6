import Foundation
import QueueClientCore
import Testing

@testable import QueueSim

@Suite("summary.csv")
struct ReportSummaryTests {
    static let header =
        "group,outcome,count,ratio,enqueue_p50_ms,enqueue_p90_ms,enqueue_p95_ms,enqueue_p99_ms,enqueue_max_ms,wait_p50_ms,wait_p90_ms,wait_p95_ms,wait_p99_ms,wait_max_ms,total_p50_ms,total_p90_ms,total_p95_ms,total_p99_ms,total_max_ms,connect_p50_ms,connect_p90_ms,connect_p95_ms,connect_p99_ms,connect_max_ms,tls_p50_ms,tls_p90_ms,tls_p95_ms,tls_p99_ms,tls_max_ms\n"

    /// app: three passed through the queue and one 4xx error; invited: one passed.
    static func knownRun(_ recorder: Recorder) throws {
        // The invited visitor opened its connection (https): its handshakes are the only ones.
        var invited = queuedVisitor(3, group: "invited", enqueueMs: 40, waitMs: 400)
        invited.connectTime = .milliseconds(7)
        invited.tlsTime = .milliseconds(15)
        try recorder.record(invited)
        try recorder.record(queuedVisitor(0, enqueueMs: 10, waitMs: 100))
        try recorder.record(directVisitor(4, enqueueMs: 5, outcome: .error, status: 400))
        try recorder.record(queuedVisitor(2, enqueueMs: 30, waitMs: 300))
        try recorder.record(queuedVisitor(1, enqueueMs: 20, waitMs: 200))
    }

    @Test("rows per group in scenario order, then all; ratios of the group; percentiles in ms")
    func knownSet() throws {
        let directory = try makeReportDirectory()
        let recorder = try Recorder(directory: directory, description: describeRun())
        try Self.knownRun(recorder)
        _ = try recorder.finish(ending(at: 2000))
        let expected =
            Self.header
                + """
                app,passed,3,0.7500,20,30,30,30,30,200,300,300,300,300,220,330,330,330,330,,,,,,,,,,
                app,error,1,0.2500,5,5,5,5,5,,,,,,5,5,5,5,5,,,,,,,,,,
                invited,passed,1,1.0000,40,40,40,40,40,400,400,400,400,400,440,440,440,440,440,7,7,7,7,7,15,15,15,15,15
                all,passed,4,0.8000,20,40,40,40,40,200,400,400,400,400,220,440,440,440,440,7,7,7,7,7,15,15,15,15,15
                all,error,1,0.2000,5,5,5,5,5,,,,,,5,5,5,5,5,,,,,,,,,,

                """
        #expect(try readReport(directory, Recorder.summaryFile) == expected)
    }

    @Test("groups without visitors have no rows; an undeclared group comes after the declared ones")
    func groupOrder() throws {
        let directory = try makeReportDirectory()
        let recorder = try Recorder(
            directory: directory, description: describeRun(groups: ["app", "partner", "invited"]))
        try recorder.record(directVisitor(0, group: "zeta", enqueueMs: 5, outcome: .disabled))
        try recorder.record(directVisitor(1, group: "invited", enqueueMs: 5, outcome: .disabled))
        try recorder.record(directVisitor(2, group: "beta", enqueueMs: 5, outcome: .disabled))
        try recorder.record(directVisitor(3, group: "app", enqueueMs: 5, outcome: .disabled))
        _ = try recorder.finish(ending(at: 1000))
        let groups = try readReport(directory, Recorder.summaryFile).split(separator: "\n").dropFirst()
            .map { $0.split(separator: ",")[0] }
        #expect(groups == ["app", "invited", "beta", "zeta", "all"])
    }

    @Test("ratios are rounded half up to four decimals without floating point")
    func ratioFormat() {
        #expect(fixedPointRatio(1, 3) == "0.3333")
        #expect(fixedPointRatio(2, 3) == "0.6667")
        #expect(fixedPointRatio(1, 8) == "0.1250")
        #expect(fixedPointRatio(1, 20000) == "0.0001")
        #expect(fixedPointRatio(7, 7) == "1.0000")
        #expect(fixedPointRatio(0, 0) == "0.0000")
    }

    @Test("long timings keep three significant digits")
    func longTimings() throws {
        let directory = try makeReportDirectory()
        let recorder = try Recorder(directory: directory, description: describeRun())
        try recorder.record(queuedVisitor(0, enqueueMs: 12, waitMs: 1_234_567))
        _ = try recorder.finish(ending(at: 1_300_000))
        let row = try readReport(directory, Recorder.summaryFile).split(separator: "\n")[1].split(
            separator: ",")
        // max is exact; percentiles are within 0.1 % (and never above the max).
        #expect(row[13] == "1234567")
        let p50 = try #require(Double(String(row[9])))
        #expect(abs(p50 - 1_234_567) / 1_234_567 < 0.001)
    }
}
