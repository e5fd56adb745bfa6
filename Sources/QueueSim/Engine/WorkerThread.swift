import Foundation

/// A thread that runs one closure and can be waited for: the other end of a `BatchChannel`.
final class WorkerThread: Sendable {
    private let done = DispatchSemaphore(value: 0)

    init(name: String, _ body: @escaping @Sendable () -> Void) {
        let done = self.done
        let thread = Thread {
            body()
            done.signal()
        }
        thread.name = name
        thread.start()
    }

    /// Waits until the closure has returned (call once).
    func join() {
        done.wait()
    }
}
