import Foundation
import Testing

@testable import QueueSim

/// What is checked about a report folder before a command works, and how long it is held.
@Suite("report folder: checked before work, held for the command's time")
struct ReportFolderChecksTests {
    @Test("a folder taken for a command stays locked after the object is released, until the process ends")
    func lockHeldUntilExit() throws {
        let pointer = try makeReportDirectory() + "/launch"
        let folder = try ReportFolder(pointer: pointer, runId: "20260101T000000Z-0001")
        folder.holdLockUntilExit()
        folder.release()
        #expect {
            _ = try ReportFolder(pointer: pointer, runId: "20260101T000001Z-0002")
        } throws: { error in
            guard case .inUse(_, let holder)? = error as? ReportFolder.Failure else { return false }
            return holder == "pid \(getpid()), run 20260101T000000Z-0001"
        }
    }

    @Test("an --out that is, resolves to, holds or lies in an input is refused by name; a sibling is not")
    func inputsRefused() throws {
        let base = try makeReportDirectory()
        let input = base + "/shard-0.runs/20260101T000000Z-0001"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: base + "/shard-0", withDestinationPath: "shard-0.runs/20260101T000000Z-0001")
        func how(_ out: String, _ inputs: [String]) -> String? {
            do {
                try ReportFolder.checkNotAnInput(out, inputs: inputs)
                return nil
            } catch ReportFolder.Failure.isAnInput(_, _, let how) {
                return how
            } catch {
                return "\(error)"
            }
        }
        #expect(how(base + "/shard-0", [base + "/shard-0"]) == "the same folder")
        #expect(how(base + "/shard-0", [input]) == "the same folder")
        // An earlier run of the folder, not the current one: publishing would prune it.
        let earlier = base + "/shard-0.runs/20251231T000000Z-0000"
        try FileManager.default.createDirectory(atPath: earlier, withIntermediateDirectories: true)
        #expect(how(base + "/shard-0", [earlier]) == "a run of \(base)/shard-0")
        #expect(
            how(base + "/shard-0/deeper/merged", [base + "/shard-0"])
                == "\(base)/shard-0/deeper/merged would be inside it")
        #expect(how(base, [base + "/shard-0"]) == "it is inside \(base)")
        #expect(how(base + "/shard-00", [base + "/shard-0"]) == nil)
        #expect(how(base + "/merged", [base + "/shard-0", base + "/missing"]) == nil)
    }

    @Test("missing parents are made with mkdir(2), a failure keeping its own errno in words")
    func directoriesMadeWithTheirErrno() throws {
        let base = try makeReportDirectory()
        try ReportFolder.makeDirectories(base + "/a/b/c")
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: base + "/a/b/c", isDirectory: &isDirectory))
        #expect(isDirectory.boolValue)
        FileManager.default.createFile(atPath: base + "/file", contents: Data())
        #expect(throws: ReportFolder.Failure.io(path: base + "/file/x", operation: "create", errno: ENOTDIR)) {
            try ReportFolder.makeDirectories(base + "/file/x")
        }
        #expect(
            ReportFolder.Failure.io(path: "/r", operation: "create", errno: EROFS).description
                == "cannot create /r: read-only file system (EROFS)")
        #expect(
            ReportFolder.Failure.notWritable(path: "/r", errno: EROFS).description
                == "cannot write reports into /r: read-only file system (EROFS); choose another --out")
        #expect(ReportFolder.Failure.notWritable(path: "/r", errno: EROFS).isUsageError == false)
    }
}
