import ArgumentParser
import Foundation
import QueueSim

/// `queuesim compare --real stats.csv RUNDIR`: one run laid over the real event's minutes.
extension CompareCommand {
    func runAgainstReal() throws {
        func refuse(_ words: String) -> ExitCode {
            StandardError.print("queuesim compare: \(words)")
            return ExitCode(RunExitStatus.invalidInput.rawValue)
        }
        guard let real else { throw refuse("--real-from and --json score a run against --real STATS.CSV; give it") }
        guard junit == nil else { throw refuse("--junit is for two runs; with --real use --json or --markdown") }
        guard folders.count == 1, let folder = folders.first else {
            throw refuse("--real scores exactly one run's folder against the file: \(folders.count) given")
        }
        let commandLineRules: [FidelityRule]
        do {
            commandLineRules = try rules.map { text throws(FidelityRule.Problem) in try FidelityRule(parsing: text) }
        } catch {
            throw refuse("--rule \(error.message)")
        }
        do {
            _ = try ComparedRun(folder: folder)
        } catch {
            throw refuse("\(error)")
        }
        let stats: RealStats
        do {
            stats = try RealStats.read(path: real, file: real)
        } catch {
            throw refuse("\(error)")
        }
        let offset = try realOffset(stats, refuse: refuse)
        for rule in commandLineRules where rule.limit != nil {
            if let series = rule.series, stats.series[series] == nil {
                throw refuse("--rule \(rule): \(real) has no column `\(series)`")
            }
        }
        let minutes: RunMinutes
        do {
            minutes = try RunMinutes(folder: folder)
        } catch {
            throw refuse("\(error)")
        }
        let report = FidelityScore.compute(
            run: minutes, real: stats, rules: FidelityRule.inForce(commandLineRules), offsetMinutes: offset)
        let text = FidelityText(report: report, run: minutes, real: stats, runName: folder, realName: real)
        print(text.terminal)
        try writeFiles(text)
        let status = report.broken.isEmpty ? RunExitStatus.success : .thresholdFailed
        StandardError.print("queuesim compare: done (exit \(status.rawValue)): \(text.verdictLine)")
        if status != .success { throw ExitCode(status.rawValue) }
    }

    /// The file's minute that is the run's second 0: `--real-from`, else the first row.
    private func realOffset(_ stats: RealStats, refuse: (String) -> ExitCode) throws -> Int {
        guard let realFrom else { return 0 }
        guard let minute = stats.minute(of: realFrom) else {
            throw refuse(
                "--real-from \(realFrom): expected "
                    + (stats.timesAreInstants
                        ? "an ISO-8601 time such as \(stats.firstTimeText), as the file's first column"
                        : "a number of minutes, as the file's first column"))
        }
        guard (0..<stats.count).contains(minute) else {
            throw refuse(
                "--real-from \(realFrom) is outside \(real ?? "the file") (\(stats.timeText(minute: 0)) to \(stats.timeText(minute: stats.count - 1)))"
            )
        }
        return minute
    }

    private func writeFiles(_ text: FidelityText) throws {
        do {
            if let markdown {
                let chart = FidelityText.chartPath(besideMarkdown: markdown)
                try ComparisonText.write(text.svg, to: chart)
                let chartName = chart.split(separator: "/").last.map(String.init) ?? chart
                try ComparisonText.write(text.markdown(chartName: chartName), to: markdown)
            }
            if let json { try ComparisonText.write(text.json, to: json) }
        } catch {
            StandardError.print("queuesim compare: cannot write \(error)")
            throw ExitCode(RunExitStatus.aborted.rawValue)
        }
    }
}
