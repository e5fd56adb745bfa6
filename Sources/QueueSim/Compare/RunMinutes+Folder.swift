import QueueClientCore

extension RunMinutes {
    /// From a report folder's `visitors.csv`, streamed a chunk at a time: a row at a time is
    /// decoded and kept as the few instants the series need. Call it after `ComparedRun` has
    /// checked the folder; a row that is not queuesim's is refused all the same.
    package init(folder: String) throws(RunFolderCheck.Problem) {
        let path = Recorder.path(folder, Recorder.visitorsFile)
        var reader = RowReader(path: path)
        try RunFolderCheck.stream(path) { bytes throws(RunFolderCheck.Problem) in
            for byte in bytes { try reader.take(byte) }
        }
        try reader.finish()
        self.init(visitors: reader.visitors, end: nil)
    }

    /// Splits bytes into rows at newlines outside quotes and decodes each after the header.
    private struct RowReader {
        var path: String
        var row: [UInt8] = []
        var quoted = false
        var line = 0
        var visitors: [Visitor] = []

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
            visitors.append(Visitor(record))
        }
    }
}
