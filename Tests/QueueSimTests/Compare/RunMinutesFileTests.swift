import Foundation
import QueueClientCore
import Testing

@testable import QueueSim

/// `minutes.csv`: the run's minutes written by the recorder's tally and read back by compare
/// give the same numbers, bit for bit, whatever order the visitors finished in.
@Suite("minutes.csv: the tally, the file and its reading")
struct RunMinutesFileTests {
    static func at(_ milliseconds: Int64) -> RunInstant { .origin + .milliseconds(milliseconds) }

    static func visitor(_ index: Int, entered: Int64, ended: Int64, _ outcome: VisitorOutcome) -> VisitorRecord {
        VisitorRecord(
            index: index, group: "app", flow: "run", arrival: at(entered), start: at(entered), outcome: outcome,
            enqueueDecided: at(entered), queueEntered: at(entered), ended: at(ended))
    }

    /// Waits of 1 ms and of thirds of a minute: means whose shortest text has an exponent or
    /// many digits.
    static let records = [
        visitor(0, entered: 1000, ended: 1001, .passed),
        visitor(1, entered: 2000, ended: 22_000, .passed),
        visitor(2, entered: 2500, ended: 9000, .abandoned),
        visitor(3, entered: 3000, ended: 73_000, .passed),
        visitor(4, entered: 120_000, ended: 120_001, .passed),
    ]

    @Test("written and read back, the minutes are equal; the waits exact, without an exponent")
    func roundTrip() throws {
        let minutes = RunMinutes(records: Self.records, end: .seconds(200))
        #expect(minutes.count == 4)
        #expect(minutes.series["oldqueuenumbers"] == [0, 1, 0, 0])
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("minutes-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let text = minutes.csv
        #expect(!text.contains("e-"))
        let rows = text.split(separator: "\n")
        #expect(rows[1] == "0,4,2,0,2,0,0.5000055555555555,0.166675", "\(text)")
        #expect(rows[3].hasPrefix("2,1,1,0,0,0,0.0000166666666666666"), "\(text)")
        try text.write(toFile: folder + "/minutes.csv", atomically: true, encoding: .utf8)
        let read = try RunMinutes.read(folder: folder)
        #expect(read.usedFile == "minutes.csv")
        #expect(read.minutes == minutes)
    }

    @Test("the tally gives the same minutes, bit for bit, in any order")
    func anyOrder() {
        let forward = RunMinutes(records: Self.records, end: .seconds(200))
        #expect(RunMinutes(records: Self.records.reversed(), end: .seconds(200)) == forward)
        #expect(RunMinutes(records: [2, 0, 4, 1, 3].map { Self.records[$0] }, end: .seconds(200)) == forward)
    }

    @Test("a minutes.csv of another shape is refused with its path")
    func otherShape() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("minutes-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try "minute,queueinflow\n0,4\n".write(toFile: folder + "/minutes.csv", atomically: true, encoding: .utf8)
        #expect(throws: RunFolderCheck.Problem.self) { try RunMinutes.read(folder: folder) }
    }
}
