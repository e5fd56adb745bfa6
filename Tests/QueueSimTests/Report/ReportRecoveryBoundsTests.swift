import Foundation
import QueueClientCore
import Testing

@testable import QueueSim

/// Recovery believes the plan's visitor count, not a row's number (issue 51): a spool row for
/// visitor 999999999999 once made `recover` write `interrupted` rows without end.
@Suite("report recovery: bounded by the plan")
struct ReportRecoveryBoundsTests {
    /// A killed run's folder: rows for visitors 0..<`planned` except `gaps`, then `extra`
    /// lines appended to the spool as they are; the pending file says `planned` (nil: a
    /// pending file from before the count was written).
    static func killedRun(planned: Int?, rows: Int, gaps: Set<Int>, extra: [String]) throws -> String {
        let directory = try makeReportDirectory()
        do {
            let recorder = try Recorder(directory: directory, description: describeRun(runId: "20250301T120000Z-dead"))
            for index in 0..<rows where !gaps.contains(index) {
                try recorder.record(queuedVisitor(index, arrival: index * 10, enqueueMs: 20, waitMs: 100))
            }
            try recorder.flushRows()
        }
        let pendingPath = directory + "/" + Recorder.pendingFile
        var pending = try JSONDecoder().decode(
            PendingRun.self, from: Data(contentsOf: URL(fileURLWithPath: pendingPath)))
        pending.plannedVisitors = planned
        try pending.json().write(toFile: pendingPath, atomically: true, encoding: .utf8)
        let spool = try #require(FileHandle(forWritingAtPath: directory + "/" + Recorder.spoolFile))
        spool.seekToEndOfFile()
        spool.write(Data(extra.joined().utf8))
        try spool.close()
        return directory
    }

    /// A well-formed row for visitor number `visitor` (1-based, as the file writes it).
    static func row(visitor: Int) -> String {
        var row = CSVRowBuilder()
        VisitorRowFormat.encode(queuedVisitor(visitor - 1, arrival: 5, enqueueMs: 20, waitMs: 100), into: &row)
        return String(decoding: row.bytes, as: UTF8.self)
    }

    @Test func aRowBeyondThePlanIsDroppedAndNamedAndNoVisitorIsInvented() throws {
        let directory = try Self.killedRun(
            planned: 50, rows: 50, gaps: [10, 20],
            extra: [Self.row(visitor: 999_999_999_999), "\u{1}\u{7f}binary garbage,,\"x\"\n"])
        let spool = directory + "/" + Recorder.spoolFile
        let start = ContinuousClock.now
        let recovered = try ReportRecovery.recover(directory)
        #expect(ContinuousClock.now - start < .seconds(10))
        #expect(recovered.rows == 48)
        #expect(recovered.filledIn == 2)
        #expect(recovered.droppedCount == 2)
        #expect(
            recovered.dropped == [
                "\(spool):49: dropped: visitor 999999999999 is beyond the plan's 50 visitors",
                "\(spool):50: dropped: not a spool row (\\x01\\x7fbinary garbage,,\"x\")",
            ])
        #expect(recovered.boundNote == nil)
        let rows = try readReport(directory, Recorder.visitorsFile).split(separator: "\n").dropFirst()
        #expect(rows.count == 50)
        #expect(rows.map { Int($0.prefix { $0 != "," }) } == (1...50).map { $0 })
        #expect(rows.filter { $0.contains(",interrupted,") }.count == 2)
        let manifest = try readReport(directory, Recorder.manifestFile)
        #expect(manifest.contains("2 line(s) of the spool dropped"))
        #expect(manifest.contains(#""visitors" : 50"#) || manifest.contains(#""visitors":50"#))
    }

    /// A killed shard (`run --shard 1/3`) numbers its visitors among the whole plan's: the
    /// visitors between its own rows belong to the other shards, which have their own rows.
    @Test func aKilledShardFillsInOnlyItsOwnVisitors() throws {
        let directory = try makeReportDirectory()
        var description = describeRun(runId: "20250301T120000Z-shard")
        description.shard = ShardIdentity(
            shard: PlanShard(index: 1, count: 3)!, visitorsOverride: nil, plannedVisitors: 30, shardVisitors: 10)
        do {
            let recorder = try Recorder(directory: directory, description: description)
            // Shard 1 of 3 owns visitor indices 1, 4, 7, …; the row of index 7 never reached the disk.
            for index in [1, 4, 10, 13] {
                try recorder.record(queuedVisitor(index, arrival: index * 10, enqueueMs: 20, waitMs: 100))
            }
            try recorder.flushRows()
        }
        let recovered = try ReportRecovery.recover(directory)
        #expect(recovered.rows == 4)
        #expect(recovered.filledIn == 1)
        let rows = try readReport(directory, Recorder.visitorsFile).split(separator: "\n").dropFirst()
        #expect(rows.map { Int($0.prefix { $0 != "," }) } == [2, 5, 8, 11, 14])
        #expect(rows.filter { $0.contains(",interrupted,") }.map { $0.prefix { $0 != "," } } == ["8"])
    }

    @Test func aSecondRowForAVisitorIsDroppedAndNamed() throws {
        let directory = try Self.killedRun(planned: 5, rows: 5, gaps: [], extra: [Self.row(visitor: 3)])
        let recovered = try ReportRecovery.recover(directory)
        #expect(recovered.rows == 5)
        #expect(
            recovered.dropped == [
                "\(directory)/\(Recorder.spoolFile):6: dropped: a second row for visitor 3 (the first is line 3)"
            ])
    }

    @Test func manyGarbageLinesAreCountedAndTheFirstTwentyNamed() throws {
        let garbage = (0..<500).map { "garbage line \($0)\n" }
        let directory = try Self.killedRun(planned: 3, rows: 3, gaps: [], extra: garbage)
        let recovered = try ReportRecovery.recover(directory)
        #expect(recovered.rows == 3)
        #expect(recovered.droppedCount == 500)
        #expect(recovered.dropped.count == RecoveredRows.Dropped.namedLimit)
        #expect(recovered.dropped.first?.hasSuffix(":4: dropped: not a spool row (garbage line 0)") == true)
        #expect(recovered.dropped.last?.hasSuffix(":23: dropped: not a spool row (garbage line 19)") == true)
    }

    @Test func withoutThePlansCountTheSpoolsOwnRowsBoundTheVisitorsAndTheReportSaysSo() throws {
        let directory = try Self.killedRun(
            planned: nil, rows: 4, gaps: [1], extra: [Self.row(visitor: 999_999_999_999)])
        // Four rows read (the far one too): each vouches for one more visitor, at least 10,000.
        let recovered = try ReportRecovery.recover(directory)
        #expect(recovered.rows == 3)
        #expect(recovered.filledIn == 1)
        #expect(
            recovered.dropped == [
                "\(directory)/\(Recorder.spoolFile):4: dropped: visitor 999999999999 is beyond what the spool's rows vouch for (10004)"
            ])
        let note = try #require(recovered.boundNote)
        #expect(note.contains("holds no planned visitor count"))
        #expect(try readReport(directory, Recorder.manifestFile).contains("holds no planned visitor count"))
        #expect(try readReport(directory, Recorder.visitorsFile).split(separator: "\n").count == 1 + 4)
    }

    @Test func theRunWritesThePlansCountIntoItsPendingFile() throws {
        var description = describeRun()
        description.shard = ShardIdentity(
            shard: try #require(PlanShard(index: 1, count: 4)), visitorsOverride: nil, plannedVisitors: 1900,
            shardVisitors: 475)
        let pending = PendingRun(description: description, startedAt: Date(timeIntervalSince1970: 0))
        #expect(pending.plannedVisitors == 1900)
        let json = try pending.json()
        #expect(json.contains(#""plannedVisitors":1900"#))
        let decoded = try JSONDecoder().decode(PendingRun.self, from: Data(json.utf8))
        #expect(decoded.plannedVisitors == 1900)

        // A pending file from before the count decodes, without it.
        var older = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        older["plannedVisitors"] = nil
        let olderData = try JSONSerialization.data(withJSONObject: older)
        #expect(try JSONDecoder().decode(PendingRun.self, from: olderData).plannedVisitors == nil)
    }
}
