import ArgumentParser
import Foundation
import QueueSim

/// `queuesim import`: scenarios and statistics from a real Queue-it room (docs/import.md).
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Write a scenario or a statistics table from a real Queue-it room.",
        discussion: """
            Reads Queue-it's Admin API v2 with the key in QUEUEIT_API_KEY (never from the
            command line, never written anywhere), or saved answers with --from-file.
            See docs/import.md for the field mapping and the statistics' reading.

            Examples:
              queuesim import queue-it --customer acme --event spring26 --out room.yaml
              queuesim import queue-it-stats --customer acme --event spring26 \\
                --from 2026-05-01T09:00:00Z --to 2026-05-01T11:00:00Z --out stats.csv
            """,
        subcommands: [ImportQueueItCommand.self, ImportStatsCommand.self]
    )
}

/// Options both imports share.
struct ImportConnectionOptions: ParsableArguments {
    @Option(help: "The Queue-it customer id (the `acme` of acme.queue-it.net).")
    var customer: String?

    @Option(help: "The event (waiting room) id.")
    var event: String?

    @Option(
        name: .customLong("api-base"),
        help: ArgumentHelp(
            "The API's base up to /2_0.", discussion: "Default https://{customer}.api2.queue-it.net/2_0.",
            valueName: "url"))
    var apiBase: String?

    @Option(help: ArgumentHelp("The deadline of each exchange with the API.", valueName: "duration"))
    var timeout: String = "30s"

    @Flag(help: "Replace --out if it exists.")
    var force = false

    /// The API client for these options: the key from QUEUEIT_API_KEY, the base checked.
    func api(customer: String, progress: @escaping @Sendable (String) -> Void) throws(ImportFailure) -> QueueItAdminAPI
    {
        let key = try QueueItAdminAPI.checkedKey(ProcessInfo.processInfo.environment["QUEUEIT_API_KEY"])
        let base = try apiBase.map { text throws(ImportFailure) in try QueueItAdminAPI.checkedBase(text) }
        guard let deadline = ScenarioUnits.duration(timeout), deadline > .zero, deadline <= .seconds(600) else {
            throw ImportFailure("--timeout must be a duration from 1ms to 10m, such as 30s; found `\(timeout)`")
        }
        return QueueItAdminAPI(
            base: base ?? QueueItAdminAPI.defaultBase(customer: customer), apiKey: key, timeout: deadline,
            progress: progress)
    }
}

/// Runs an import's work with SIGINT cancelling it, and turns its failure into the message and
/// exit code (2 invalid input, 3 cannot fetch or write, 130 interrupted).
enum ImportRunner {
    static func run(command: String, _ work: @escaping @Sendable () async throws(ImportFailure) -> Void) async throws {
        let task = Task { () async -> ImportFailure? in
            do throws(ImportFailure) {
                try await work()
                return nil
            } catch {
                return error
            }
        }
        let trap = SignalTrap(signals: [SIGINT]) { task.cancel() }
        let failure = await task.value
        trap.restore()
        guard let failure else { return }
        StandardError.print("queuesim \(command): \(failure.message)")
        throw ExitCode(failure.status.rawValue)
    }
}
