import Foundation
import QueueClientCore

/// A problem in a replayed file, where it is: `stats.csv:7: …` (the file as the scenario writes
/// it). Messages quote times, counts and column names, never other text of a line: a log's
/// request lines can carry tokens.
package struct ReplayFileError: Error, Equatable, CustomStringConvertible {
    package var file: String
    package var line: Int?
    package var message: String

    package init(file: String, line: Int? = nil, _ message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    package var description: String {
        line.map { "\(file):\($0): \(message)" } ?? "\(file): \(message)"
    }

    /// ` (resolved to /abs/path)` when the file was written relative to the scenario's folder.
    static func resolvedNote(path: String, file: String) -> String {
        guard !file.hasPrefix("/") else { return "" }
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        return " (resolved to \(absolute.replacingOccurrences(of: "/./", with: "/")))"
    }
}

/// A CSV of values per interval (Queue-it's stats.csv, a CDN or analytics export): a header
/// row, then the interval's start in the first column and the values in the others.
///
/// The first column is an ISO-8601 time (`2026-05-01T09:00:00Z`; no zone is UTC) or a plain
/// number counted in the file's interval (minutes for `per: minute`, seconds for `per: second`).
/// Rows ascend, at least one interval apart; a missing interval is a row of nothing.
struct ReplayCountsFile {
    struct Row {
        var line: Int
        /// The interval's start in seconds, on the file's axis (since 1970 for ISO times).
        var time: Double
        /// The time as written, for messages.
        var timeText: String
        /// nil for an empty cell (a minute without data).
        var value: Double?
    }

    /// Rows a file may hold: each becomes a phase of the plan.
    static let mostRows = 2_000_000
    static let mostRowsText = "2,000,000"

    var header: [String]
    var column: String
    /// The first column holds ISO-8601 times (else numbers).
    var timesAreInstants: Bool
    var rows: [Row]

    /// Reads `path` (`file` as written, for messages). `column` nil takes the only value column.
    static func read(
        path: String, file: String, column: String?, interval: ReplayInterval, what: String
    ) throws(ReplayFileError) -> ReplayCountsFile {
        let lines = try textLines(path: path, file: file)
        guard let (headerLine, headerText) = lines.first else {
            throw ReplayFileError(
                file: file, "the file is empty; expected a header row, then one row per \(interval.rawValue)")
        }
        let header = try fields(headerText, file: file, line: headerLine).map { String($0.trimmingSpaces) }
        let index = try valueColumn(header, column: column, file: file, what: what)
        var table = ReplayCountsFile(header: header, column: header[index], timesAreInstants: false, rows: [])
        if lines.count - 1 > mostRows, let (line, _) = lines.dropFirst(mostRows + 1).first {
            // Every row becomes a phase: a year of seconds would cost gigabytes before the run.
            throw ReplayFileError(
                file: file, line: line,
                "more than \(mostRowsText) rows (23 days of seconds); replay per minute, or cut the file to the part to rehearse"
            )
        }
        for (number, text) in lines.dropFirst() {
            let cells = try fields(text, file: file, line: number)
            guard cells.count == header.count else {
                throw ReplayFileError(
                    file: file, line: number, "this row has \(cells.count) fields, the header \(header.count)")
            }
            try table.append(cells: cells, valueIndex: index, line: number, interval: interval, file: file, what: what)
        }
        guard !table.rows.isEmpty else {
            throw ReplayFileError(
                file: file, line: headerLine, "a header but no rows; expected one row per \(interval.rawValue)")
        }
        return table
    }

    private mutating func append(
        cells: [String], valueIndex: Int, line: Int, interval: ReplayInterval, file: String, what: String
    ) throws(ReplayFileError) {
        let timeText = String(cells[0].trimmingSpaces)
        let instant = ReplayTimeText.iso(Array(timeText.utf8))
        let number = ScenarioUnits.decimal(Substring(timeText))
        if rows.isEmpty { timesAreInstants = instant != nil }
        let time: Double
        if timesAreInstants, let instant {
            time = Double(instant) / 1e9
        } else if !timesAreInstants, let number, number.isFinite {
            time = number * Double(interval.seconds)
        } else {
            let expected =
                rows.isEmpty
                ? "an ISO-8601 time such as 2026-05-01T09:00:00Z or a number of \(interval.rawValue)s"
                : timesAreInstants ? "an ISO-8601 time, as the first row's" : "a number, as the first row's"
            throw ReplayFileError(
                file: file, line: line, "the first column (`\(header[0])`) must be \(expected), found `\(timeText)`")
        }
        if let previous = rows.last {
            guard time > previous.time else {
                throw ReplayFileError(
                    file: file, line: line,
                    "the time \(timeText) is not after line \(previous.line)'s (\(previous.timeText)); rows must ascend in time"
                )
            }
            guard time >= previous.time + Double(interval.seconds) - 1e-6 else {
                throw ReplayFileError(
                    file: file, line: line,
                    "the time \(timeText) falls within line \(previous.line)'s \(interval.rawValue) (\(previous.timeText)); with `per: \(interval.rawValue)` rows are at least a \(interval.rawValue) apart"
                )
            }
        }
        let valueText = String(cells[valueIndex].trimmingSpaces)
        var value: Double?
        if !valueText.isEmpty {
            guard let parsed = ScenarioUnits.decimal(Substring(valueText)), parsed.isFinite else {
                throw ReplayFileError(
                    file: file, line: line,
                    "`\(column)` (field \(valueIndex + 1)) must be a number, found `\(valueText)`")
            }
            guard parsed >= 0 else {
                throw ReplayFileError(
                    file: file, line: line,
                    "`\(column)` (field \(valueIndex + 1)) is \(valueText); \(what) cannot be negative")
            }
            guard parsed <= Double(ScenarioLimits.mostVisitors) else {
                throw ReplayFileError(
                    file: file, line: line,
                    "`\(column)` (field \(valueIndex + 1)) is \(valueText); at most \(ScenarioLimits.mostVisitorsText) a row"
                )
            }
            value = parsed
        }
        rows.append(Row(line: line, time: time, timeText: timeText, value: value))
    }

    /// The position of the value column: `column` when given, else the only column after the time.
    private static func valueColumn(_ header: [String], column: String?, file: String, what: String)
        throws(ReplayFileError) -> Int
    {
        let listed =
            header.prefix(30).map { "`\($0.prefix(60))`" }.joined(separator: ", ")
            + (header.count > 30 ? " and \(header.count - 30) more" : "")
        guard let column else {
            guard header.count == 2 else {
                throw ReplayFileError(
                    file: file, line: 1,
                    "name the column of \(what) with `column:`; the file's columns are \(listed)")
            }
            return 1
        }
        guard let index = header.firstIndex(of: column) else {
            throw ReplayFileError(file: file, line: 1, "no column named `\(column)`; the file's columns are \(listed)")
        }
        guard index > 0 else {
            throw ReplayFileError(
                file: file, line: 1, "`\(column)` is the first column, the rows' times; name a column of \(what)")
        }
        return index
    }

    /// Numbered non-blank lines, the byte-order mark and `\r` removed.
    private static func textLines(path: String, file: String) throws(ReplayFileError) -> [(Int, Substring)] {
        if let size = RegularFileReader.size(path: path), size > ScenarioLimits.largestFeederBytes {
            throw ReplayFileError(
                file: file,
                "the file is \(MemoryBudget.describe(size)); a counts file may be at most \(ScenarioLimits.largestFeederText)"
            )
        }
        let bytes: [UInt8]
        do {
            bytes = try RegularFileReader.contents(path: path, limit: ScenarioLimits.largestFeederBytes)
        } catch {
            let resolved = ReplayFileError.resolvedNote(path: path, file: file)
            throw ReplayFileError(file: file, "cannot read it\(resolved): \(error)")
        }
        guard String(validating: bytes, as: UTF8.self) != nil else {
            throw ReplayFileError(file: file, "the file is not UTF-8 text")
        }
        let body = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? bytes.dropFirst(3) : bytes[...]
        // Split on bytes: as a String, "\r\n" is one Character and would not split on "\n".
        var lines: [(Int, Substring)] = []
        for (offset, line) in body.split(separator: 10, omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.last == 13 ? line.dropLast() : line
            let text = Substring(String(decoding: trimmed, as: UTF8.self))
            if !text.trimmingSpaces.isEmpty { lines.append((offset + 1, text)) }
        }
        return lines
    }

    /// One line's fields (RFC 4180 quoting within the line).
    private static func fields(_ text: Substring, file: String, line: Int) throws(ReplayFileError) -> [String] {
        do {
            return try CSVColumnReader.parse(String(text), path: file).first ?? []
        } catch {
            throw ReplayFileError(
                file: file, line: line,
                "a quoted field is never closed on this line, or a quote sits inside an unquoted field")
        }
    }
}
