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
        let text = try RealRehearsal(
            command: "compare", folder: folder, real: real, realFrom: realFrom, rules: commandLineRules
        ).score()
        let report = text.report
        print(text.terminal)
        try writeFiles(text)
        let status = report.broken.isEmpty ? RunExitStatus.success : .thresholdFailed
        StandardError.print("queuesim compare: done (exit \(status.rawValue)): \(text.verdictLine)")
        if status != .success { throw ExitCode(status.rawValue) }
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
