import ArgumentParser
import Foundation
import QueueSim

/// `queuesim import queue-it-stats`: a room's per-minute statistics as `stats.csv`.
struct ImportStatsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "queue-it-stats",
        abstract: "Write a Queue-it event's per-minute statistics as a CSV table.",
        discussion: """
            One request per statistics type, GET {api-base}/event/{event}/queue/
            statistics/details/{type}?from=&to=, at most 10 a minute per event (a line
            says when it waits). Each answer is kept in OUT.raw/<type>.json as it
            arrives: the same command resumes where it stopped, and --from-file OUT.raw
            rewrites the table from them without the API. The table has a row per
            minute (its start, ISO-8601 UTC) and a column per type; docs/import.md says
            how From, Interval, Entries and SumOffset are read.

            Exit codes: 0 written; 2 invalid input (options, an unknown event, a
            refused key, --out exists without --force, OUT.raw holds another request);
            3 the API could not be read, or the files not written; 130 SIGINT (the
            answers so far are kept).

            Examples:
              queuesim import queue-it-stats --customer acme --event spring26 \\
                --from 2026-05-01T09:00:00Z --to 2026-05-01T11:00:00Z --out stats.csv
              queuesim import queue-it-stats --from-file stats.csv.raw --out stats.csv \\
                --force
            """
    )

    @OptionGroup var connection: ImportConnectionOptions

    @Option(help: ArgumentHelp("The first minute, ISO-8601 UTC (2026-05-01T09:00:00Z).", valueName: "time"))
    var from: String?

    @Option(help: ArgumentHelp("The end (exclusive), ISO-8601 UTC.", valueName: "time"))
    var to: String?

    @Option(
        help: ArgumentHelp(
            "Statistics types to ask for, comma-separated (default: all 15).", valueName: "type,type"))
    var types: String?

    @Option(
        help: ArgumentHelp(
            "Read saved answers (<type>.json, as in OUT.raw) from this folder instead of the API.",
            valueName: "folder"))
    var fromFile: String?

    @Option(help: ArgumentHelp("The CSV file to write.", valueName: "file"))
    var out: String

    func run() async throws {
        let command = self
        try await ImportRunner.run(command: "import queue-it-stats") { () async throws(ImportFailure) in
            try await command.importStatistics()
        }
    }

    private func importStatistics() async throws(ImportFailure) {
        let chosen = try chosenTypes()
        try ImportFiles.checkOutput(out, force: connection.force)
        let answers: [String: StatisticsAnswer]
        var range: (QueueItInstant, QueueItInstant)
        if let fromFile {
            if connection.apiBase != nil {
                throw ImportFailure("give --from-file or --api-base, not both: --from-file reads no API")
            }
            let saved = try StatisticsImport.saved(in: fromFile, types: chosen)
            answers = saved.answers
            range = try savedRange(saved.answers, request: saved.request)
        } else {
            let request = try apiRequest()
            range = (QueueItValue.instant(request.from)!, QueueItValue.instant(request.to)!)
            answers = try await fetch(request, types: chosen)
        }
        let columns = chosen.filter { answers[$0] != nil }
        let table = StatisticsTable.csv(types: columns, answers: answers, from: range.0, to: range.1)
        for warning in table.warnings { StandardError.print("\(out): warning: \(warning)") }
        try ImportFiles.write(Array(table.text.utf8), to: out)
        let rows = table.text.utf8.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) } - 1
        print("wrote \(out): \(rows) minutes from \(range.0.minuteStart), \(columns.count) statistics")
    }

    private func chosenTypes() throws(ImportFailure) -> [String] {
        guard let types else { return StatisticsType.all }
        let names = types.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        for name in names where !StatisticsType.all.contains(name) {
            throw ImportFailure(
                "--types: `\(EventFieldCatalog.shown("", name))` is not a statistics type; the types are "
                    + StatisticsType.all.joined(separator: ", "))
        }
        guard !names.isEmpty else { throw ImportFailure("--types names no type") }
        return StatisticsType.all.filter(names.contains)
    }

    private func apiRequest() throws(ImportFailure) -> StatisticsImport.Request {
        guard let customer = connection.customer, let event = connection.event else {
            throw ImportFailure("give --customer and --event (or --from-file with saved answers)")
        }
        try ImportIdentifiers.check(customer, option: "--customer")
        try ImportIdentifiers.check(event, option: "--event")
        guard let fromText = from, let toText = to else {
            throw ImportFailure("give --from and --to, ISO-8601 UTC such as 2026-05-01T09:00:00Z")
        }
        let start = try Self.instant(fromText, option: "--from")
        let end = try Self.instant(toText, option: "--to")
        try Self.checkRange(start, end)
        return StatisticsImport.Request(customer: customer, event: event, from: start, to: end)
    }

    private func fetch(_ request: StatisticsImport.Request, types: [String]) async throws(ImportFailure)
        -> [String: StatisticsAnswer]
    {
        let progress: @Sendable (String) -> Void = { StandardError.print("queuesim import queue-it-stats: \($0)") }
        var api = try connection.api(customer: request.customer, progress: progress)
        api.budget = RequestBudget(clock: api.clock)
        let folder = out + ".raw"
        let job = StatisticsImport(request: request, types: types, rawFolder: folder, api: api, progress: progress)
        do {
            return try await job.answers()
        } catch  where error.status == .interrupted || error.status == .aborted {
            let kept = types.filter { ImportFiles.exists(StatisticsImport.answerPath(folder, $0)) }.count
            guard kept > 0 else { throw error }
            throw ImportFailure(
                "\(error.message); \(kept) of \(types.count) answers are kept in \(folder): the same command "
                    + "resumes from them", status: error.status)
        }
    }

    /// With --from-file: --from/--to when given, else the folder's request.json, else what the
    /// answers cover.
    private func savedRange(_ answers: [String: StatisticsAnswer], request: StatisticsImport.Request?)
        throws(ImportFailure) -> (QueueItInstant, QueueItInstant)
    {
        var start = answers.values.map(\.from.minuteStart).min()!
        var end = answers.values.map(\.coveredEnd).max()!
        if let request, let saved = QueueItValue.instant(request.from), let savedEnd = QueueItValue.instant(request.to)
        {
            (start, end) = (saved, savedEnd)
        }
        if let from { start = try Self.instant(from, option: "--from") }
        if let to { end = try Self.instant(to, option: "--to") }
        try Self.checkRange(start, end)
        return (start, end)
    }

    private static func instant(_ text: String, option: String) throws(ImportFailure) -> QueueItInstant {
        guard let instant = QueueItInstant(iso8601: text) else {
            throw ImportFailure(
                "\(option) must be ISO-8601 UTC such as 2026-05-01T09:00:00Z; found `\(EventFieldCatalog.shown("", text))`"
            )
        }
        return instant
    }

    private static func checkRange(_ start: QueueItInstant, _ end: QueueItInstant) throws(ImportFailure) {
        guard start < end else { throw ImportFailure("--to \(end) must be after --from \(start)") }
        let minutes = (end.millisecondsSinceEpoch - start.minuteStart.millisecondsSinceEpoch) / 60_000
        guard minutes <= StatisticsTable.longestRangeMinutes else {
            throw ImportFailure(
                "--from \(start) to --to \(end) is more than \(StatisticsTable.longestRangeMinutes / 1440) days; "
                    + "import the event in parts")
        }
    }
}
