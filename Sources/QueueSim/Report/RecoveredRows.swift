import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The rows a killed run left on disk (its spool, or `visitors.csv` when it died after writing
/// it), read a chunk at a time: memory holds one chunk, one row and the rows kept, whatever the
/// file holds. A row is kept when it decodes, its visitor is within `limit`, and no earlier row
/// had that visitor; every other line is dropped and named (`PATH:LINE: dropped: why`), so a
/// corrupt spool says what it lost instead of inventing visitors or losing lines in silence.
struct RecoveredRows {
    /// Lines dropped so far; the first `namedLimit` by line are named, the rest only counted.
    struct Dropped {
        static let namedLimit = 20
        private(set) var named: [(line: Int, text: String)] = []
        private(set) var count = 0

        mutating func drop(line: Int, _ text: String) {
            count += 1
            named.append((line, text))
            if named.count > Self.namedLimit * 2 { trim() }
        }

        /// The first `namedLimit` drops in line order.
        var lines: [String] {
            var copy = self
            copy.trim()
            return copy.named.map(\.text)
        }

        private mutating func trim() {
            named.sort { $0.line < $1.line }
            named.removeLast(max(0, named.count - Self.namedLimit))
        }
    }

    /// Longer than any row queuesim writes (an error cell is at most a few hundred bytes): a
    /// "row" past it is a line of something else, or a stray quote swallowing the file.
    static let longestRow = 1 << 16
    static let chunkSize = 1 << 20

    let path: String
    /// The highest visitor index kept is below it (nil: read them all, the caller bounds them).
    let limit: Int?
    let plannedVisitors: Int?
    private(set) var records: [Int: (record: VisitorRecord, line: Int)] = [:]
    private(set) var dropped = Dropped()

    /// Reads `path`, skipping its first line when `skipHeader` (visitors.csv).
    init(path: String, skipHeader: Bool, plannedVisitors: Int?) throws {
        self.path = path
        self.plannedVisitors = plannedVisitors
        limit = plannedVisitors
        try read(skipHeader: skipHeader)
    }

    /// Drops every kept row whose visitor index is `bound` or over (a bound learnt after reading).
    mutating func dropRows(from bound: Int, why: (Int) -> String) {
        for (index, kept) in records where index >= bound {
            records[index] = nil
            dropped.drop(line: kept.line, "\(path):\(kept.line): dropped: \(why(index + 1))")
        }
    }

    private mutating func read(skipHeader: Bool) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(descriptor) }
        var chunk = [UInt8](repeating: 0, count: Self.chunkSize)
        var row: [UInt8] = []
        var line = 1
        var rowLine = 1
        var quoted = false
        var overlong = false
        var header = skipHeader
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            if count == 0 { break }
            for byte in chunk[..<count] {
                let endsRow = byte == UInt8(ascii: "\n") && (!quoted || overlong)
                if byte == UInt8(ascii: "\"") { quoted.toggle() }
                if endsRow {
                    if header {
                        header = false
                    } else if overlong {
                        dropped.drop(
                            line: rowLine,
                            "\(path):\(rowLine): dropped: not a spool row (over \(Self.longestRow) bytes)")
                    } else {
                        take(row[...], line: rowLine)
                    }
                    row.removeAll(keepingCapacity: true)
                    (quoted, overlong) = (false, false)
                    line += 1
                    rowLine = line
                    continue
                }
                if byte == UInt8(ascii: "\n") { line += 1 }
                if row.count < Self.longestRow { row.append(byte) } else { overlong = true }
            }
        }
        // The kill came in the middle of writing this row.
        if !row.isEmpty {
            dropped.drop(line: rowLine, "\(path):\(rowLine): dropped: a row cut short by the kill (no end of line)")
        }
    }

    private mutating func take(_ row: ArraySlice<UInt8>, line: Int) {
        guard let record = VisitorRowFormat.decode(row) else {
            dropped.drop(line: line, "\(path):\(line): dropped: not a spool row (\(Self.escapedStart(row)))")
            return
        }
        if let limit, record.index >= limit {
            let planned = plannedVisitors ?? limit
            dropped.drop(
                line: line,
                "\(path):\(line): dropped: visitor \(record.index + 1) is beyond the plan's \(planned) visitors")
            return
        }
        if let first = records[record.index] {
            dropped.drop(
                line: line,
                "\(path):\(line): dropped: a second row for visitor \(record.index + 1) (the first is line \(first.line))"
            )
            return
        }
        records[record.index] = (record, line)
    }

    /// The first 40 bytes, printable ASCII as it is and anything else escaped, so a line of
    /// binary garbage cannot reach the terminal as control characters.
    static func escapedStart(_ row: ArraySlice<UInt8>) -> String {
        var text = ""
        for byte in row.prefix(40) {
            switch byte {
            case UInt8(ascii: "\\"): text += "\\\\"
            case UInt8(ascii: "\t"): text += "\\t"
            case UInt8(ascii: "\r"): text += "\\r"
            case UInt8(ascii: "\n"): text += "\\n"
            case 0x20...0x7E: text.unicodeScalars.append(Unicode.Scalar(byte))
            default: text += "\\x" + (byte < 16 ? "0" : "") + String(byte, radix: 16)
            }
        }
        return row.count > 40 ? text + "…" : text
    }
}
