import Foundation
import QueueClientCore
import Synchronization

/// Finished visitors, turned into report rows (the token check, CSV encoding, the spool file,
/// statistics) on a thread of their own, for both clocks: a virtual run uses both cores while
/// its engine — and so every decision — stays on one; a live run's loops hand their rows over
/// a batch each (`makeBatch`). Rows reach the recorder in the order each producer finished
/// them, through a FIFO channel: a virtual run's recorder gets exactly what it would have got
/// from the loop itself, and the reports are the same bytes.
///
/// Measured (`docs/benchmarks.md`): about 13 % less wall time. A second thread that prepared
/// arrivals ahead of the loop did not pay: every visitor's configuration shares its group's
/// box, and two cores retaining and releasing one object slow each other down.
final class RowWriter {
    /// The first error the recorder threw, read by the producers' threads.
    final class FirstFailure: Sendable {
        private let error = Mutex<(any Error)?>(nil)
        func set(_ error: any Error) { self.error.withLock { if $0 == nil { $0 = error } } }
        var value: (any Error)? { error.withLock { $0 } }
    }

    static let batchSize = 1_024
    private let channel: BatchChannel<FinishedVisitor>
    private let failure = FirstFailure()
    /// nil when rows are recorded on the producer's thread (`onTheCallersThread`).
    private let worker: WorkerThread?
    private let inline: RowProcessor?
    private var inlineCount = 0
    private var batch: RowBatch
    private var finished = false

    /// - Parameters:
    ///   - capacity: batches that may wait for the writer (more producers want more).
    ///   - progress: told the enqueue time of every row, for the live line's enqueue p95.
    ///   - onTheCallersThread: record each row in `record` itself, with no thread of its own:
    ///     for a sweep that already runs a point on every core, where a writer thread per point
    ///     would only take turns with the engines and add the hand-over (docs/benchmarks.md).
    init(
        recorder: Recorder, rows: RowContext, tokenJudge: TokenJudge, capacity: Int = 8,
        progress: RunProgress? = nil, onTheCallersThread: Bool = false
    ) {
        let channel = BatchChannel<FinishedVisitor>(capacity: capacity)
        self.channel = channel
        let failure = self.failure
        batch = RowBatch(channel: channel, failure: failure)
        let processor = RowProcessor(recorder: recorder, rows: rows, tokenJudge: tokenJudge, progress: progress)
        if onTheCallersThread {
            inline = processor
            worker = nil
            return
        }
        inline = nil
        worker = WorkerThread(name: "queuesim-rows") {
            while let batch = channel.receive() {
                do {
                    for item in batch { try processor.record(item) }
                    try processor.endBatch()
                } catch {
                    failure.set(error)
                    channel.cancel()
                    return
                }
            }
        }
    }

    /// A batch of another producer's own (one per event loop of a live run): several threads
    /// may feed the writer at once, each through its own batch, with one lock per batch.
    func makeBatch() -> RowBatch {
        RowBatch(channel: channel, failure: failure)
    }

    /// Takes one finished visitor: into the current batch, or recorded at once on the caller's
    /// thread (`onTheCallersThread`).
    func record(_ finished: FinishedVisitor) throws {
        guard let inline else { return try batch.accept(finished) }
        try inline.record(finished)
        inlineCount += 1
        if inlineCount == Self.batchSize {
            inlineCount = 0
            try inline.endBatch()
        }
    }

    /// Writes what is left, waits for the writer and rethrows the recorder's first error.
    /// After it the recorder belongs to the caller again.
    func finish() throws {
        guard !finished else { return }
        finished = true
        if let inline { return try inline.endBatch() }
        try? batch.flush()
        channel.close()
        worker?.join()
        if let error = failure.value { throw error }
    }

    /// Stops the writer without writing what is left (the run failed anyway).
    func abandon() {
        guard !finished else { return }
        finished = true
        channel.cancel()
        worker?.join()
    }
}

extension RowWriter: FinishedVisitorSink {
    func accept(_ finished: FinishedVisitor) throws {
        try record(finished)
    }
}

/// A finished visitor made a report row (`VisitorRecord`: the token check, the attempts' times)
/// and handed to the recorder, on whichever thread owns the recorder.
///
/// `@unchecked Sendable`: it is used by one thread at a time, the writer thread from
/// `RowWriter.init` until `finish` has joined it, or the producer's own.
private final class RowProcessor: @unchecked Sendable {
    private let recorder: Recorder
    private let rows: RowContext
    private let tokenJudge: TokenJudge
    private let progress: RunProgress?
    /// Copies of their own, so the writer never touches the strings the loop's visitors share.
    private let eventIds: [String]
    private var enqueueMilliseconds: [Int64] = []

    init(recorder: Recorder, rows: RowContext, tokenJudge: TokenJudge, progress: RunProgress?) {
        self.recorder = recorder
        self.rows = rows
        self.tokenJudge = tokenJudge
        self.progress = progress
        eventIds = rows.eventIds.map { String(decoding: Array($0.utf8), as: UTF8.self) }
    }

    func record(_ item: FinishedVisitor) throws {
        var record = VisitorRecord(
            index: item.index, arrival: item.arrival, groupIndex: item.groupIndex, result: item.result,
            rows: rows, eventId: eventIds[item.groupIndex], tokenJudge: tokenJudge)
        if let firstStart = item.firstStart {
            record.lastAttemptStart = record.start
            record.start = firstStart
        }
        if record.comebacks != nil { record.comebacks = item.comebacks }
        record.earlierStays = item.earlierStays
        if let handshake = item.handshake {
            record.connectTime = handshake.connect
            record.tlsTime = handshake.tls
        }
        if rows.recordsProtocols { record.spokenProtocols = item.spoken.text }
        try recorder.record(record)
        if progress != nil, let milliseconds = record.enqueueMilliseconds {
            enqueueMilliseconds.append(milliseconds)
        }
    }

    /// Rows reach the disk a batch at a time (live loop drivers send one at least every 100 ms):
    /// a killed run loses at most about a second of them.
    func endBatch() throws {
        try recorder.flushRows()
        if let progress, !enqueueMilliseconds.isEmpty {
            progress.recordEnqueueTimes(enqueueMilliseconds)
            enqueueMilliseconds.removeAll(keepingCapacity: true)
        }
    }
}
