import QueueClientCore

/// The real event's minutes: a Queue-it `stats.csv` (`queuesim import queue-it-stats`, or any
/// CSV of the same shape: a header `minute,<type>,…`, the minute's start in the first column,
/// one row a minute). Read with the replay reader's checks, so a bad file is a FILE:LINE error.
package struct RealStats: Sendable, Equatable {
    /// The columns a run can be laid over (RunMinutes' series), and the file's own total.
    package static let totalOutflowColumn = "totaloutflow"

    /// The first row's start, seconds since 1970 (ISO times) or on the file's own axis.
    package var firstTime: Double
    /// The first row's time as written (`2026-05-01T09:00:00Z`), for messages and tables.
    package var firstTimeText: String
    /// Whether the first column holds ISO-8601 instants (else plain numbers of minutes).
    package var timesAreInstants: Bool
    /// How many minutes from the first row to the last.
    package var count: Int
    /// Each scored column present in the file, a value a minute from the first row; nil for an
    /// empty cell or a minute without a row.
    package var series: [String: [Double?]]
    /// The file's line of each minute (nil for a minute without a row), for messages.
    package var lines: [Int?]

    /// Reads `path` (`file` as the user wrote it, for messages).
    package static func read(path: String, file: String) throws(ReplayFileError) -> RealStats {
        let header = try Self.header(path: path, file: file)
        let wanted = header.dropFirst().filter {
            RunMinutes.seriesNames.contains($0) || $0 == Self.totalOutflowColumn
        }
        guard wanted.contains(where: { RunMinutes.seriesNames.contains($0) }) else {
            throw ReplayFileError(
                file: file, line: 1,
                "no column a run can be laid over; expected one or more of "
                    + RunMinutes.seriesNames.map { "`\($0)`" }.joined(separator: ", "))
        }
        var stats = RealStats(firstTime: 0, firstTimeText: "", timesAreInstants: true, count: 0, series: [:], lines: [])
        for column in wanted {
            let table = try ReplayCountsFile.read(
                path: path, file: file, column: column, interval: .minute, what: "statistics values")
            if stats.lines.isEmpty { stats.place(table) }
            var values = [Double?](repeating: nil, count: stats.count)
            for row in table.rows { values[stats.minute(row.time)] = row.value }
            stats.series[column] = values
        }
        return stats
    }

    /// The minute of a row's time, counted from the first row.
    private func minute(_ time: Double) -> Int { Int(((time - firstTime) / 60).rounded(.down)) }

    /// The axis from the first table read: the first row, the count, each minute's line.
    private mutating func place(_ table: ReplayCountsFile) {
        guard let first = table.rows.first, let last = table.rows.last else { return }
        firstTime = first.time
        firstTimeText = first.timeText
        timesAreInstants = table.timesAreInstants
        count = minute(last.time) + 1
        lines = [Int?](repeating: nil, count: count)
        for row in table.rows { lines[minute(row.time)] = row.line }
    }

    /// The header's names; a file whose header cannot be read is left to the table reader,
    /// whose error names the problem and its line.
    private static func header(path: String, file: String) throws(ReplayFileError) -> [String] {
        let bytes = (try? RegularFileReader.contents(path: path, limit: ScenarioLimits.largestFeederBytes)) ?? []
        let body = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? bytes.dropFirst(3) : bytes[...]
        let firstLine = body.split(separator: 10).first { !String(decoding: $0, as: UTF8.self).trimmingSpaces.isEmpty }
        if let firstLine, let text = Optional(String(decoding: firstLine, as: UTF8.self)),
            let cells = try? CSVColumnReader.parse(text, path: file).first, cells.count >= 2
        {
            return cells.map { String($0.trimmingSpaces) }
        }
        _ = try ReplayCountsFile.read(path: path, file: file, column: nil, interval: .minute, what: "statistics values")
        throw ReplayFileError(file: file, line: 1, "a header `minute,<type>,…` with at least one statistics column")
    }

    /// The minute (from the first row) of an ISO-8601 time or a number of minutes as written,
    /// nil when it is neither or not in the file's kind of time.
    package func minute(of text: String) -> Int? {
        if timesAreInstants {
            guard let instant = ReplayTimeText.iso(Array(text.utf8)) else { return nil }
            return minute(Double(instant) / 1e9)
        }
        guard let number = ScenarioUnits.decimal(Substring(text)), number.isFinite else { return nil }
        return minute(number * 60)
    }

    /// A minute's time as the file writes it: the ISO instant, or the minute's number.
    package func timeText(minute: Int) -> String {
        guard timesAreInstants else { return "\(Int((firstTime / 60).rounded(.down)) + minute)" }
        return ReplayTimeText.isoText(Int64((firstTime + Double(minute) * 60) * 1e9))
    }
}
