import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `report` rewriting report.html inside a run folder on a read-only file system: the folder
/// checks of `--out` do not apply (the folder is the input), so the file write's own errno reaches
/// the user, and it reads EROFS in the same words as `--out`'s.
@Suite("errno words from the command line")
struct ErrnoWordsCommandTests {
    /// Root with `unshare`: a bind mount made read-only in a mount namespace of the child's own,
    /// so the run's files stay readable.
    static let canBindReadOnly: Bool =
        geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare")

    @Test("report on a read-only run folder: exit 3, 'read-only file system (EROFS)'", .enabled(if: canBindReadOnly))
    func reportOnReadOnlyFolder() throws {
        let base = RunCommandProcess.reportDirectory()
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: base) }
        let scenario = base + "/s.yaml"
        try """
        version: 1
        clock: virtual
        target: { customerId: acme, waitingRoomId: launch }
        arrivals: { phases: [ { burst: 5 } ] }
        """.write(toFile: scenario, atomically: true, encoding: .utf8)
        let out = base + "/launch"
        let run = try QueueSimProcess.run(["run", scenario, "--out", out, "--quiet"], limit: .seconds(30))
        #expect(run.status == 0, "\(run.stderr)")
        let folder = try FileManager.default.destinationOfSymbolicLink(atPath: out)
        let real = folder.hasPrefix("/") ? folder : base + "/" + folder
        let before = try Data(contentsOf: URL(fileURLWithPath: out + "/report.html"))

        let binary = try QueueSimProcess.executable()
        let script = "mount --bind \"$0\" \"$0\" && mount -o remount,bind,ro \"$0\" && exec \"$@\""
        let result = try QueueSimProcess.run(
            ["-m", "sh", "-c", script, real, binary, "report", out], limit: .seconds(30),
            program: "/usr/bin/unshare")
        #expect(result.status == 3, "\(result.stderr)")
        #expect(result.stderr.contains("read-only file system (EROFS)"), "\(result.stderr)")
        #expect(!result.stderr.contains("Read-only file system"), "\(result.stderr)")
        #expect(!result.stderr.contains("Input/output error"), "\(result.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: out + "/report.html")) == before)
    }
}
