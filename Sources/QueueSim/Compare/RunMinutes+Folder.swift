import Foundation
import QueueClientCore

extension RunMinutes {
    /// A folder's minutes: its `minutes.csv` when the run wrote one, else counted from its
    /// `visitors.csv` (a folder from before minutes.csv, or a merged one). `usedFile` says which.
    package static func read(folder: String) throws(RunFolderCheck.Problem) -> (minutes: RunMinutes, usedFile: String) {
        let path = Recorder.path(folder, file)
        guard FileManager.default.fileExists(atPath: path) else {
            return (try RunMinutes(folder: folder), Recorder.visitorsFile)
        }
        let stats: RealStats
        do {
            stats = try RealStats.read(path: path, file: path)
        } catch {
            throw RunFolderCheck.Problem(description: "\(error)")
        }
        guard !stats.timesAreInstants, stats.firstTime == 0, Set(stats.series.keys) == Set(seriesNames) else {
            throw RunFolderCheck.Problem(
                description: "\(path): not the minutes.csv queuesim writes (a header `minute,"
                    + seriesNames.joined(separator: ",") + "`, a row a minute from 0)")
        }
        return (RunMinutes(count: stats.count, series: stats.series), file)
    }

    /// From a report folder's `visitors.csv`, streamed a chunk at a time: a row at a time is
    /// decoded and counted. Call it after `ComparedRun` has checked the folder; a row that is
    /// not queuesim's is refused all the same. `end` nil ends at the last visitor's end.
    package init(folder: String, end: Duration? = nil) throws(RunFolderCheck.Problem) {
        let path = Recorder.path(folder, Recorder.visitorsFile)
        var reader = RowReader(path: path)
        try RunFolderCheck.stream(path) { bytes throws(RunFolderCheck.Problem) in
            for byte in bytes { try reader.take(byte) }
        }
        try reader.finish()
        self = reader.tally.minutes(end: end)
    }

    /// `minutes.csv`: a header `minute,<series>…`, a row per minute from 0, counts as whole
    /// numbers, waits in minutes written exactly (the shortest text that reads back as the same
    /// number), an empty cell for a wait nobody had.
    package var csv: String {
        var lines = ["minute," + Self.seriesNames.joined(separator: ",")]
        lines.reserveCapacity(count + 1)
        for minute in 0..<count {
            let cells = Self.seriesNames.map { name -> String in
                guard let value = series[name]?[minute] ?? nil else { return "" }
                return Self.waitSeries.contains(name) ? Self.exact(value) : String(Int64(value))
            }
            lines.append("\(minute)," + cells.joined(separator: ","))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The shortest decimal text that reads back as `value`, without an exponent (the
    /// statistics reader takes plain decimals only).
    static func exact(_ value: Double) -> String {
        let shortest = "\(value)"
        guard shortest.contains("e") else { return shortest.hasSuffix(".0") ? String(shortest.dropLast(2)) : shortest }
        var digits = 1
        while digits < 40 {
            let text = String(format: "%.\(digits)f", value)
            if Double(text) == value { return text }
            digits += 1
        }
        return String(format: "%.40f", value)
    }

    /// Splits bytes into rows at newlines outside quotes and decodes each after the header.
    private struct RowReader {
        var path: String
        var row: [UInt8] = []
        var quoted = false
        var line = 0
        var tally = RunMinutesTally()

        init(path: String) { self.path = path }

        mutating func take(_ byte: UInt8) throws(RunFolderCheck.Problem) {
            if byte == UInt8(ascii: "\"") { quoted.toggle() }
            guard byte == UInt8(ascii: "\n"), !quoted else {
                row.append(byte)
                return
            }
            try endRow()
        }

        mutating func finish() throws(RunFolderCheck.Problem) {
            if !row.isEmpty { try endRow() }
        }

        private mutating func endRow() throws(RunFolderCheck.Problem) {
            line += 1
            defer { row.removeAll(keepingCapacity: true) }
            guard line > 1 else { return }
            guard let record = VisitorRowFormat.decode(row[...]) else {
                throw RunFolderCheck.Problem(description: "\(path):\(line): not a visitor row queuesim writes")
            }
            tally.add(record)
        }
    }
}
