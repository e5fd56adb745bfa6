import Foundation
import QueueClientCore
import Testing

@testable import QueueSim

@Suite("recorder at scale")
struct ReportScaleTests {
    @Test("200 000 visitors finishing out of order are written in arrival order", .timeLimit(.minutes(1)))
    func twoHundredThousand() throws {
        let count = 200_000
        let directory = try makeReportDirectory()
        let recorder = try Recorder(directory: directory, description: describeRun())
        // 7919 is prime and does not divide count, so this visits every index once, scrambled.
        for step in 0..<count {
            let index = (step * 7919) % count
            let arrival = index * 3
            try recorder.record(
                index % 4 == 0
                    ? directVisitor(index, arrival: arrival, enqueueMs: 15, outcome: .disabled)
                    : queuedVisitor(index, group: "invited", arrival: arrival, enqueueMs: 25, waitMs: 2000))
            recorder.recordRequest(at: at(arrival))
        }
        let report = try recorder.finish(ending(at: count * 3 + 2100))
        #expect(report.visitorCount == count)
        #expect(report.requestCount == count)

        let csv = try readReport(directory, Recorder.visitorsFile)
        let lines = csv.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == count + 2)  // header, rows, and the empty string after the last newline
        #expect(lines[1].hasPrefix("1,app,run,0,0,disabled,"))
        #expect(lines[count].hasPrefix("\(count),invited,run,\((count - 1) * 3),"))
        #expect(lines.dropFirst().dropLast().enumerated().allSatisfy { $1.hasPrefix("\($0 + 1),") })

        let summary = try readReport(directory, Recorder.summaryFile)
        #expect(summary.contains("\nall,disabled,50000,0.2500,15,15,15,15,15,,,,,\n"))
        #expect(summary.contains("\nall,passed,150000,0.7500,25,25,25,25,25,2000,2000,2000,2000,2000\n"))
    }
}
