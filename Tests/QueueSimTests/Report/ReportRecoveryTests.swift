import Foundation
import QueueClientCore
import Testing

@testable import QueueSim

/// A run killed part-way: its spooled rows become a valid report marked incomplete.
@Suite("report recovery")
struct ReportRecoveryTests {
    static let records = [
        queuedVisitor(0, arrival: 0, enqueueMs: 25, waitMs: 7000),
        VisitorRecord(
            index: 1, group: "invited", flow: "tryPass", arrival: at(1000), start: at(1500),
            outcome: .unavailable, httpStatus: 503, error: "HTTP 503, \"Service Unavailable\"\nretries exhausted",
            attempts: 5, requests: 5, ended: at(16500)),
        directVisitor(3, arrival: 3000, enqueueMs: 40, outcome: .disabled),
    ]

    @Test("a row decodes to the record it was written from (at millisecond precision)")
    func rowsRoundTrip() throws {
        var row = CSVRowBuilder()
        for record in Self.records {
            VisitorRowFormat.encode(record, into: &row)
            let rows = VisitorRowFormat.completeRows(row.bytes)
            #expect(rows.count == 1)
            #expect(VisitorRowFormat.decode(try #require(rows.first)) == record)
        }
    }

    @Test(
        "spooled rows, a gap and a row cut short by the kill: rows in order, the gap interrupted, run.json incomplete")
    func recoversSpool() throws {
        let directory = try makeReportDirectory()
        do {
            let recorder = try Recorder(directory: directory, description: describeRun(runId: "20250301T120000Z-dead"))
            for record in Self.records { try recorder.record(record) }
            try recorder.flushRows()
            // The process dies here: no finish, and half a row reached the disk.
        }
        let spool = try #require(FileHandle(forWritingAtPath: directory + "/" + Recorder.spoolFile))
        spool.seekToEndOfFile()
        spool.write(Data("5,app,run,4000,4000,pas".utf8))
        try spool.close()
        #expect(!FileManager.default.fileExists(atPath: directory + "/" + Recorder.manifestFile))

        let recovered = try ReportRecovery.recover(directory)
        #expect(recovered.rows == 3)
        #expect(recovered.filledIn == 1)
        let rows = try readReport(directory, Recorder.visitorsFile).split(separator: "\n")
        #expect(rows.first == Substring(VisitorRowFormat.header.dropLast()))
        #expect(rows.count == 1 + 4 + 1)  // header, four visitors, the error cell's second line
        #expect(rows[1].hasPrefix("1,app,run,0,0,passed,"))
        #expect(rows[4].hasPrefix("3,app,,16500,16500,interrupted,"))
        #expect(rows[5].hasPrefix("4,app,run,3000,3000,disabled,"))

        let manifest = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory + "/run.json")))
                as? [String: Any])
        #expect(manifest["run_id"] as? String == "20250301T120000Z-dead")
        #expect(manifest["visitors"] as? Int == 4)
        #expect((manifest["incomplete"] as? String)?.contains("recovered 3 row(s)") == true)
        #expect(manifest["interrupted"] as? Bool == true)
        #expect(!FileManager.default.fileExists(atPath: directory + "/" + Recorder.pendingFile))
        #expect(try readReport(directory, Recorder.summaryFile).contains("invited"))
        #expect(throws: ReportRecovery.Failure.self) { _ = try ReportRecovery.recover(directory) }
    }
}
