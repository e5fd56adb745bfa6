import ArgumentParser
import Foundation
import QueueSim

struct RecoverCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recover",
        abstract: "Turn the folder of a run that was killed into a report marked incomplete.",
        discussion: """
            A run that was killed (kill -9, an OOM kill, a CI timeout) leaves its rows in
            DIR.runs/<run id>/, and DIR still shows the previous report. `recover` writes
            that run's visitors.csv (every row that reached the disk, about all but the
            last second, and an `interrupted` row for each visitor below the last recorded
            one that has none), summary.csv, timeline.csv and run.json with `incomplete`
            saying why, then points DIR at it when it is newer than the report DIR shows.
            The next `queuesim run` into DIR does the same on its own.

            Examples:
              queuesim recover reports/launch

            The run's plan says how many visitors it had: a spool line that is no row,
            a second row for a visitor, or a row of a visitor beyond the plan is dropped,
            not believed, and named on stderr (PATH:LINE: dropped: why; the first 20,
            then a count); run.json's `incomplete` counts them. A run from before the
            plan's count was recorded is bounded by its spool's own rows, and says so.

            Exit codes:
              0    recovered, or nothing to recover
              2    DIR is in use by a run or is not a report folder
              3    the reports could not be written
            """
    )

    @Argument(help: "The report directory (a run's --out or reports.dir).")
    var directory: String

    func run() throws {
        let folder: ReportFolder
        do {
            // Keeps every earlier run: recovering must not delete reports.
            folder = try ReportFolder(pointer: directory, keep: Int.max)
        } catch let failure as ReportFolder.Failure {
            StandardError.print("queuesim recover: \(failure)")
            throw ExitCode(failure.isUsageError ? 2 : 3)
        }
        let crashed = folder.crashedRuns()
        guard !crashed.isEmpty else {
            print("\(folder.pointer): nothing to recover (no run was left unfinished)")
            return
        }
        do {
            for id in crashed {
                let recovered = try folder.recoverCrashedRun(id)
                Self.sayWhatWasDropped(recovered)
                let filled = recovered.filledIn > 0 ? ", \(recovered.filledIn) visitor(s) without a row" : ""
                print("recovered run \(id): \(recovered.rows) row(s)\(filled), marked incomplete")
            }
            if let newest = crashed.last, folder.currentRunId.map({ $0 < newest }) ?? true {
                try folder.publish(newest)
                print("\(folder.pointer) now shows run \(newest)")
            }
        } catch {
            StandardError.print("queuesim recover: \(CommandSupport.words(error))")
            throw ExitCode(3)
        }
    }

    /// The lines recovery did not believe, by name, then how many more; and how visitors were
    /// bounded when the plan's count was unknown.
    static func sayWhatWasDropped(_ recovered: ReportRecovery.Recovered) {
        for line in recovered.dropped { StandardError.print("queuesim recover: \(line)") }
        let unnamed = recovered.droppedCount - recovered.dropped.count
        if unnamed > 0 { StandardError.print("queuesim recover: and \(unnamed) more line(s) dropped") }
        if let note = recovered.boundNote { StandardError.print("queuesim recover: \(note)") }
    }
}
