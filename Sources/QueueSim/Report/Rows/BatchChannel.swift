import DequeModule
import Foundation

/// A bounded first-in, first-out hand-off of batches from producer threads to one consumer
/// thread: the engines' drivers hand finished visitors to the report writer (`RowWriter`), so
/// a virtual run uses both cores while its loop — and so every decision and every byte of the
/// reports — stays sequential, and a live run's loops never write a file.
///
/// Batches, not elements, cross the lock (a few thousand visitors at a time), and at most
/// `capacity` batches wait at once, so memory stays bounded when one side is faster.
///
/// `NSCondition` rather than Synchronization's `Mutex`: both threads block (the writer until a
/// batch comes, the loop while `capacity` batches wait), and `Mutex` has no condition to wait on.
/// `@unchecked Sendable`: every stored property is read and written only under `condition`.
final class BatchChannel<Element: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private var waiting = Deque<[Element]>()
    private var closed = false
    private var cancelled = false
    private let capacity: Int

    init(capacity: Int) {
        precondition(capacity > 0, "a channel holds at least one batch")
        self.capacity = capacity
    }

    /// Hands a batch over, waiting while `capacity` batches are waiting already. False when
    /// the consumer has cancelled (the batch is dropped).
    func send(_ batch: [Element]) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while waiting.count >= capacity && !cancelled { condition.wait() }
        guard !cancelled else { return false }
        waiting.append(batch)
        condition.broadcast()
        return true
    }

    /// The next batch, waiting for one; nil once the producer has closed the channel and every
    /// batch was taken, or once the channel was cancelled.
    func receive() -> [Element]? {
        condition.lock()
        defer { condition.unlock() }
        while waiting.isEmpty && !closed && !cancelled { condition.wait() }
        guard !cancelled, let batch = waiting.popFirst() else { return nil }
        condition.broadcast()
        return batch
    }

    /// The producer is done: the consumer gets what is waiting, then nil.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    /// Either side gives up: waiting batches are dropped and both sides stop waiting.
    func cancel() {
        condition.lock()
        cancelled = true
        waiting = []
        condition.broadcast()
        condition.unlock()
    }
}
