import Foundation
import QueueClientCore

/// Finished visitors, turned into report rows (the token check, CSV encoding, the spool file,
/// statistics) on a thread of their own, so a virtual run uses both cores while the event
/// loop — and so every decision — stays on one. Rows reach the recorder in the order the loop
/// finished them, through a FIFO channel: the recorder gets exactly what it would have got
/// from the loop itself, and the reports are the same bytes.
///
/// Measured (`docs/benchmarks.md`): about 13 % less wall time. A second thread that prepared
/// arrivals ahead of the loop did not pay: every visitor's configuration shares its group's
/// box, and two cores retaining and releasing one object slow each other down.
final class RowWriter {
    /// What a row needs from a finished visitor. No `VisitorConfiguration`: it would share the
    /// group's box with the loop's thread (see above); the event id comes from `eventIds`.
    struct Finished: Sendable {
        var index: Int
        var arrival: Instant
        var groupIndex: Int
        var result: VisitorResult
    }

    /// The first error the recorder threw, read by the loop's thread.
    private final class FirstFailure: @unchecked Sendable {
        private let lock = NSLock()
        private var error: (any Error)?
        func set(_ error: any Error) { lock.withLock { if self.error == nil { self.error = error } } }
        var value: (any Error)? { lock.withLock { error } }
    }

    /// `@unchecked Sendable`: the recorder is touched only by the writer thread from `init`
    /// until `finish` has joined it.
    private struct HandedOver: @unchecked Sendable {
        let recorder: Recorder
    }

    static let batchSize = 1_024
    private let channel = BatchChannel<Finished>(capacity: 8)
    private let failure = FirstFailure()
    private let worker: WorkerThread
    private var batch: [Finished] = []
    private var finished = false

    init(recorder: Recorder, run: PreparedRun, tokenJudge: TokenJudge) {
        let channel = self.channel
        let failure = self.failure
        let handedOver = HandedOver(recorder: recorder)
        // Copies of their own, so the writer never touches the strings the loop's visitors share.
        let eventIds = (0..<run.scenario.groups.count).map {
            String(decoding: Array(run.waitingRoomId(ofGroup: $0).utf8), as: UTF8.self)
        }
        worker = WorkerThread(name: "queuesim-rows") {
            while let batch = channel.receive() {
                for item in batch {
                    let record = VisitorRecord(
                        index: item.index, arrival: item.arrival, groupIndex: item.groupIndex, result: item.result,
                        run: run, eventId: eventIds[item.groupIndex], tokenJudge: tokenJudge)
                    do {
                        try handedOver.recorder.record(record)
                    } catch {
                        failure.set(error)
                        channel.cancel()
                        return
                    }
                }
            }
        }
        batch.reserveCapacity(Self.batchSize)
    }

    func record(_ finished: Finished) throws {
        batch.append(finished)
        if batch.count == Self.batchSize { try flush() }
    }

    /// Writes what is left, waits for the writer and rethrows the recorder's first error.
    /// After it the recorder belongs to the caller again.
    func finish() throws {
        guard !finished else { return }
        finished = true
        if !batch.isEmpty { _ = channel.send(batch) }
        batch = []
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

    private func flush() throws {
        let full = batch
        batch = []
        batch.reserveCapacity(Self.batchSize)
        guard channel.send(full) else { throw failure.value ?? CancellationError() }
    }
}
