/// The `visitors.csv` columns. The first seventeen are the contract (SCENARIO-CONTRACT.md) and
/// keep their names and order; columns after them are additions documented in docs/reports.md.
enum VisitorRowFormat {
    static let columns = [
        "visitor", "group", "flow", "arrival_ms", "start_ms", "outcome", "redirect_type",
        "http_status", "error", "attempts", "polls", "restarts", "enqueue_ms", "wait_ms",
        "total_ms", "queue_id", "token",
        // Additions after the contract's columns:
        "requests",
    ]

    static var header: String { columns.joined(separator: ",") + "\n" }

    /// Appends one complete row (with its newline) for `record` to `row`, which is cleared first.
    static func encode(_ record: VisitorRecord, into row: inout CSVRowBuilder) {
        row.clear()
        row.integer(record.index + 1)
        row.text(record.group)
        row.text(record.flow)
        row.integer(record.arrival.milliseconds)
        row.integer(record.start.milliseconds)
        row.text(record.outcome.rawValue)
        row.optionalText(record.redirectType)
        row.optionalInteger(record.httpStatus)
        row.optionalText(record.error.map(SecretRedaction.redact))
        row.integer(record.attempts)
        row.integer(record.polls)
        row.integer(record.restarts)
        row.optionalInteger(record.enqueueMilliseconds)
        row.integer(record.waitMilliseconds)
        row.integer(record.totalMilliseconds)
        row.optionalText(record.queueId)
        row.text(record.token.rawValue)
        row.integer(record.requests)
        row.endRow()
    }
}
