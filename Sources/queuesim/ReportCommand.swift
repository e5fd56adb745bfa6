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

            --real STATS.CSV adds a section "Rehearsal against the real event": the run
            laid over a real event's minutes as `compare --real` scores it (the overlay
            chart, each series' error, the score, the Total-Outflow identity, the rules in
            force and their verdicts). The page shows the verdicts; the exit status stays
            the page's (use compare --real to gate on them). --real-from places the run's
            second 0 in the file (default: a replay's start, else the first row). Without
            --real the page is exactly what the run wrote.

            Examples:
              queuesim report reports/launch
              queuesim report reports/launch --real stats.csv

            Exit codes:
              0    written
              2    DIR is not a report folder; with --real: a stats.csv that cannot be
                   read (FILE:LINE) or a --real-from outside it
              3    report.html could not be written
            """
    )

    @Argument(help: "The report directory (a run's --out or reports.dir, or a run folder in DIR.runs/).")
    var directory: String

    @Option(
        help: ArgumentHelp(
            "Add the run laid over a real event's per-minute statistics (a Queue-it stats.csv).",
            valueName: "file"))
    var real: String?

    @Option(
        name: .customLong("real-from"),
        help: ArgumentHelp(
            "With --real: the file's minute (its time as written) that is the run's second 0.", valueName: "time"))
    var realFrom: String?

    func run() throws {
        if realFrom != nil, real == nil {
            StandardError.print("queuesim report: --real-from places the run in --real STATS.CSV; give it")
            throw ExitCode(RunExitStatus.invalidInput.rawValue)
        }
        // Scored before the page is touched: a bad file leaves report.html as it was.
        let fidelity = try real.map {
            try RealRehearsal(command: "report", folder: directory, real: $0, realFrom: realFrom).score()
        }
        let rebuilt: ReportRebuild.Rebuilt
        do {
            rebuilt = try ReportRebuild.rebuild(directory)
            if let fidelity { try Self.addSection(fidelity, to: rebuilt.pagePath) }
        } catch let failure as ReportRebuild.Failure {
            StandardError.print("queuesim report: \(failure)")
            throw ExitCode(RunExitStatus.invalidInput.rawValue)
        } catch {
            StandardError.print(
                "queuesim report: cannot write \(directory)/report.html: \(CommandSupport.words(error))")
            throw ExitCode(RunExitStatus.aborted.rawValue)
        }
        var lines = ["\(directory): \(rebuilt.visitors) visitors"]
        lines += RunSummaryScreen.outcomeLines(counts: rebuilt.outcomeCounts, visitors: rebuilt.visitors)
        lines.append("")
        lines.append(RunSummaryScreen.thresholdLine(verdicts: rebuilt.verdicts))
        // The run's own verdict, as its end screen wrote it.
        lines.append(ExitLine.screenLine(rebuilt.exitStatus, thresholdCount: rebuilt.verdicts.count))
        if let fidelity { lines.append("against \(fidelity.realName): \(fidelity.verdictLine)") }
        lines.append("report: \(rebuilt.pagePath)")
        print(lines.joined(separator: "\n"))
        StandardError.print(
            ExitLine.reportText(
                status: rebuilt.exitStatus, thresholdCount: rebuilt.verdicts.count, page: rebuilt.pagePath))
    }

    /// Puts the real event's section into the page just written, through a temporary file
    /// and a rename like every report.
    static func addSection(_ fidelity: FidelityText, to pagePath: String) throws {
        let page = try String(contentsOfFile: pagePath, encoding: .utf8)
        guard let withSection = fidelity.page(inserting: page) else {
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSFilePathErrorKey: pagePath])
        }
        try ComparisonText.write(withSection, to: pagePath)
    }
}
