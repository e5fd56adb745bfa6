import ArgumentParser
import Foundation
import QueueClientCore
import QueueSim

struct CompareCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract: "Compare two report folders of one scenario: what changed since the last run.",
        usage: """
            queuesim compare [<options>] <base>... <new>
              queuesim compare --real <stats.csv> [<options>] <run>
            """,
        discussion: """
            Reads both folders' run.json and visitors.csv (a run's --out, a run folder in
            DIR.runs/, or a merged folder) and shows, overall and per group (one row per
            figure when the scenario has one group), each outcome's share and the
            p50/p95/p99 of each timing in both runs, the change, its noise band and a
            verdict. Above the table it names every difference of configuration: the seed,
            the scenario file's SHA-256, each --set, --visitors and the other command-line
            overrides, the room's outflow as it ran, the queuesim build, the visitor count.
            Several folders before the last are several base runs (seeds of one
            configuration): the base figure is their mean and the noise band their spread.

            Rules say how far a figure may move the bad way before it is a regression:
            `METRIC: CHANGE`, where `+` watches a rise and `-` a fall, by `%` of the base
            value, `pp` (share points), a duration (timings) or a count; `off` shows the
            figure without judging it. The defaults are
              passed: -1pp, error: +0.5pp, unavailable: +0.5pp, abandoned: +1pp,
              enqueue.p95: +10%, wait.p95: +10%
            then the scenario's `compare:` block (recorded in the new run's run.json), then
            each --rule; a later rule for the same metric replaces an earlier one. Rules
            apply overall and to every group.

            A difference within the noise band is `noise`, not a regression. With one base,
            each run's visitors are split in arrival order into 20 batches and the band
            (95 %) comes from the spread of the batch figures: queue waits are
            autocorrelated, so visitors one by one would give a band far too narrow. With
            several bases, the band is the spread of the figure across them. Two virtual
            runs with the same seed have no noise: every difference is real. Two seeds of
            one Poisson plan are comparable although their visitor counts differ. A group
            with fewer than 50 visitors in either run is not judged (`too few visitors`):
            its figures are the luck of a few. A wait at
            client.maxWait is a lower bound: shown `≥ 30m 0s`, never judged an improvement.

            Each folder is checked against its own run.json first, and refused (exit 2,
            even with --force) when it does not add up: a visitors.csv that is empty,
            cut short, has another header, a row of another width, a NUL byte, a visitor
            twice, or other row or outcome counts or bytes than run.json records; a run
            that is not whole (a partial merge, a recovered, interrupted or guardrail-
            stopped run: only exit 0 or 1 is compared); or one run given twice (the same
            folder, its DIR link, or a copy with the same run id).

            --real STATS.CSV scores one run against the real event's minutes (a Queue-it
            stats.csv from `import queue-it-stats`): the run's minutes (its minutes.csv,
            else counted from visitors.csv) under Queue-it's names (queueinflow, queueoutflow,
            safetynetoutflow, queueidsinqueue, oldqueuenumbers, queueexpectedwaittime,
            queueactualwaittime), are laid over the file's from its first row (--real-from
            T: the file's minute that is the run's second 0; a run that replayed a
            per-minute file starts where its replay did, said on stderr; another file
            than the one replayed is a warning). Per series it prints the mean
            absolute percentage error (|run - real| / max(real, 1), minutes 0 on both
            sides left out) and the largest gap; the score is the mean of the errors; a
            totaloutflow column is checked against safetynetoutflow + queueoutflow. Rules
            are `SERIES.mape < 10%`, `SERIES.gap <= 50`, `score < 20%` or `SERIES.mape off`;
            the defaults queueinflow.mape < 10%, queueoutflow.mape < 10%,
            queueidsinqueue.mape < 25%, queueactualwaittime.mape < 25%. --markdown also
            writes an SVG overlay chart beside the file (summary.md: summary.svg); --json
            the scores; --real-metrics the real queueinflow, queueoutflow and
            queueidsinqueue as the run's metrics (OpenMetrics, source="real", stamped on
            the run's clock as its metrics.prom) for one Grafana panel with both.

            Examples:
              queuesim compare reports/last-night reports/launch
              queuesim compare base/ new/ --rule 'wait.p95: +5%' --markdown summary.md
              queuesim compare base/ new/ --junit compare.xml
              queuesim compare seed7/ seed8/ seed9/ new/
              queuesim compare --real stats.csv reports/launch --json score.json
              queuesim compare --real stats.csv run/ --rule 'queueoutflow.mape < 5%'
              queuesim compare --real stats.csv run/ --real-metrics real.prom

            Exit codes:
              0    no rule broken
              1    a rule broken (a regression beyond the noise band; with --real,
                   a fidelity rule)
              2    not comparable (another scenario, scenario file, clock or arrival plan;
                   --force compares anyway), not a report folder, a folder that does not
                   add up, a run that is not whole, one run twice, fewer than two
                   folders, or a bad --rule; with --real: a stats.csv that cannot
                   be read (FILE:LINE), no or several run folders, --real-from
                   outside the file, a --rule on a column the file lacks
              3    --markdown, --junit, --json or --real-metrics could not be written
            """
    )

    @Argument(
        help: ArgumentHelp(
            "The base run's report folder (e.g. last night's), or several (seeds of one configuration), then the run to judge against it.",
            valueName: "folder"))
    var folders: [String] = []

    /// The last folder: the run judged.
    private var new: String { folders.last ?? "" }

    @Option(
        name: .customLong("rule"),
        help: ArgumentHelp(
            "A rule METRIC: CHANGE, such as 'wait.p95: +10%' or 'error: +0.5pp' (repeatable).", valueName: "RULE"))
    var rules: [String] = []

    @Option(
        help: ArgumentHelp(
            "Also write the comparison as a Markdown table to FILE (a CI job summary).", valueName: "FILE"))
    var markdown: String?

    @Option(help: ArgumentHelp("Also write the judged figures as JUnit XML to FILE.", valueName: "FILE"))
    var junit: String?

    @Flag(help: "Compare even when the runs are of different scenarios, files, clocks or plans.")
    var force = false

    @Option(
        help: ArgumentHelp(
            "Score one run against the real event's per-minute statistics (a Queue-it stats.csv).",
            valueName: "STATS.CSV"))
    var real: String?

    @Option(
        name: .customLong("real-from"),
        help: ArgumentHelp(
            "With --real: the file's minute (its time as written) that is the run's second 0; default its first row.",
            valueName: "T"))
    var realFrom: String?

    @Option(help: ArgumentHelp("With --real: also write the scores as JSON to FILE.", valueName: "FILE"))
    var json: String?

    @Option(
        name: .customLong("real-metrics"),
        help: ArgumentHelp(
            "With --real: also write the real series as the run's metrics (OpenMetrics, source=\"real\") to FILE.",
            valueName: "FILE"))
    var realMetrics: String?

    func run() throws {
        if real != nil || realFrom != nil || json != nil || realMetrics != nil { return try runAgainstReal() }
        let commandLineRules: [CompareRule]
        do {
            commandLineRules = try rules.map { text throws(CompareRule.Problem) in try CompareRule(parsing: text) }
        } catch {
            StandardError.print("queuesim compare: --rule \(error.message)")
            throw ExitCode(RunExitStatus.invalidInput.rawValue)
        }
        let (baseRuns, newRun) = try readAll()
        for baseRun in baseRuns {
            guard let reason = ComparedRun.incomparability(baseRun, newRun) else { continue }
            guard force else {
                StandardError.print(
                    "queuesim compare: \(baseRun.folder) and \(new) are not comparable: \(reason) (--force compares anyway)"
                )
                throw ExitCode(RunExitStatus.invalidInput.rawValue)
            }
            StandardError.print("queuesim compare: comparing anyway (--force), although \(reason)")
        }
        let recorded = newRun.recordedRules.compactMap { try? CompareRule(parsing: $0) }
        let comparison = RunComparison(
            bases: baseRuns, new: newRun,
            rules: RunComparison.rules(recorded: recorded, commandLine: commandLineRules))
        print(ComparisonText.terminal(comparison))
        do {
            if let markdown { try ComparisonText.write(ComparisonText.markdown(comparison), to: markdown) }
            if let junit { try ComparisonText.write(ComparisonText.junit(comparison), to: junit) }
        } catch {
            StandardError.print("queuesim compare: cannot write \(error)")
            throw ExitCode(RunExitStatus.aborted.rawValue)
        }
        let status = comparison.broken.isEmpty ? RunExitStatus.success : .thresholdFailed
        StandardError.print(
            "queuesim compare: done (exit \(status.rawValue)): \(ComparisonText.verdictLine(comparison))")
        if status != .success { throw ExitCode(status.rawValue) }
    }

    /// Every folder, each checked against its own run.json, and as many runs, none given twice;
    /// otherwise exit 2 (--force does not change that: such a comparison always passes or
    /// judges a run that is not whole).
    private func readAll() throws -> ([ComparedRun], ComparedRun) {
        func refuse(_ words: String) -> ExitCode {
            StandardError.print("queuesim compare: \(words)")
            return ExitCode(RunExitStatus.invalidInput.rawValue)
        }
        guard folders.count >= 2 else {
            throw refuse("give a base run's folder (or several) and the new run's folder: \(folders.count) given")
        }
        for (index, first) in folders.enumerated() {
            for second in folders[(index + 1)...] {
                if let reason = ComparedRun.sameFolder(first, second) {
                    throw refuse("\(first) and \(second) are \(reason): give two runs to compare")
                }
            }
        }
        let runs: [ComparedRun]
        do {
            runs = try folders.map { folder throws(ComparedRun.Failure) in try ComparedRun(folder: folder) }
        } catch {
            throw refuse("\(error)")
        }
        for (index, first) in runs.enumerated() {
            for second in runs[(index + 1)...] {
                if let reason = ComparedRun.sameRun(first, second) {
                    throw refuse("\(first.folder) and \(second.folder) are \(reason): give two runs to compare")
                }
            }
        }
        return (Array(runs.dropLast()), runs[runs.count - 1])
    }
}
