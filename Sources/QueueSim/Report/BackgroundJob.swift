import Foundation
import Synchronization

/// Work that runs on a thread of its own while the caller does other work, and is joined for its
/// result. The reports are written at the end of a run on a machine with cores to spare: a
/// run of 2,000 groups writes a 22.5 MB `metrics.prom` while `report.html` and `run.json`'s
/// figures are made (issue 51). A thread rather than a task: the report writers are
/// synchronous and CPU-bound, and must not hold one of the cooperative pool's threads.
///
/// Every job must be joined before its outputs are used or its folder given up: `join` waits,
/// so no file is written after the caller has returned.
final class BackgroundJob<Value: Sendable>: Sendable {
    private let outcome = Mutex<Result<Value, any Error>?>(nil)
    private let finished = DispatchSemaphore(value: 0)

    /// Starts `work` at once on a new thread.
    init(_ work: @escaping @Sendable () throws -> Value) {
        let thread = Thread { [self] in
            let result = Result { try work() }
            outcome.withLock { $0 = result }
            finished.signal()
        }
        thread.start()
    }

    /// Waits for the work to end; its value, or the error it threw. Call once.
    func join() throws -> Value {
        finished.wait()
        // Signalled only after the outcome is set.
        return try outcome.withLock { $0! }.get()
    }
}

/// A value made on a thread of its own from the start, waited for at its first use: a prepared
/// run's 2,000 group templates are made while the run's description and pending file are
/// written (issue 51).
final class BackgroundValue<Value: Sendable>: Sendable {
    private let job: BackgroundJob<Value>
    private let made = Mutex<Value?>(nil)

    init(_ make: @escaping @Sendable () -> Value) {
        job = BackgroundJob(make)
    }

    /// The value, once made (the first reader waits for it).
    var value: Value {
        made.withLock { made in
            if let made { return made }
            // `make` cannot throw, so neither can its job.
            guard let value = try? job.join() else { preconditionFailure("a value's job threw") }
            made = value
            return value
        }
    }
}
