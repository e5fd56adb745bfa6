import Foundation
import Synchronization
import Testing

@testable import QueueSim

/// The hand-off between the event loop and the row writer: FIFO, bounded, and it never leaves
/// either side waiting forever.
@Suite struct BatchChannelTests {
    @Test func batchesArriveInOrderThenNil() {
        let channel = BatchChannel<Int>(capacity: 2)
        let producer = WorkerThread(name: "test-producer") {
            for start in stride(from: 0, to: 1_000, by: 10) {
                _ = channel.send(Array(start..<(start + 10)))
            }
            channel.close()
        }
        var received: [Int] = []
        while let batch = channel.receive() { received += batch }
        producer.join()
        #expect(received == Array(0..<1_000))
    }

    @Test func cancelReleasesABlockedProducer() {
        let channel = BatchChannel<Int>(capacity: 1)
        let results = SentResults()
        let producer = WorkerThread(name: "test-blocked") {
            for value in 0..<3 {
                results.append(channel.send([value]))
            }
        }
        #expect(channel.receive() == [0])
        channel.cancel()
        producer.join()
        // The first two sends were taken or waiting; after the cancel, nothing is accepted.
        #expect(results.last == false)
        #expect(channel.receive() == nil)
    }
}

/// What each send answered, from the producer thread.
private final class SentResults: Sendable {
    private let answers = Mutex<[Bool]>([])
    func append(_ accepted: Bool) { answers.withLock { $0.append(accepted) } }
    var last: Bool? { answers.withLock { $0.last } }
}
