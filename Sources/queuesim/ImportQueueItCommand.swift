import ArgumentParser
import Foundation
import QueueSim

/// `queuesim import queue-it`: a scenario from a real room's settings.
struct ImportQueueItCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "queue-it",
        abstract: "Write a scenario from a Queue-it event's settings.",
        discussion: """
            Fetches GET {api-base}/event/{event} with the Api-Key header (the key from
            QUEUEIT_API_KEY, never from the command line, never written anywhere), or
            reads the same JSON from --from-file, and writes a valid scenario for the
            embedded room: each key says the field it came from; each field the room
            does not model is a `# not modelled:` line and a warning on stderr. The
            room's secret becomes ${QUEUESIM_SECRET:-dev-secret}, never its value.
            The run's second 0 is PreQueueStartTime (else EventStartTime). The
            arrivals are an assumed crowd: replace them (docs/import.md).

            Exit codes: 0 written; 2 invalid input (options, a file that is no event,
            an unknown event, a refused key, --out exists without --force); 3 the API
            could not be read in time, or --out could not be written; 130 SIGINT.

            Examples:
              export QUEUEIT_API_KEY=…   # from Queue-it GO, Account, API keys
              queuesim import queue-it --customer acme --event spring26 --out room.yaml
              queuesim import queue-it --customer acme --event spring26 \\
                --from-file event.json --outflow 600/min --out room.yaml
            """
    )

    @OptionGroup var connection: ImportConnectionOptions

    @Option(help: ArgumentHelp("Read the event's JSON from this file instead of the API.", valueName: "file"))
    var fromFile: String?

    @Option(help: ArgumentHelp("The outflow (600/min) when the event has no MaxRedirectsPerMinute, or instead of it."))
    var outflow: String?

    @Option(help: ArgumentHelp("The scenario file to write.", valueName: "file"))
    var out: String

    func run() async throws {
        let command = self
        try await ImportRunner.run(command: "import queue-it") { () async throws(ImportFailure) in
            try await command.importEvent()
        }
    }

    private func importEvent() async throws(ImportFailure) {
        guard let customer = connection.customer else {
            throw ImportFailure("give --customer, the Queue-it customer id (the `acme` of acme.queue-it.net)")
        }
        try ImportIdentifiers.check(customer, option: "--customer")
        if let event = connection.event { try ImportIdentifiers.check(event, option: "--event") }
        try ImportFiles.checkOutput(out, force: connection.force)
        let (event, source) = try await fetch(customer: customer)
        let eventId = try self.eventId(in: event)
        let result = try ScenarioFromEvent.build(
            event, options: .init(customer: customer, event: eventId, outflow: outflow))
        do {
            _ = try ScenarioLoader.load(yaml: result.yaml, path: out)
        } catch {
            // Never expected: the importer writes only what the format accepts. Said, not written.
            throw ImportFailure(
                "the scenario made from the event is not valid, so it was not written: \(error.description)",
                status: .aborted)
        }
        for warning in result.warnings { StandardError.print("\(out): warning: \(warning)") }
        try ImportFiles.write(Array(result.yaml.utf8), to: out)
        print("wrote \(out) from event \(eventId) of \(customer) (\(source)); check it with: queuesim validate \(out)")
    }

    /// The event's fields and where they came from (for the scenario's header).
    private func fetch(customer: String) async throws(ImportFailure) -> (QueueItEvent, String) {
        if let fromFile {
            if connection.apiBase != nil {
                throw ImportFailure("give --from-file or --api-base, not both: --from-file reads no API")
            }
            return (
                try QueueItEvent.parse(ImportFiles.read(fromFile), source: fromFile), PathText.lastComponent(fromFile)
            )
        }
        guard let event = connection.event else {
            throw ImportFailure("give --event, the event (waiting room) id, or --from-file with its saved JSON")
        }
        let api = try connection.api(customer: customer) { StandardError.print("queuesim import queue-it: \($0)") }
        let bytes = try await api.get("/event/\(event)", event: event)
        do {
            return (
                try QueueItEvent.parse(bytes, source: "the answer of \(api.sourceName)"),
                "the Admin API at \(api.sourceName)"
            )
        } catch {
            throw error.with(status: .aborted)
        }
    }

    /// `--event`, or the file's `EventId`; the two must agree when both are there.
    private func eventId(in event: QueueItEvent) throws(ImportFailure) -> String {
        let field = event["EventId"]
        if let given = connection.event {
            if let field, field != given {
                throw ImportFailure("--event \(given) but the file is event `\(EventFieldCatalog.shown("", field))`")
            }
            return given
        }
        guard let field else {
            throw ImportFailure("the file has no EventId; give --event, the event (waiting room) id")
        }
        try ImportIdentifiers.check(field, option: "EventId")
        return field
    }
}
