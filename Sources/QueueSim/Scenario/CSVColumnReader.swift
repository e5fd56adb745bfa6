import Foundation

/// Reads one named column of a CSV file with a header row (RFC 4180: fields may be quoted
/// with `"`, quotes inside doubled, quoted fields may hold commas and line breaks).
/// Used by validation (the column exists) and by visitor planning (the values).
///
/// The files hold enqueue keys, tokens and invite codes: no error quotes a value read from one
/// (a line and a count say where and what instead).
package enum CSVColumnReader {
    package enum Failure: Error, Equatable, CustomStringConvertible {
        case unreadable(path: String, reason: String)
        case empty(path: String)
        /// The first line names no such column. Only its column count is kept: a keys or tokens
        /// file without a header row has a key there, and an error must never quote a secret.
        case missingColumn(path: String, column: String, columnCount: Int)
        case malformed(path: String, line: Int, reason: String)

        package var description: String {
            switch self {
            case .unreadable(let path, let reason): return "cannot read \(path): \(reason)"
            case .empty(let path): return "\(path) is empty; expected a header row naming the columns"
            case .missingColumn(let path, let column, let columnCount):
                let columns = columnCount == 1 ? "1 column" : "\(columnCount) columns"
                return "\(path):1: no header row with a column named `\(column)` (the first line has \(columns); "
                    + "values are not shown, they may be secrets)"
            case .malformed(let path, let line, let reason): return "\(path):\(line): \(reason)"
            }
        }
    }

    /// The values of `column`, one per data row, in file order (empty lines are skipped).
    package static func read(path: String, column: String) throws(Failure) -> [String] {
        let bytes: [UInt8]
        do {
            // A FIFO or device as a feeder would block validation for ever: regular files only.
            bytes = try RegularFileReader.contents(path: path, limit: Int.max)
        } catch {
            throw .unreadable(path: path, reason: error.description)
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw .unreadable(path: path, reason: "the file is not UTF-8 text")
        }
        let rows = try parse(text, path: path)
        guard let header = rows.first else { throw .empty(path: path) }
        let names = header.map { String($0.trimmingSpaces) }
        guard let index = names.firstIndex(of: column) else {
            throw .missingColumn(path: path, column: column, columnCount: names.count)
        }
        var values: [String] = []
        for row in rows.dropFirst() {
            guard index < row.count else {
                throw .malformed(
                    path: path, line: values.count + 2,
                    reason: "this row has \(row.count) fields, the header \(names.count)")
            }
            values.append(row[index])
        }
        return values
    }

    /// Rows of fields; blank lines are dropped.
    static func parse(_ text: String, path: String) throws(Failure) -> [[String]] {
        var rows: [[String]] = []
        var row: [String] = []
        var field = ""
        var inQuotes = false
        var fieldWasQuoted = false
        var line = 1
        var quoteLine = 1
        var characters = Array(text.unicodeScalars)[...]
        if characters.first == "\u{FEFF}" { characters = characters.dropFirst() }
        var index = characters.startIndex
        func endRow() {
            row.append(field)
            if !(row.count == 1 && row[0].isEmpty && !fieldWasQuoted) { rows.append(row) }
            row = []
            field = ""
            fieldWasQuoted = false
        }
        while index < characters.endIndex {
            let character = characters[index]
            index += 1
            if inQuotes {
                if character == "\"" {
                    if index < characters.endIndex, characters[index] == "\"" {
                        field.unicodeScalars.append("\"")
                        index += 1
                    } else {
                        inQuotes = false
                    }
                } else {
                    if character == "\n" { line += 1 }
                    field.unicodeScalars.append(character)
                }
                continue
            }
            switch character {
            case "\"":
                guard field.isEmpty else {
                    throw .malformed(
                        path: path, line: line, reason: "a quote inside an unquoted field; quote the whole field")
                }
                inQuotes = true
                fieldWasQuoted = true
                quoteLine = line
            case ",":
                row.append(field)
                field = ""
                fieldWasQuoted = false
            case "\r":
                if index < characters.endIndex, characters[index] == "\n" { index += 1 }
                endRow()
                line += 1
            case "\n":
                endRow()
                line += 1
            default:
                field.unicodeScalars.append(character)
            }
        }
        if inQuotes { throw .malformed(path: path, line: quoteLine, reason: "a quoted field is never closed") }
        if !field.isEmpty || !row.isEmpty || fieldWasQuoted { endRow() }
        return rows
    }
}
