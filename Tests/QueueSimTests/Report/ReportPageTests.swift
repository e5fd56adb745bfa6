import Foundation
import QueueClientCore
import Testing

@testable import QueueSim

/// `report.html` (issue 13): written by every run, self-contained, its numbers those of the
/// CSVs and run.json, and rebuilt the same from the folder by `queuesim report DIR`.
@Suite("report.html")
struct ReportPageTests {
    /// A small run: two groups, waits, a 503 and a transport error, a threshold that fails.
    static func writeRun(thresholds: [Threshold]? = nil) throws -> (directory: String, report: RunReport) {
        let directory = try makeReportDirectory()
        let judged =
            thresholds ?? [
                Threshold(
                    metric: .outcomeRatio(.passed), comparator: .greaterOrEqual, limit: 0.99, source: "passed >= 99%")
            ]
        var description = describeRun(thresholds: judged)
        description.timelineMarks = [
            TimelineMark(fromMs: 2000, toMs: nil, label: "event start"),
            TimelineMark(fromMs: 3000, toMs: 4000, label: "0:03–0:04: enqueue requests: answer 503"),
        ]
        let recorder = try Recorder(directory: directory, description: description)
        for index in 0..<20 {
            try recorder.record(
                queuedVisitor(
                    index, group: index % 2 == 0 ? "app" : "invited", arrival: index * 250, enqueueMs: 20 + index,
                    waitMs: 1000 + index * 100))
        }
        try recorder.record(directVisitor(20, arrival: 3100, enqueueMs: 15, outcome: .unavailable, status: 503))
        try recorder.record(directVisitor(21, arrival: 3200, enqueueMs: 15, outcome: .unavailable, status: 503))
        var failed = directVisitor(22, group: "invited", arrival: 3300, enqueueMs: 5, outcome: .error, status: 0)
        failed.httpStatus = nil
        failed.error = "could not connect: Connection refused (errno 111)"
        try recorder.record(failed)
        for second in 0..<6 { recorder.recordRequests(4, inSecond: second) }
        let report = try recorder.finish(ending(at: 6_000))
        return (directory, report)
    }

    @Test func everyRunWritesASelfContainedPageListedInRunJson() throws {
        let (directory, report) = try Self.writeRun()
        let html = try readReport(directory, Recorder.pageFile)
        #expect(report.pagePath == Recorder.path(directory, Recorder.pageFile))
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        // No network: no script, no external stylesheet, image or font.
        for forbidden in ["<script", "src=\"http", "href=\"http", "src='http", "href='http", "@import", "url("] {
            #expect(!html.contains(forbidden), "\(forbidden)")
        }
        for section in ["id=\"thresholds\"", "id=\"outcomes\"", "id=\"launch\"", "id=\"latency\"", "id=\"waits\""] {
            #expect(html.contains(section), "\(section)")
        }
        // Seven charts, each drawn wide and narrow (a phone's 390 px get their own drawing).
        #expect(html.components(separatedBy: "<svg").count - 1 == 14)
        let manifest = try readReport(directory, Recorder.manifestFile)
        #expect(manifest.contains("\"report.html\""))
    }

    @Test func theNumbersAreThoseOfSummaryCsvAndRunJson() throws {
        let (directory, _) = try Self.writeRun()
        let html = try readReport(directory, Recorder.pageFile)
        let summary = try CSVColumnReader.parse(try readReport(directory, Recorder.summaryFile), path: "")
        let header = summary[0]
        for row in summary.dropFirst() {
            func cell(_ name: String) -> String { row[header.firstIndex(of: name)!] }
            var expected = "<td>\(cell("group"))</td><td>\(cell("outcome"))</td><td class=\"num\">\(cell("count"))</td>"
            expected += "<td class=\"num\">\(String(format: "%.2f%%", Double(cell("ratio"))! * 100))</td>"
            for column in [
                "enqueue_p50_ms", "enqueue_p95_ms", "enqueue_p99_ms", "wait_p50_ms", "wait_p95_ms", "wait_p99_ms",
            ] {
                let value = cell(column)
                expected +=
                    "<td class=\"num\">\(value.isEmpty ? "–" : Durations.text(milliseconds: Int64(value)!))</td>"
            }
            #expect(html.contains(expected), "\(row)")
        }
        // The threshold as run.json judged it: measured 20 of 23 passed.
        #expect(
            html.contains("<td>passed</td><td>&gt;= 99%</td><td class=\"num\">86.96%</td><td class=\"fail\">FAIL</td>"))
        #expect(html.contains("<dt>visitors</dt><dd>23</dd>"))
        #expect(html.contains("<dt>requests</dt><dd>24</dd>"))
        #expect(html.contains("<dt>exit status</dt><dd>1: a threshold failed (reports written)</dd>"))
    }

    @Test func failureCausesAreGroupedWithAnExample() throws {
        let (directory, report) = try Self.writeRun()
        let html = try readReport(directory, Recorder.pageFile)
        #expect(html.contains("<h4>app</h4>"))
        #expect(html.contains("<tr><td>HTTP 503</td><td class=\"num\">2</td>"))
        #expect(
            html.contains(
                "<tr><td>could not connect: Connection refused (errno 111)</td><td class=\"num\">1</td>"))
        #expect(
            report.failureCauses.map(\.group) == ["app", "invited"]
                && report.failureCauses[0].causes == [FailureCause(cause: "HTTP 503", count: 2, example: "unavailable")]
        )
    }

    @Test func timelineMarksAreDrawnAndListed() throws {
        let (directory, _) = try Self.writeRun()
        let html = try readReport(directory, Recorder.pageFile)
        #expect(html.contains("<title>event start</title>"))
        #expect(html.contains("class=\"window\""))
        #expect(html.contains("<li>0:03: 0:03–0:04: enqueue requests: answer 503</li>"))
    }

    @Test func aRunWithoutThresholdsSaysSo() throws {
        let (directory, report) = try Self.writeRun(thresholds: [])
        let html = try readReport(directory, Recorder.pageFile)
        #expect(report.exitStatus == .success)
        #expect(html.contains("No thresholds set"))
        #expect(html.contains("0: the run finished; no thresholds set, so nothing judged it"))
        #expect(!html.contains("every threshold held"))
    }

    @Test func theFolderRebuildsTheSamePage() throws {
        let (directory, _) = try Self.writeRun()
        let written = try readReport(directory, Recorder.pageFile)
        try FileManager.default.removeItem(atPath: Recorder.path(directory, Recorder.pageFile))
        let rebuilt = try ReportRebuild.rebuild(directory)
        #expect(rebuilt.visitors == 23)
        #expect(rebuilt.exitStatus == .thresholdFailed)
        #expect(try readReport(directory, Recorder.pageFile) == written)
    }

    @Test func aFolderWithoutReportsIsNamedAsSuch() throws {
        let directory = try makeReportDirectory()
        #expect(throws: ReportRebuild.Failure.notAReportFolder(directory, missing: "run.json")) {
            try ReportRebuild.rebuild(directory)
        }
    }

    @Test func aMillionVisitorsStayAFewCharts() {
        var timeline = Timeline()
        for second in stride(from: 0, to: 3600, by: 1) { timeline.addRequests(1000, inSecond: second) }
        let series = timeline.series(end: at(3_600_000))
        #expect(series.bucketSeconds == 6)
        #expect(series.requests.count == 600)
        #expect(series.requests.allSatisfy { $0 == 1000 })
    }

    @Test func tickValuesCoverTheLargestValue() {
        #expect(SVGChart.niceTicks(max: 1650) == [0, 500, 1000, 1500, 2000])
        #expect(SVGChart.niceTicks(max: 100) == [0, 20, 40, 60, 80, 100])
        #expect(SVGChart.niceTicks(max: 0) == [0, 1])
    }

    @Test func textIsEscaped() {
        #expect(HTML.escape("<a href=\"x\">'&'</a>") == "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;")
    }
}
