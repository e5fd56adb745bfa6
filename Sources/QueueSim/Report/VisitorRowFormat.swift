import QueueClientCore

/// The `visitors.csv` columns. The first seventeen are the contract (docs/contract.md) and
/// keep their names and order; columns after them are additions documented in docs/reports.md.
enum VisitorRowFormat {
    static let columns = [
        "visitor", "group", "flow", "arrival_ms", "start_ms", "outcome", "redirect_type",
        "http_status", "error", "attempts", "polls", "restarts", "enqueue_ms", "wait_ms",
        "total_ms", "queue_id", "token",
        // Additions after the contract's columns:
        "requests", "connect_ms", "tls_ms",
    ]

    static var header: String { columns.joined(separator: ",") + "\n" }

    /// After the others, only in runs where a group mixes platforms (there the group no longer
    /// says the platform): every row then ends with its visitor's.
    static let platformColumn = "platform"

    /// After the others and the platform, only in runs where a group has `comeback`.
    static let comebacksColumn = "comebacks"

    /// Last of all, only in live runs with a TLS destination: the HTTP versions that answered
    /// the visitor (`SpokenProtocols.text`).
    static let protocolColumn = "protocol"

    /// The header of a run whose rows carry a platform, comebacks and protocols, or not.
    static func header(platform: Bool, comebacks: Bool = false, protocols: Bool = false) -> String {
        (columns + (platform ? [platformColumn] : []) + (comebacks ? [comebacksColumn] : [])
            + (protocols ? [protocolColumn] : [])).joined(separator: ",") + "\n"
    }

    /// Every header queuesim writes, without its newline: each optional column there or not.
    static let headers: [String] = [false, true].flatMap { platform in
        [false, true].flatMap { comebacks in
            [false, true].map { protocols in
                String(header(platform: platform, comebacks: comebacks, protocols: protocols).dropLast())
            }
        }
    }

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
        row.optionalPackedText(record.packedQueueId)
        row.text(record.token.rawValue)
        row.integer(record.requests)
        row.optionalInteger(record.connectMilliseconds)
        row.optionalInteger(record.tlsMilliseconds)
        if let platform = record.platform { row.text(platform) }
        if let comebacks = record.comebacks { row.integer(comebacks) }
        if let protocols = record.spokenProtocols { row.text(protocols) }
        row.endRow()
    }
}

extension VisitorRowFormat {
    /// The complete rows of spooled bytes, each without its newline: a row ends at a newline
    /// outside quotes, so a row cut short by a kill (no newline yet) is left out.
    static func completeRows(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        var rows: [ArraySlice<UInt8>] = []
        var start = 0
        var quoted = false
        for (index, byte) in bytes.enumerated() {
            if byte == UInt8(ascii: "\"") {
                quoted.toggle()
            } else if byte == UInt8(ascii: "\n"), !quoted {
                rows.append(bytes[start..<index])
                start = index + 1
            }
        }
        return rows
    }

    /// The record a row was written from, as far as the row tells it (milliseconds; the
    /// instants the row does not print are derived from its durations); nil for a row that is
    /// not one of ours.
    static func decode(_ row: ArraySlice<UInt8>) -> VisitorRecord? {
        // The feeders' RFC 4180 reader: one row in, its fields out.
        guard let cells = try? CSVColumnReader.parse(String(decoding: row, as: UTF8.self), path: "").first,
            (columns.count...columns.count + 3).contains(cells.count), let visitor = Int(cells[0]),
            visitor >= 1,
            let outcome = VisitorOutcome(rawValue: cells[5]), let token = TokenState(rawValue: cells[16]),
            let arrivalMs = Int64(cells[3]), let startMs = Int64(cells[4]), let totalMs = Int64(cells[14]),
            let waitMs = Int64(cells[13]), let attempts = Int(cells[9]), let polls = Int(cells[10]),
            let restarts = Int(cells[11]), let requests = Int(cells[17]),
            // A row that adds up past Int64 is not one of ours (merge reads edited rows too).
            case (let endMs, let overflow) = arrivalMs.addingReportingOverflow(totalMs), !overflow
        else { return nil }
        func instant(_ milliseconds: Int64) -> RunInstant { .origin + .milliseconds(milliseconds) }
        func optional(_ text: String) -> String? { text.isEmpty ? nil : text }
        let start = instant(startMs)
        let ended = instant(endMs)
        var record = VisitorRecord(
            index: visitor - 1, group: cells[1], flow: cells[2], arrival: instant(arrivalMs), start: start,
            outcome: outcome, redirectType: optional(cells[6]), httpStatus: Int(cells[7]), error: optional(cells[8]),
            attempts: attempts, polls: polls, restarts: restarts, requests: requests,
            enqueueDecided: Int64(cells[12]).map { start + .milliseconds($0) },
            // Entering the queue page loads it at once (a poll), so `polls` tells a wait of 0 ms
            // from no wait at all.
            queueEntered: waitMs > 0 || polls > 0 ? ended - .milliseconds(waitMs) : nil, ended: ended,
            queueId: optional(cells[15]), token: token)
        record.connectTime = Int64(cells[18]).map { .milliseconds($0) }
        record.tlsTime = Int64(cells[19]).map { .milliseconds($0) }
        return decodeTail(cells.dropFirst(columns.count), into: record)
    }

    /// The optional tail, in this order, each there or not: a platform word, a comebacks
    /// count, the protocols. Told apart by what they hold, as a spool row has no header: a
    /// count is the comebacks, a protocol text (`SpokenProtocols.isText`) the protocols, any
    /// other word the platform. An empty cell is the protocols when it is the last (a visitor
    /// none of whose requests was answered), else a recovered row's empty platform. Nil for a
    /// tail queuesim does not write.
    private static func decodeTail(_ cells: ArraySlice<String>, into record: VisitorRecord) -> VisitorRecord? {
        var record = record
        var next = 0  // 0: platform, 1: comebacks, 2: protocols may come; each at most once.
        for (offset, cell) in zip(cells.indices, cells) {
            let last = offset == cells.index(before: cells.endIndex)
            if let comebacks = Int(cell), next <= 1 {
                record.comebacks = comebacks
                next = 2
            } else if !cell.isEmpty ? SpokenProtocols.isText(cell) : last {
                guard next <= 2 else { return nil }
                record.spokenProtocols = cell
                next = 3
            } else if next == 0 {
                record.platform = cell
                next = 1
            } else {
                return nil
            }
        }
        return record
    }
}
