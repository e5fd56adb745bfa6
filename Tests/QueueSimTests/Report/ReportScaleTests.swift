import Foundation
import QueueClientCore
import Testing

@testable import QueueSim

@Suite("recorder at scale")
struct ReportScaleTests {
    @Test(
        "200 000 visitors finishing out of order are written in arrival order", .timeLimit(.minutes(1)))
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

        let csv = Array(try readReport(directory, Recorder.visitorsFile).utf8)
        #expect(firstColumnNumbers(csv) == Array(1...count))
        let rows = csv.split(separator: UInt8(ascii: "\n"))
        #expect(rows[1].starts(with: "1,app,run,0,0,disabled,".utf8))
        #expect(rows[count].starts(with: "\(count),invited,run,\((count - 1) * 3),".utf8))

        let summary = try readReport(directory, Recorder.summaryFile)
        #expect(summary.contains("\nall,disabled,50000,0.2500,15,15,15,15,15,,,,,,15,15,15,15,15,,,,,,,,,,\n"))
        #expect(
            summary.contains(
                "\nall,passed,150000,0.7500,25,25,25,25,25,2000,2000,2000,2000,2000,2025,2025,2025,2025,2025,,,,,,,,,,\n"
            ))
    }

    /// A million visitors, run only with `QUEUESIM_HEAVY_TESTS=1` (too slow for every debug
    /// test run). On Linux it also checks the process's peak memory stays under 1 GiB.
    @Test(
        "a million visitors fit in well under 1 GiB",
        .enabled(if: ProcessInfo.processInfo.environment["QUEUESIM_HEAVY_TESTS"] != nil),
        .timeLimit(.minutes(5)))
    func oneMillion() throws {
        let count = 1_000_000
        let directory = try makeReportDirectory()
        let recorder = try Recorder(directory: directory, description: describeRun())
        for step in 0..<count {
            let index = (step * 7919) % count
            let arrival = index / 2
            try recorder.record(
                queuedVisitor(index, arrival: arrival, enqueueMs: index % 300, waitMs: index % 60_000))
            recorder.recordRequest(at: at(arrival))
        }
        let report = try recorder.finish(ending(at: count / 2 + 61_000))
        #expect(report.visitorCount == count)
        #if os(Linux)
            let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
            let peakLine = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") })
            let peakKiB = try #require(
                Int(peakLine.split(separator: " ", omittingEmptySubsequences: true)[1]))
            #expect(peakKiB < 1_048_576)
        #endif
    }

    /// The `visitor` number of every row after the header, read straight from the bytes (a
    /// `String` split of 200 000 lines would dominate a debug test run).
    private func firstColumnNumbers(_ csv: [UInt8]) -> [Int] {
        var numbers: [Int] = []
        var current = 0
        var inFirstField = false
        var atLineStart = false
        for byte in csv {
            if atLineStart {
                atLineStart = false
                inFirstField = true
                current = 0
            }
            if byte == UInt8(ascii: "\n") {
                atLineStart = true
            } else if inFirstField {
                if byte == UInt8(ascii: ",") {
                    numbers.append(current)
                    inFirstField = false
                } else {
                    current = current * 10 + Int(byte - UInt8(ascii: "0"))
                }
            }
        }
        return numbers
    }
}
