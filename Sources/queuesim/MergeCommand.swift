import ArgumentParser
import Foundation
import QueueClientCore
import QueueSim

struct MergeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Merge the reports of a sharded run (run --shard K/N) into one report.",
        usage: "queuesim merge [<options>] --out <DIR> <folders> ...",
        discussion: """
            Reads the report folders the shards wrote (each has shard.json beside the
            usual files), checks that they are the shards of one plan (same scenario file,
            seed, --visitors and N; each shard once; none missing) and writes one report
            folder with the files of a single run: visitors.csv in visitor order,
            summary.csv from the merged histograms, timeline.csv second by second,
            run.json and report.html. Every figure is rebuilt from the shards' rows: a
            shard whose shard.json or run.json disagrees with its own visitors.csv is
            refused. Then judges the scenario's thresholds on the merged data.
            The merged run carries the shards' run_id when they share one (started with
            one --start-at); otherwise it gets its own, with a warning.

            DIR is checked before any work: it must not be one of the folders read (nor
            resolve to one, hold one or lie inside one: publishing would remove it), and
            it must be writable.

            Examples:
              queuesim merge reports/shard-0 reports/shard-1 --out reports/launch
              queuesim merge /reports/shard-* --out /reports/merged --allow-partial
              queuesim merge reports/shard-* --out reports/launch \\
                  --junit reports/launch.xml

            Exit codes:
              0    every threshold held
              1    a threshold failed (reports written)
              2    the folders are not the shards of one run (another scenario, seed or
                   N, a shard given twice, a shard missing without --allow-partial), a
                   shard's files disagree with its rows (edited or mixed up), DIR is one
                   of the folders read, or DIR is in use
              3    the merged report could not be written (DIR not writable, a read-only
                   file system: found before any work)
              5    partial: merged with --allow-partial while shards are missing (reports
                   written, marked incomplete; never 0, whatever the thresholds measured)
              130, 143  a shard was interrupted
            """
    )

    @Argument(help: "The shards' report folders (each run's --out).")
    var folders: [String] = []

    @Option(name: .customLong("out"), help: ArgumentHelp("The merged report directory.", valueName: "DIR"))
    var outputDirectory: String

    @Option(
        help: ArgumentHelp(
            "Also write the merged verdicts as JUnit XML to FILE, as run --junit does.", valueName: "FILE"))
    var junit: String?

    @Flag(help: "Merge even when shards are missing; the report says which are, and the exit status is 5 (partial).")
    var allowPartial = false

    @Flag(name: .shortAndLong, help: "No summary; reports and exit code only.")
    var quiet = false

    func validate() throws {
        if folders.isEmpty {
            throw ValidationError("give the shards' report folders, e.g. queuesim merge reports/shard-*")
        }
    }

    func run() throws {
        let shards: ShardSet
        do {
            shards = try ShardSet(folders: folders, allowPartial: allowPartial)
        } catch {
            StandardError.print("queuesim merge: \(CommandSupport.words(error))")
            throw ExitCode(RunExitStatus.invalidInput.rawValue)
        }
        // Before any work: never into a folder being read (publishing would remove it), and
        // only where the report can be written.
        try CommandSupport.checkOutputFolder(outputDirectory, inputs: folders, command: "merge")
        // The folder keeps an id of its own (as a shard's does); run.json and metrics.prom carry
        // the shards' shared run id, so the merged run and its shards name one run.
        let folderId = RunId.make()
        let runId = shards.sharedRunId ?? folderId
        if shards.sharedRunId == nil, shards.members.count > 1 {
            StandardError.print(
                "queuesim merge: warning: the shards have different run ids (\(shards.runIds.joined(separator: ", "))): they were not started with one --start-at; the merged run gets its own, \(runId)"
            )
        }
        let folder = try CommandSupport.takeFolder(outputDirectory, runId: folderId, keep: 0, command: "merge")
        let result: ShardMerge.Result
        do {
            result = try ShardMerge.write(
                shards, into: folder.runDirectory, runId: runId,
                commandLine: ["queuesim"] + CommandLine.arguments.dropFirst())
            try folder.publish()
        } catch let failure as ShardSet.Failure {
            _ = CommandSupport.clearAfterAbort(folder)
            StandardError.print("queuesim merge: \(failure)")
            throw ExitCode(RunExitStatus.invalidInput.rawValue)
        } catch {
            StandardError.print("queuesim merge: cannot write \(outputDirectory): \(CommandSupport.words(error))")
            throw ExitCode(RunExitStatus.aborted.rawValue)
        }
        if let junit {
            var report = result.report
            report.directory = folder.pointer
            try CommandSupport.writeJUnit(report, run: result.description, to: junit, command: "merge")
        }
        if !quiet {
            var lines = [
                "queuesim merge: \(result.visitors) visitors \(result.merged.headline) into \(outputDirectory)"
            ]
            lines += result.merged.shardLines.map { "  " + $0 }
            lines.append("")
            lines += RunSummaryScreen.outcomeLines(counts: result.report.outcomeCounts, visitors: result.visitors)
            lines.append("")
            if !result.missing.isEmpty {
                lines.append(
                    "partial: shard(s) \(result.missing.map(String.init).joined(separator: ", ")) of \(result.shardCount) missing (the report is marked incomplete; exit \(RunExitStatus.partial.rawValue) even when the thresholds hold)"
                )
            }
            if !result.verdicts.isEmpty { lines.append(result.thresholdTable) }
            lines.append(ExitLine.screenLine(result.exitStatus, thresholdCount: result.verdicts.count))
            lines.append("report: \(outputDirectory)/\(Recorder.pageFile)")
            print(lines.joined(separator: "\n"))
        }
        if !result.windowedThresholds.isEmpty {
            StandardError.print(
                "queuesim merge: not judged here: \(result.windowedThresholds.joined(separator: "; ")) (windowed thresholds are judged by each shard on its own visitors as it runs: see each shard's run.json)"
            )
        }
        StandardError.print(ExitLine.text(command: "merge", report: result.report))
        if result.exitStatus != .success { throw ExitCode(result.exitStatus.rawValue) }
    }
}
