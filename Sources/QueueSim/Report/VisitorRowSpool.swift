/// Rows of `visitors.csv` as they arrive (in finish order), spooled to a temporary file, then
/// copied out in arrival order.
///
/// Memory per visitor is twelve bytes (the row's offset and length in the spool); the rows
/// themselves live on disk. A million visitors cost ~12 MB here plus one write buffer.
final class VisitorRowSpool {
    enum Failure: Error, Equatable {
        case negativeIndex(Int)
        case duplicate(index: Int)
        case unrecorded(count: Int, firstIndex: Int)
        /// A sharded run recorded a visitor of another shard.
        case notThisShard(index: Int)
    }

    private let spool: ReportFile
    private var offsets: [UInt64] = []
    /// 0 marks an index not recorded yet: a real row is never empty (it ends with a newline).
    private var lengths: [UInt32] = []
    private var spoolSize: UInt64 = 0
    private var pending: [UInt8] = []
    private let flushThreshold = 1 << 16

    private(set) var recordedCount = 0
    /// A sharded run records visitors K, K+N, K+2N…: they are stored by their position among
    /// the shard's visitors, so "no gap" means no gap in the shard's own share.
    private let shard: PlanShard

    var spoolPath: String { spool.path }

    init(spoolPath: String, shard: PlanShard = .whole) throws {
        self.shard = shard
        spool = try ReportFile(creating: spoolPath)
        pending.reserveCapacity(flushThreshold + 1024)
    }

    /// The number of rows the file will have: one past the highest recorded (of the shard's own).
    var visitorCount: Int { lengths.count }

    func append(row: [UInt8], index visitorIndex: Int) throws {
        guard visitorIndex >= 0 else { throw Failure.negativeIndex(visitorIndex) }
        guard shard.owns(visitorIndex) else { throw Failure.notThisShard(index: visitorIndex) }
        let index = shard.localPosition(of: visitorIndex)
        if index >= lengths.count {
            let growth = index + 1 - lengths.count
            offsets.append(contentsOf: repeatElement(0, count: growth))
            lengths.append(contentsOf: repeatElement(0, count: growth))
        }
        guard lengths[index] == 0 else { throw Failure.duplicate(index: visitorIndex) }
        offsets[index] = spoolSize
        lengths[index] = UInt32(row.count)
        spoolSize += UInt64(row.count)
        recordedCount += 1
        pending.append(contentsOf: row)
        if pending.count >= flushThreshold { try flush() }
    }

    func flush() throws {
        guard !pending.isEmpty else { return }
        try spool.write(pending)
        pending.removeAll(keepingCapacity: true)
    }

    /// Throws `unrecorded` if an index below the highest recorded one never got a row: that is
    /// a runner bug, and a file with a silent gap would lie about the run.
    func checkComplete() throws {
        guard recordedCount != lengths.count else { return }
        let first = lengths.firstIndex(of: 0) ?? 0
        throw Failure.unrecorded(
            count: lengths.count - recordedCount, firstIndex: first * shard.count + shard.index)
    }

    /// Writes `header` then every row in index order into `destination`.
    func copyOrdered(header: String, into destination: ReportFile) throws {
        try flush()
        try checkComplete()
        try spool.withMappedBytes(length: Int(spoolSize)) { rows in
            var out: [UInt8] = []
            out.reserveCapacity(flushThreshold * 4)
            var copiedSinceRelease = 0
            out.append(contentsOf: header.utf8)
            for index in lengths.indices {
                let start = Int(offsets[index])
                out.append(
                    contentsOf: UnsafeRawBufferPointer(rebasing: rows[start..<start + Int(lengths[index])]))
                if out.count >= flushThreshold * 4 {
                    try destination.write(out)
                    out.removeAll(keepingCapacity: true)
                    copiedSinceRelease += flushThreshold * 4
                }
                // The mapped pages read so far count in the process's resident memory: a
                // million rows are over 100 MB, read when a virtual run peaks. Every 16 MB
                // copied, the mapping lets go of them (they stay in the page cache; a row
                // read again maps its page back).
                if copiedSinceRelease >= 1 << 24, let base = rows.baseAddress {
                    madvise(UnsafeMutableRawPointer(mutating: base), rows.count, MADV_DONTNEED)
                    copiedSinceRelease = 0
                }
            }
            try destination.write(out)
        }
    }

    /// Closes and deletes the spool (after `visitors.csv` is safely renamed into place).
    func discard() {
        spool.close()
        unlink(spool.path)
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
