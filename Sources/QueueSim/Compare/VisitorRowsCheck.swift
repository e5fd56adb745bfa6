import Crypto
import QueueClientCore

/// Reads a `visitors.csv` byte by byte, as it streams from disk, and refuses it at the first
/// thing queuesim never writes: another header, a row of another width, a NUL byte, a row cut
/// short, a visitor twice, a figure out of range. What it accepts is every row's record, added
/// to the statistics `queuesim compare` measures; `finish()` then says whether the file adds up
/// to what its `run.json` records.
///
/// Memory stays bounded whatever the bytes: one row at a time (at most `maxRowBytes`), the
/// histograms, and one bit per visitor number for the duplicate check.
package struct VisitorRowsCheck {
    /// The longest row accepted: a row of queuesim's is a few hundred bytes (an error message
    /// included); a longer one is not ours, and reading on would hold it all in memory.
    package static let maxRowBytes = 64 * 1024
    /// Figures in milliseconds above this (about 31 years) are not a run's, and sums of two of
    /// them stay far inside the nanosecond instants the rows are decoded into.
    static let maxMilliseconds: Int64 = 1_000_000_000_000
    /// Counts (attempts, polls, requests, …) above this are not a visitor's.
    static let maxCount = 1_000_000_000

    /// How the file is named in messages (`reports/a/visitors.csv`).
    let file: String
    private(set) var statistics: OutcomeStatistics
    /// The same rows in arrival-order batches, for the noise band (RunBatches).
    private(set) var batches: RunBatches
    package private(set) var rowCount = 0
    package private(set) var outcomeCounts: [VisitorOutcome: Int] = [:]
    package private(set) var byteCount = 0
    private var hasher = SHA256()
    /// The line of the next byte, and the line the row being read started on.
    private var line = 1
    private var rowLine = 1
    private var row: [UInt8] = []
    private var quoted = false
    /// The header's width, once it is read, and where its comebacks column is, if it has one.
    private var columnCount: Int?
    private var comebacksColumn: Int?
    private var seen: VisitorNumberSet

    /// `expectedVisitors` sizes the duplicate check and places a visitor number in its batch
    /// (a hint; any number of rows is read).
    package init(file: String, groupNames: [String], expectedVisitors: Int) {
        self.file = file
        statistics = OutcomeStatistics(groupNames: groupNames)
        batches = RunBatches(visitorCount: expectedVisitors)
        seen = VisitorNumberSet(expected: expectedVisitors)
    }

    /// The problem found, named by file and line.
    package typealias Problem = RunFolderCheck.Problem

    private func problem(_ words: String, line: Int? = nil) -> Problem {
        Problem(description: "\(file):\(line ?? rowLine): \(words)")
    }

    package mutating func feed(_ bytes: some Sequence<UInt8>) throws(Problem) {
        for byte in bytes {
            byteCount += 1
            if byte == 0 { throw problem("a NUL byte: not a file queuesim wrote", line: line) }
            if byte == UInt8(ascii: "\"") { quoted.toggle() }
            if byte == UInt8(ascii: "\r"), !quoted {
                throw problem("a carriage return (Windows line ends?): not a file queuesim wrote", line: line)
            }
            if byte == UInt8(ascii: "\n") {
                line += 1
                if !quoted {
                    try complete()
                    row.removeAll(keepingCapacity: true)
                    rowLine = line
                    continue
                }
            }
            row.append(byte)
            if row.count > Self.maxRowBytes {
                throw problem("a row longer than \(Self.maxRowBytes / 1024) KiB: not a row queuesim wrote")
            }
        }
    }

    /// The SHA-256 (hex) of every byte fed.
    package var sha256: String {
        hasher.finalize().map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }

    /// Called after the last byte: a file must end with a newline after a complete row.
    package mutating func finish() throws(Problem) {
        guard byteCount > 0 else {
            throw Problem(description: "\(file) is empty: it has no header and no rows")
        }
        guard row.isEmpty, !quoted else {
            throw problem("the row is cut short: the file ends in the middle of it (no newline after it)")
        }
    }

    private mutating func complete() throws(Problem) {
        hasher.update(data: row + [UInt8(ascii: "\n")])
        guard let columnCount else {
            let names = try checkHeader()
            columnCount = names.count
            comebacksColumn = names.firstIndex(of: Substring(VisitorRowFormat.comebacksColumn))
            return
        }
        guard !row.isEmpty else { throw problem("an empty line: every line after the header is a visitor's row") }
        let parsed: [[String]]
        do {
            parsed = try CSVColumnReader.parse(String(decoding: row, as: UTF8.self), path: "")
        } catch {
            guard case .malformed(_, _, let reason) = error else { throw problem("not a CSV row") }
            throw problem("not a CSV row: \(reason)")
        }
        guard parsed.count == 1 else { throw problem("not one CSV row: not a row queuesim wrote") }
        let cells = parsed[0]
        guard cells.count == columnCount else {
            throw problem("\(cells.count) columns, the header has \(columnCount)")
        }
        try checkFigures(cells)
        guard let record = VisitorRowFormat.decode(row[...]) else {
            throw problem("not a row queuesim wrote (a column holds what queuesim never writes there)")
        }
        guard seen.insert(record.index + 1) else {
            throw problem("visitor \(record.index + 1) has a row already: every visitor has one row")
        }
        rowCount += 1
        outcomeCounts[record.outcome, default: 0] += 1
        statistics.add(record)
        batches.add(record)
    }
}

extension VisitorRowsCheck {
    /// Every header queuesim writes: the columns, then the platform, the comebacks and the
    /// protocols when a run has them (VisitorRowFormat).
    static let headers = VisitorRowFormat.headers

    /// The header's column names, when the header is one of queuesim's.
    private func checkHeader() throws(Problem) -> [Substring] {
        let text = String(decoding: row, as: UTF8.self)
        guard let header = Self.headers.first(where: { $0 == text }) else {
            let found = text.split(separator: ",", omittingEmptySubsequences: false)
            for (index, name) in VisitorRowFormat.columns.enumerated()
            where index >= found.count || found[index] != name {
                let words = index < found.count ? "is `\(found[index].prefix(40))`" : "is missing"
                throw problem("not the visitors.csv header: column \(index + 1) \(words), queuesim writes `\(name)`")
            }
            throw problem("not the visitors.csv header: the columns after `tls_ms` are not queuesim's")
        }
        return header.split(separator: ",")
    }

    /// The figures a row is decoded into, each in a range a run can have: decoding adds and
    /// multiplies them, and a hostile value must be refused here rather than overflow there.
    private func checkFigures(_ cells: [String]) throws(Problem) {
        let milliseconds = [
            ("arrival_ms", 3, false), ("start_ms", 4, false), ("enqueue_ms", 12, true), ("wait_ms", 13, false),
            ("total_ms", 14, false), ("connect_ms", 18, true), ("tls_ms", 19, true),
        ]
        for (name, index, optional) in milliseconds {
            if optional, cells[index].isEmpty { continue }
            guard let value = Int64(cells[index]), (0...Self.maxMilliseconds).contains(value) else {
                throw problem("\(name) is `\(cells[index].prefix(40))`, not a number of milliseconds")
            }
        }
        var counts = [("visitor", 0), ("attempts", 9), ("polls", 10), ("restarts", 11), ("requests", 17)]
        if let comebacksColumn { counts.append(("comebacks", comebacksColumn)) }
        for (name, index) in counts {
            guard let value = Int(cells[index]), (0...Self.maxCount).contains(value) else {
                throw problem("\(name) is `\(cells[index].prefix(40))`, not a count")
            }
        }
        guard cells[0] != "0" else { throw problem("visitor 0: visitors are numbered from 1") }
        guard VisitorOutcome(rawValue: cells[5]) != nil else {
            throw problem("`\(cells[5].prefix(40))` is not an outcome")
        }
    }
}

/// Which visitor numbers have a row: a bit each up to the number the run expects (capped),
/// a set beyond it, so a run of millions costs a few hundred kilobytes.
struct VisitorNumberSet {
    private static let maxBits = 1 << 27
    private var bits: [UInt64]
    private var others: Set<Int> = []

    init(expected: Int) {
        bits = Array(repeating: 0, count: (min(max(expected, 0), Self.maxBits) + 64) / 64)
    }

    /// Adds `number`; false when it was there already.
    mutating func insert(_ number: Int) -> Bool {
        let word = number / 64
        guard number >= 0, word < bits.count else { return others.insert(number).inserted }
        let mask = UInt64(1) << UInt64(number % 64)
        if bits[word] & mask != 0 { return false }
        bits[word] |= mask
        return true
    }
}
