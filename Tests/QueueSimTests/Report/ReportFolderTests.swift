import Crypto
import Foundation
import QueueClientCore
import Testing

@testable import QueueSim

/// The report folder as one unit: a link swapped in one rename, one run at a time, earlier
/// plain folders moved aside, and nothing of a run that never finished shown as current.
@Suite("report folder")
struct ReportFolderTests {
    /// Writes a complete report for run `id` through `folder` (not yet published).
    static func writeRun(_ folder: ReportFolder, visitors: Int) throws {
        try folder.createRunDirectory()
        let recorder = try Recorder(
            directory: folder.runDirectory, description: describeRun(groups: ["app"], runId: folder.runId))
        for index in 0..<visitors {
            try recorder.record(
                VisitorRecord(
                    index: index, group: "app", flow: "run", arrival: at(index), start: at(index),
                    outcome: .passed, ended: at(index + 10)))
        }
        _ = try recorder.finish(ending(at: visitors + 10))
    }

    static func manifest(_ directory: String) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: directory + "/run.json"))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test("the folder is a link to the run's own folder, swapped run by run; earlier runs pruned beyond --keep")
    func swapsAndPrunes() throws {
        let pointer = try makeReportDirectory() + "/launch"
        for (number, id) in ["20260101T000000Z-0001", "20260101T000001Z-0002", "20260101T000002Z-0003"].enumerated() {
            let folder = try ReportFolder(pointer: pointer, runId: id, keep: 1)
            try Self.writeRun(folder, visitors: number + 1)
            try folder.publish()
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: pointer) == "launch.runs/" + id)
            #expect(try Self.manifest(pointer)["run_id"] as? String == id)
            #expect(try readReport(pointer, Recorder.visitorsFile).split(separator: "\n").count == number + 2)
        }
        let kept = try FileManager.default.contentsOfDirectory(atPath: pointer + ".runs").filter { !$0.hasPrefix(".") }
        #expect(kept.sorted() == ["20260101T000001Z-0002", "20260101T000002Z-0003"])
    }

    @Test("run.json names the run and every other file's size and SHA-256")
    func manifestNamesFiles() throws {
        let pointer = try makeReportDirectory() + "/out"
        let folder = try ReportFolder(pointer: pointer)
        try Self.writeRun(folder, visitors: 3)
        try folder.publish()
        let files = try #require(try Self.manifest(pointer)["files"] as? [String: [String: Any]])
        #expect(
            Set(files.keys) == [
                Recorder.visitorsFile, Recorder.summaryFile, Recorder.timelineFile, Recorder.pageFile,
                Recorder.metricsFile,
            ])
        for (name, entry) in files {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: pointer + "/" + name))
            #expect(entry["bytes"] as? Int == bytes.count)
            #expect(entry["sha256"] as? String == SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined())
        }
    }

    @Test("a second run into a folder in use is refused, naming the holder's pid and run")
    func oneRunAtATime() throws {
        let pointer = try makeReportDirectory() + "/busy"
        let first = try ReportFolder(pointer: pointer, runId: "20260101T000000Z-aaaa")
        #expect {
            _ = try ReportFolder(pointer: pointer, runId: "20260101T000001Z-bbbb")
        } throws: { error in
            guard case .inUse(_, let holder) = error as? ReportFolder.Failure else { return false }
            return holder == "pid \(getpid()), run 20260101T000000Z-aaaa"
        }
        first.release()
        _ = try ReportFolder(pointer: pointer, runId: "20260101T000002Z-cccc")
    }

    @Test("a run that never published leaves the earlier report current and whole")
    func unpublishedRunIsNotCurrent() throws {
        let pointer = try makeReportDirectory() + "/launch"
        let first = try ReportFolder(pointer: pointer, runId: "20260101T000000Z-0001")
        try Self.writeRun(first, visitors: 2)
        try first.publish()
        first.release()
        // Every file of the second run written, then killed before the link was swapped.
        let second = try ReportFolder(pointer: pointer, runId: "20260101T000001Z-0002")
        try Self.writeRun(second, visitors: 5)
        second.release()
        #expect(try Self.manifest(pointer)["run_id"] as? String == "20260101T000000Z-0001")
        #expect(try readReport(pointer, Recorder.visitorsFile).split(separator: "\n").count == 3)
    }

    @Test("a plain folder of report files (the layout before run folders) is moved aside; an empty one replaced")
    func legacyFolders() throws {
        let base = try makeReportDirectory()
        let legacy = base + "/old"
        try FileManager.default.createDirectory(atPath: legacy, withIntermediateDirectories: true)
        try "visitor\n".write(toFile: legacy + "/visitors.csv", atomically: false, encoding: .utf8)
        let folder = try ReportFolder(pointer: legacy)
        try Self.writeRun(folder, visitors: 1)
        try folder.publish()
        let runs = try FileManager.default.contentsOfDirectory(atPath: legacy + ".runs")
        #expect(runs.contains { $0.hasPrefix("legacy-") })

        let empty = base + "/empty"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        let second = try ReportFolder(pointer: empty)
        try Self.writeRun(second, visitors: 1)
        try second.publish()
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: empty) == "empty.runs/" + second.runId)
    }

    @Test("a folder holding files queuesim did not write, or a file, is refused before anything runs")
    func foreignFolders() throws {
        let base = try makeReportDirectory()
        let mine = base + "/mine"
        try FileManager.default.createDirectory(atPath: mine, withIntermediateDirectories: true)
        try "keep me".write(toFile: mine + "/notes.txt", atomically: false, encoding: .utf8)
        #expect(throws: ReportFolder.Failure.foreignDirectory(pointer: mine, example: "notes.txt")) {
            _ = try ReportFolder(pointer: mine)
        }
        try "x".write(toFile: base + "/file", atomically: false, encoding: .utf8)
        #expect(throws: ReportFolder.Failure.self) { _ = try ReportFolder(pointer: base + "/file") }
        #expect(throws: ReportFolder.Failure.self) { _ = try ReportFolder(pointer: base + "/..") }
        #expect(!FileManager.default.fileExists(atPath: mine + ".runs"))
    }
}
