import ArgumentParser
import Foundation
import QueueClientCore
import QueueSim

/// What every command that writes or reads report folders shares: taking and checking the
/// folder, the words of an error, the preflight message, `--junit`. One home, so no command
/// borrows another's.
enum CommandSupport {
    /// The report folder checked before any work (`ReportFolder.checkWritable`, and for a
    /// command that reads folders `ReportFolder.checkNotAnInput`): the message on stderr, exit
    /// 2 for a folder the user must choose again, 3 for one the file system will not write.
    static func checkOutputFolder(_ pointer: String, inputs: [String] = [], command: String) throws {
        do {
            try ReportFolder.checkNotAnInput(pointer, inputs: inputs)
            try ReportFolder.checkWritable(pointer)
        } catch let failure as ReportFolder.Failure {
            StandardError.print("queuesim \(command): \(failure)")
            throw ExitCode(failure.isUsageError ? RunExitStatus.invalidInput.rawValue : RunExitStatus.aborted.rawValue)
        }
    }

    /// Takes the report folder (exit 2 when another run holds it or it is not ours to replace,
    /// 3 when the file system refuses), finishes the reports of runs that were killed in it,
    /// and creates this run's own folder. The folder's lock is held until the process ends.
    static func takeFolder(_ pointer: String, runId: String, keep: Int, command: String = "run") throws
        -> ReportFolder
    {
        let folder: ReportFolder
        do {
            folder = try ReportFolder(pointer: pointer, runId: runId, keep: keep)
            folder.holdLockUntilExit()
            for crashed in folder.crashedRuns() {
                let recovered = try folder.recoverCrashedRun(crashed)
                StandardError.print(
                    "queuesim \(command): an earlier run into \(folder.pointer) was killed before it finished; "
                        + "its \(recovered.rows) row(s) are now a report marked incomplete in \(recovered.directory)")
            }
            try folder.createRunDirectory()
        } catch let failure as ReportFolder.Failure {
            StandardError.print("queuesim \(command): \(failure)")
            throw ExitCode(failure.isUsageError ? RunExitStatus.invalidInput.rawValue : RunExitStatus.aborted.rawValue)
        } catch {
            StandardError.print(
                "queuesim \(command): cannot prepare the report folder \(pointer): \(words(error))")
            throw ExitCode(RunExitStatus.aborted.rawValue)
        }
        return folder
    }

    /// `FILE:LINE:COLUMN: message` for a preflight problem whose place in the scenario is
    /// known (a feeder that runs out, the plan over the memory budget; `--set KEY=VALUE:1:COLUMN`
    /// when a `--set` wrote that place), `FILE: message` otherwise.
    static func preflightMessage(scenario: Scenario, _ error: any Error) -> String {
        guard let failure = error as? PreflightFailure, let position = failure.position else {
            return "\(scenario.sourcePath): \(words(error))"
        }
        return "\(scenario.place(of: position)): \(words(failure.reason))"
    }

    /// Writes `--junit FILE` for `run` and `merge`; a failure is exit 3, naming where the
    /// reports are (they were written and published before).
    static func writeJUnit(_ report: RunReport, run: RunDescription, to path: String, command: String) throws {
        do {
            try JUnitReport.write(JUnitReport.render(report: report, run: run), to: path)
        } catch {
            StandardError.print(
                "queuesim \(command): the reports are in \(report.directory) but \(path) could not be written: \(words(error))"
            )
            throw ExitCode(RunExitStatus.aborted.rawValue)
        }
    }

    /// An error as a person reads it: in words (never a type dump), secrets redacted.
    static func words(_ error: any Error) -> String {
        SecretRedaction.redact(ErrorWording.plain(error))
    }

    /// Removes an aborted run's folder if it is still empty; returns what the user should know
    /// about what is left (where its rows are), or "".
    static func clearAfterAbort(_ folder: ReportFolder) -> String {
        folder.removeRunDirectoryIfEmpty()
        guard FileManager.default.fileExists(atPath: folder.runDirectory) else { return "" }
        return "\n\(folder.pointer) still shows the previous report; the rows of this run are in "
            + "\(folder.runDirectory) (`queuesim recover \(folder.pointer)` makes them a report marked incomplete)"
    }
}
