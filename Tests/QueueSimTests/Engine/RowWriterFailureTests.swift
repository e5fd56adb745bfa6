import Foundation
import QueueClientCore
import Testing

@testable import QueueSim

/// The row writer's failure path, directly: when the recorder refuses a row, the writer thread
/// stops, producers hear of it instead of blocking on a full channel, and `finish` rethrows
/// the recorder's first error (the run then ends with a clear error, not a half-written report).
@Suite("RowWriter: a recorder that fails", .timeLimit(.minutes(1)))
struct RowWriterFailureTests {
    static func finished(_ index: Int) -> FinishedVisitor {
        let marks = VisitorMarks(started: .origin, ended: .origin + .milliseconds(5))
        return FinishedVisitor(
            index: index, arrival: .origin, groupIndex: 0, result: VisitorResult(outcome: .passed, marks: marks))
    }

    static func writer() throws -> (RowWriter, String) {
        let folder = try RunFixture.makeFolder()
        let run = try RunFixture.prepare(
            """
            version: 1
            target: { customerId: acme, waitingRoomId: launch }
            arrivals: { phases: [ { burst: 1 } ] }
            """, folder: folder, options: RunOptions(clock: .virtual))
        let recorder = try Recorder(directory: folder + "/reports", description: run.runDescription)
        let judge = TokenJudge(secretKey: nil, epochUnixSeconds: 0)
        return (RowWriter(recorder: recorder, run: run, tokenJudge: judge, capacity: 1), folder)
    }

    @Test("a duplicate row: finish rethrows the recorder's error, and later producers are refused")
    func duplicateRow() throws {
        let (writer, _) = try Self.writer()
        try writer.record(Self.finished(0))
        try writer.record(Self.finished(0))
        // Enough batches to fill the channel many times over: once the writer has stopped,
        // a producer gets an error instead of waiting forever for room.
        var refused: (any Error)?
        for index in 1...(RowWriter.batchSize * 8) {
            do {
                try writer.record(Self.finished(index))
            } catch {
                refused = error
                break
            }
        }
        #expect(refused as? Recorder.Failure == .duplicateVisitor(index: 0))
        #expect(throws: Recorder.Failure.duplicateVisitor(index: 0)) { try writer.finish() }
        // Finishing twice does not hang or throw again.
        try writer.finish()
    }

    @Test("a second producer's batch is refused with the same error")
    func secondProducer() throws {
        let (writer, _) = try Self.writer()
        var other = writer.makeBatch()
        try other.accept(Self.finished(3))
        try other.flush()
        try writer.record(Self.finished(3))
        #expect(throws: Recorder.Failure.duplicateVisitor(index: 3)) { try writer.finish() }
        try other.accept(Self.finished(4))
        #expect(throws: Recorder.Failure.duplicateVisitor(index: 3)) { try other.flush() }
    }

    @Test("abandon stops the writer without writing what is left")
    func abandon() throws {
        let (writer, _) = try Self.writer()
        try writer.record(Self.finished(0))
        writer.abandon()
        try writer.finish()
    }
}
