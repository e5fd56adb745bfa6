import ArgumentParser
import Foundation
import QueueClientCore
import QueueSim

struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Write report.html again from a report folder's CSVs and run.json.",
        discussion: """
            Every run writes report.html beside its CSVs. `report` rebuilds it from the
            folder's own files — visitors.csv, timeline.csv, summary.csv and run.json — so
            a folder archived by CI, copied from another machine or written by an older
            queuesim gets the page too. The threshold verdicts and the exit status are the
            run's own, from run.json; run.json is not changed. Prints the outcomes and the
            page's path; the last line on stderr says the page was written and how the
            run ended: `queuesim report: done (exit 0): wrote DIR/report.html; the run
            ended FAIL (exit 1)`.

            Examples:
              queuesim report reports/launch

            Exit codes:
              0    written
              2    DIR is not a report folder
              3    report.html could not be written
            """
    )

    @Argument(help: "The report directory (a run's --out or reports.dir, or a run folder in DIR.runs/).")
    var directory: String

    func run() throws {
        let rebuilt: ReportRebuild.Rebuilt
        do {
            rebuilt = try ReportRebuild.rebuild(directory)
        } catch let failure as ReportRebuild.Failure {
            StandardError.print("queuesim report: \(failure)")
            throw ExitCode(RunExitStatus.invalidInput.rawValue)
        } catch {
            StandardError.print("queuesim report: cannot write \(directory)/report.html: \(RunCommand.words(error))")
            throw ExitCode(RunExitStatus.aborted.rawValue)
        }
        var lines = ["\(directory): \(rebuilt.visitors) visitors"]
        lines += RunSummaryScreen.outcomeLines(counts: rebuilt.outcomeCounts, visitors: rebuilt.visitors)
        lines.append("")
        lines.append(RunSummaryScreen.thresholdLine(verdicts: rebuilt.verdicts))
        // The run's own verdict, as its end screen wrote it.
        lines.append(ExitLine.screenLine(rebuilt.exitStatus, thresholdCount: rebuilt.verdicts.count))
        lines.append("report: \(rebuilt.pagePath)")
        print(lines.joined(separator: "\n"))
        StandardError.print(
            ExitLine.reportText(
                status: rebuilt.exitStatus, thresholdCount: rebuilt.verdicts.count, page: rebuilt.pagePath))
    }
}
