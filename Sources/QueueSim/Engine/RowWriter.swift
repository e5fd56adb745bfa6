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

    /// `@unchecked Sendable`: the recorder is touched only by the writer thread from `init`
    /// until `finish` has joined it.
    private struct HandedOver: @unchecked Sendable {
        let recorder: Recorder
    }

    static let batchSize = 1_024
    private let channel: BatchChannel<FinishedVisitor>
    private let failure = FirstFailure()
    private let worker: WorkerThread
    private var batch: RowBatch
    private var finished = false

    /// - Parameters:
    ///   - capacity: batches that may wait for the writer (more producers want more).
    ///   - progress: told the enqueue time of every row, for the live line's enqueue p95.
    init(
        recorder: Recorder, run: PreparedRun, tokenJudge: TokenJudge, capacity: Int = 8,
        progress: RunProgress? = nil
    ) {
        let channel = BatchChannel<FinishedVisitor>(capacity: capacity)
        self.channel = channel
        let failure = self.failure
        batch = RowBatch(channel: channel, failure: failure)
        let handedOver = HandedOver(recorder: recorder)
        // Copies of their own, so the writer never touches the strings the loop's visitors share.
        let eventIds = (0..<run.scenario.groups.count).map {
            String(decoding: Array(run.waitingRoomId(ofGroup: $0).utf8), as: UTF8.self)
        }
        worker = WorkerThread(name: "queuesim-rows") {
            var enqueueMilliseconds: [Int64] = []
            while let batch = channel.receive() {
                for item in batch {
                    var record = VisitorRecord(
                        index: item.index, arrival: item.arrival, groupIndex: item.groupIndex, result: item.result,
                        run: run, eventId: eventIds[item.groupIndex], tokenJudge: tokenJudge)
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
                    do {
                        try handedOver.recorder.record(record)
                    } catch {
                        failure.set(error)
                        channel.cancel()
                        return
                    }
                    if progress != nil, let milliseconds = record.enqueueMilliseconds {
                        enqueueMilliseconds.append(milliseconds)
                    }
                }
                // Rows reach the disk a batch at a time (live loop drivers send one at least every
                // 100 ms): a killed run loses at most about a second of them.
                do {
                    try handedOver.recorder.flushRows()
                } catch {
                    failure.set(error)
                    channel.cancel()
                    return
                }
                if let progress, !enqueueMilliseconds.isEmpty {
                    progress.recordEnqueueTimes(enqueueMilliseconds)
                    enqueueMilliseconds.removeAll(keepingCapacity: true)
                }
            }
        }
    }

    /// A batch of another producer's own (one per event loop of a live run): several threads
    /// may feed the writer at once, each through its own batch, with one lock per batch.
    func makeBatch() -> RowBatch {
        RowBatch(channel: channel, failure: failure)
    }

    func record(_ finished: FinishedVisitor) throws {
        try batch.append(finished)
    }

    /// Writes what is left, waits for the writer and rethrows the recorder's first error.
    /// After it the recorder belongs to the caller again.
    func finish() throws {
        guard !finished else { return }
        finished = true
        try? batch.flush()
        channel.close()
        worker.join()
        if let error = failure.value { throw error }
    }

    /// Stops the writer without writing what is left (the run failed anyway).
    func abandon() {
        guard !finished else { return }
        finished = true
        channel.cancel()
        worker.join()
    }
}
