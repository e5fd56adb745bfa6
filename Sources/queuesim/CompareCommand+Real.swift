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
        guard let real else {
            throw refuse("--real-from, --json and --real-metrics score a run against --real STATS.CSV; give it")
        }
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
        var metricsText: String?
        if realMetrics != nil {
            guard let clock = RealMetrics.RunClock(folder: folder) else {
                throw refuse(
                    "--real-metrics: \(folder)/run.json has no run_id, scenario, ended_at or duration_ms to stamp the samples with"
                )
            }
            metricsText = RealMetrics.openMetrics(real: text.real, offsetMinutes: report.offsetMinutes, clock: clock)
        }
        print(text.terminal)
        try writeFiles(text, metrics: metricsText)
        let status = report.broken.isEmpty ? RunExitStatus.success : .thresholdFailed
        StandardError.print("queuesim compare: done (exit \(status.rawValue)): \(text.verdictLine)")
        if status != .success { throw ExitCode(status.rawValue) }
    }

    private func writeFiles(_ text: FidelityText, metrics: String?) throws {
        do {
            if let markdown {
                let chart = FidelityText.chartPath(besideMarkdown: markdown)
                try ComparisonText.write(text.svg, to: chart)
                let chartName = chart.split(separator: "/").last.map(String.init) ?? chart
                try ComparisonText.write(text.markdown(chartName: chartName), to: markdown)
            }
            if let json { try ComparisonText.write(text.json, to: json) }
            if let realMetrics, let metrics { try ComparisonText.write(metrics, to: realMetrics) }
        } catch {
            StandardError.print("queuesim compare: cannot write \(error)")
            throw ExitCode(RunExitStatus.aborted.rawValue)
        }
    }
}
