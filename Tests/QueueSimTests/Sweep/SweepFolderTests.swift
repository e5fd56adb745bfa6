import Foundation
import Testing

@testable import QueueSim

/// A sweep's output folder as a set (docs/sweep.md, "Files"): the link swaps only once every
/// file is written, a failed or killed sweep leaves the previous set current and its own marked,
/// and the folder is locked for the sweep's whole time.
@Suite("Sweep folder")
struct SweepFolderTests {
    struct InjectedFailure: Error {}

    static func scratch() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sweep-folder-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func files(_ tag: String) -> [(name: String, text: String)] {
        [("sweep.csv", "csv \(tag)\n"), ("sweep.json", "{\"tag\": \"\(tag)\"}\n"), ("sweep.html", "<p>\(tag)</p>\n")]
    }

    static func read(_ directory: String) -> [String] {
        ["sweep.csv", "sweep.json", "sweep.html"].map {
            (try? String(contentsOfFile: directory + "/" + $0, encoding: .utf8)) ?? "missing"
        }
    }

    @Test("a write that fails part-way leaves the previous sweep's three files current and whole")
    func failedWriteKeepsThePreviousSet() throws {
        let root = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let out = root + "/out"
        let first = try SweepFolder(pointer: out, setId: "sweep-1")
        try first.publish(Self.files("first"))
        first.release()
        #expect(Self.read(out) == Self.files("first").map(\.text))

        let second = try SweepFolder(pointer: out, setId: "sweep-2")
        var written = 0
        // The disk fills after the first file (sweep.csv) of the new set.
        #expect(throws: InjectedFailure.self) {
            try second.publish(Self.files("second")) { path, text in
                guard written < 1 else { throw InjectedFailure() }
                written += 1
                try text.write(toFile: path, atomically: false, encoding: .utf8)
            }
        }
        second.release()
        #expect(Self.read(out) == Self.files("first").map(\.text))
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: out) == "out.runs/sweep-1")
        #expect(FileManager.default.fileExists(atPath: out + ".runs/sweep-2/INCOMPLETE"))
        #expect(!FileManager.default.fileExists(atPath: out + ".runs/sweep-1/INCOMPLETE"))

        // The next sweep that finishes becomes current and clears both earlier sets.
        let third = try SweepFolder(pointer: out, setId: "sweep-3")
        try third.publish(Self.files("third"))
        #expect(Self.read(out) == Self.files("third").map(\.text))
        let sets = try FileManager.default.contentsOfDirectory(atPath: out + ".runs").filter { !$0.hasPrefix(".") }
        #expect(sets == ["sweep-3"])
    }

    @Test("a second sweep into a folder in use is refused, naming the holder")
    func lockedFolderRefused() throws {
        let root = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let holder = try SweepFolder(pointer: root + "/out", setId: "sweep-a")
        #expect(throws: SweepFolder.Failure.inUse(pointer: root + "/out", holder: "pid \(getpid()), sweep sweep-a")) {
            _ = try SweepFolder(pointer: root + "/out", setId: "sweep-b")
        }
        // A `run` into it is refused too: the same lock file.
        #expect(throws: ReportFolder.Failure.self) { _ = try ReportFolder(pointer: root + "/out") }
        holder.release()
        _ = try SweepFolder(pointer: root + "/out", setId: "sweep-c")
    }

    @Test("a folder from before sets becomes an earlier set; a folder of other files is refused")
    func legacyAndForeignFolders() throws {
        let root = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let legacy = root + "/legacy"
        try FileManager.default.createDirectory(
            atPath: legacy + "/points/001-seed-1", withIntermediateDirectories: true)
        for (name, text) in Self.files("old") {
            try text.write(toFile: legacy + "/" + name, atomically: true, encoding: .utf8)
        }
        let folder = try SweepFolder(pointer: legacy, setId: "sweep-new")
        #expect(Self.read(legacy) == Self.files("old").map(\.text), "the old files stay readable during the sweep")
        try folder.publish(Self.files("new"))
        #expect(Self.read(legacy) == Self.files("new").map(\.text))

        let foreign = root + "/foreign"
        try FileManager.default.createDirectory(atPath: foreign, withIntermediateDirectories: true)
        try "x".write(toFile: foreign + "/notes.txt", atomically: true, encoding: .utf8)
        #expect(throws: SweepFolder.Failure.foreignDirectory(pointer: foreign, example: "notes.txt")) {
            _ = try SweepFolder(pointer: foreign)
        }
        #expect(!FileManager.default.fileExists(atPath: foreign + ".runs"))
    }

    @Test("a parent that cannot be written is found when the folder is taken, with the system's words")
    func unwritableParentFoundEarly() throws {
        let root = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: root) }
        // A regular file where a folder should be: ENOTDIR, for root as for anyone.
        try "x".write(toFile: root + "/file", atomically: true, encoding: .utf8)
        do {
            _ = try SweepFolder(pointer: root + "/file/out")
            Issue.record("taken under a file")
        } catch {
            #expect(!error.isUsageError)
            #expect(error.description.contains("Not a directory"), "\(error)")
        }
    }
}
