import QueueClientCore

/// Finished visitors on their way to a `RowWriter`, collected by one producer and handed over
/// a batch at a time.
struct RowBatch: Sendable, FinishedVisitorSink {
    private let channel: BatchChannel<FinishedVisitor>
    private let failure: RowWriter.FirstFailure
    private var items: [FinishedVisitor] = []

    init(channel: BatchChannel<FinishedVisitor>, failure: RowWriter.FirstFailure) {
        self.channel = channel
        self.failure = failure
        items.reserveCapacity(RowWriter.batchSize)
    }

    var isEmpty: Bool { items.isEmpty }

    mutating func accept(_ finished: FinishedVisitor) throws {
        items.append(finished)
        if items.count == RowWriter.batchSize { try flush() }
    }

    /// Hands what is collected to the writer (waiting while the channel is full).
    mutating func flush() throws {
        guard !items.isEmpty else { return }
        let full = items
        items = []
        items.reserveCapacity(RowWriter.batchSize)
        guard channel.send(full) else { throw failure.value ?? CancellationError() }
    }
}
