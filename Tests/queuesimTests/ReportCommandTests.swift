import Foundation
import Testing

/// The end screen says what judged the run and where the page is; `queuesim report DIR`
/// rebuilds the page from the folder (issue 13).
@Suite("queuesim report and the end screen")
struct ReportCommandTests {
    static let failingScenario = """
        version: 1
        target: { customerId: acme, waitingRoomId: launch }
        arrivals: { phases: [ { burst: 20 } ] }
        waitingRoom:
          faults:
            - { endpoint: enqueue, status: 400, rate: 50% }
        """

    @Test func aRunWithoutThresholdsSaysNothingJudgedItAndNamesThePageLast() throws {
        let scenario = try TemporaryScenario(Self.failingScenario)
        let out = RunCommandProcess.reportDirectory()
        let result = try QueueSimProcess.run(["run", scenario.path, "--clock", "virtual", "--out", out])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("no thresholds set: the exit code does not judge this run"))
        #expect(result.stdout.contains("exit 0: the run finished; no thresholds set, so nothing judged it"))
        #expect(!result.stdout.contains("every threshold held"))
        // The failures are explained by group, with their cause.
        #expect(result.stdout.contains("why visitors failed (top causes by group):"))
        #expect(result.stdout.contains("  default: HTTP 400 × "), "\(result.stdout)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.last == "report: \(out)/report.html")
        #expect(FileManager.default.fileExists(atPath: out + "/report.html"))
    }

    @Test func reportRebuildsThePageFromTheFolder() throws {
        let scenario = try TemporaryScenario(Self.failingScenario + "\nthresholds:\n  - error < 1%\n")
        let out = RunCommandProcess.reportDirectory()
        let run = try QueueSimProcess.run(["run", scenario.path, "--clock", "virtual", "--out", out, "--quiet"])
        #expect(run.status == 1, "\(run.stderr)")
        let written = try String(contentsOfFile: out + "/report.html", encoding: .utf8)
        try FileManager.default.removeItem(atPath: out + "/report.html")
        let result = try QueueSimProcess.run(["report", out])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("thresholds: 1 of 1 FAILED"))
        #expect(result.stdout.contains("run exit status: 1 (a threshold failed (reports written))"))
        #expect(result.stdout.hasSuffix("report: \(out)/report.html\n"))
        #expect(try String(contentsOfFile: out + "/report.html", encoding: .utf8) == written)
    }

    @Test func aFolderThatIsNoReportIsExitTwo() throws {
        let folder = RunCommandProcess.reportDirectory()
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let result = try QueueSimProcess.run(["report", folder])
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("queuesim report: \(folder) is not a report folder: it has no run.json"))
    }
}
