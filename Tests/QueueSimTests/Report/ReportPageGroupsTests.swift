import Foundation
import QueueClientCore
import Testing

@testable import QueueSim

/// Issue 51 item 8: report.html drew a wait curve, table rows and failure causes for every
/// group (9 MB for 2,000 groups). It now shows the 12 groups with the most visitors and says
/// how many more there are and where to find them; summary.csv keeps every group.
@Suite("report.html: the largest groups one by one, the rest counted")
struct ReportPageGroupsTests {
    /// `groups` groups, group gK with K visitors who waited; g1's visitor failed instead.
    static func writeRun(groups: Int) throws -> String {
        let directory = try makeReportDirectory()
        let names = (1...groups).map { "g\($0)" }
        let recorder = try Recorder(directory: directory, description: describeRun(groups: names))
        var index = 0
        for (number, name) in zip(1..., names) {
            for _ in 0..<number {
                if number == 1 {
                    var failed = directVisitor(index, group: name, arrival: index * 10, enqueueMs: 5, outcome: .error)
                    failed.error = "could not connect: Connection refused (errno 111)"
                    try recorder.record(failed)
                } else {
                    try recorder.record(
                        queuedVisitor(index, group: name, arrival: index * 10, enqueueMs: 20, waitMs: 1000 + index))
                }
                index += 1
            }
        }
        _ = try recorder.finish(ending(at: index * 10 + 5_000))
        return directory
    }

    @Test("20 groups: the 12 largest shown, the other 8 counted in each section, all 20 in summary.csv")
    func largestGroupsShownOthersCounted() throws {
        let directory = try Self.writeRun(groups: 20)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let html = try readReport(directory, Recorder.pageFile)
        for number in 9...20 {
            #expect(html.contains("<td>g\(number)</td>"), "g\(number)'s rows")
            #expect(html.contains("g\(number) (\(number) waited)"), "g\(number)'s wait curve")
        }
        for number in 1...8 {
            #expect(!html.contains("<td>g\(number)</td>"), "g\(number)'s rows")
            #expect(!html.contains("g\(number) ("), "g\(number)'s wait curve")
        }
        #expect(!html.contains("<h4>g1</h4>"))
        let note = "(the page shows the 12 groups with the most visitors)"
        #expect(html.contains("8 more groups had visitors: see summary.csv \(note)"))
        #expect(html.contains("7 more groups had visitors who waited: see summary.csv \(note)"))
        #expect(
            html.contains(
                "1 more group had visitors who failed: see summary.csv and the error column of visitors.csv \(note)"))
        // Not silently dropped: a failure in a group not shown is not "no visitor failed".
        #expect(!html.contains("No visitor ended in error"))
        let summary = try readReport(directory, Recorder.summaryFile)
        for number in 1...20 { #expect(summary.contains("\ng\(number),"), "g\(number) in summary.csv") }
    }

    @Test("12 groups or fewer: every group, no note")
    func fewGroupsAllShown() throws {
        let directory = try Self.writeRun(groups: 12)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let html = try readReport(directory, Recorder.pageFile)
        for number in 2...12 { #expect(html.contains("g\(number) (\(number) waited)")) }
        #expect(html.contains("<h4>g1</h4>"))
        #expect(!html.contains("more group"))
    }
}
