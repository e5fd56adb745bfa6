import ArgumentParser
import Foundation
import QueueSim

/// One run's folder scored against a real event's stats.csv: what `compare --real` prints and
/// what `report --real` draws into report.html. Every refusal is a message on stderr under
/// `command`'s name and exit 2.
struct RealRehearsal {
    var command: String
    var folder: String
    var real: String
    var realFrom: String?
    var rules: [FidelityRule] = []

    func refuse(_ words: String) -> ExitCode {
        StandardError.print("queuesim \(command): \(words)")
        return ExitCode(RunExitStatus.invalidInput.rawValue)
    }

    /// Reads the folder and the file, aligns them and scores the run; warnings go to stderr.
    func score() throws -> FidelityText {
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
        let replayStart = alignment(stats)
        let offset = try realOffset(stats, replayStart: replayStart)
        for rule in rules where rule.limit != nil {
            if let series = rule.series, stats.series[series] == nil {
                throw refuse("--rule \(rule): \(real) has no column `\(series)`")
            }
        }
        let minutes: RunMinutes
        do {
            let read = try RunMinutes.read(folder: folder)
            minutes = read.minutes
            if read.usedFile != RunMinutes.file {
                StandardError.print(
                    "queuesim \(command): \(folder) has no \(RunMinutes.file) (a run before it, or a merged folder): its minutes are counted from \(read.usedFile)"
                )
            }
        } catch {
            throw refuse("\(error)")
        }
        let report = FidelityScore.compute(
            run: minutes, real: stats, rules: FidelityRule.inForce(rules), offsetMinutes: offset)
        var text = FidelityText(report: report, run: minutes, real: stats, runName: folder, realName: real)
        if replayStart != nil { text.alignmentSource = "the run's replay started there" }
        return text
    }

    /// The replay's start as the default `--real-from`, its warnings printed; nil when
    /// `--real-from` is given or the run did not replay a counts file.
    private func alignment(_ stats: RealStats) -> String? {
        let alignment = ReplayAlignment.of(folder: folder, realPath: real, realName: real)
        for warning in alignment.warnings { StandardError.print("queuesim \(command): \(warning)") }
        guard realFrom == nil, let from = alignment.realFrom else { return nil }
        guard let minute = stats.minute(of: from), (0..<stats.count).contains(minute) else {
            StandardError.print(
                "queuesim \(command): warning: the run's replay started at \(from), which is not within \(real) (\(stats.timeText(minute: 0)) to \(stats.timeText(minute: stats.count - 1))); the file's first row is taken as the run's second 0"
            )
            return nil
        }
        StandardError.print(
            "queuesim \(command): --real-from \(from) (the run's replay started there: \(alignment.source ?? "its scenario")); give --real-from to place it elsewhere"
        )
        return from
    }

    /// The file's minute that is the run's second 0: `--real-from`, else the replay's start,
    /// else the first row.
    private func realOffset(_ stats: RealStats, replayStart: String?) throws -> Int {
        guard let realFrom = realFrom ?? replayStart else { return 0 }
        guard let minute = stats.minute(of: realFrom) else {
            throw refuse(
                "--real-from \(realFrom): expected "
                    + (stats.timesAreInstants
                        ? "an ISO-8601 time such as \(stats.firstTimeText), as the file's first column"
                        : "a number of minutes, as the file's first column"))
        }
        guard (0..<stats.count).contains(minute) else {
            throw refuse(
                "--real-from \(realFrom) is outside \(real) (\(stats.timeText(minute: 0)) to \(stats.timeText(minute: stats.count - 1)))"
            )
        }
        return minute
    }
}
