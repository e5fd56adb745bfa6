import Dispatch
import Foundation

/// Turns SIGINT/SIGTERM into a callback instead of process death, so a run can stop its
/// visitors and still write every report (exit 130), and `serve` can stop gracefully. A second signal while the reports are
/// being written is ignored for the same reason: nothing a visitor did may be lost.
///
/// `@unchecked Sendable`: the sources are set once in `init` and only cancelled afterwards,
/// which Dispatch allows from any thread.
package final class SignalTrap: @unchecked Sendable {
    private let sources: [any DispatchSourceSignal]
    private let signals: [Int32]

    package convenience init(signals: [Int32], handler: @escaping @Sendable () -> Void) {
        self.init(signals: signals, numberedHandler: { _ in handler() })
    }

    /// The same, telling the handler which signal came (SIGTERM exits 143 where SIGINT exits 130).
    package init(signals: [Int32], numberedHandler handler: @escaping @Sendable (Int32) -> Void) {
        self.signals = signals
        let registered = DispatchSemaphore(value: 0)
        sources = signals.map { signalNumber in
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { handler(signalNumber) }
            source.setRegistrationHandler { registered.signal() }
            source.resume()
            return source
        }
        // Dispatch registers a source with the kernel later, on its own thread; a signal that
        // came between `SIG_IGN` and that registration was lost (a `serve` stopped by SIGINT
        // right after its banner never stopped). Return only once every source listens —
        // bounded, so a Dispatch that never calls back cannot hang the program.
        for _ in signals { _ = registered.wait(timeout: .now() + .seconds(2)) }
    }

    package func restore() {
        for source in sources { source.cancel() }
        for signalNumber in signals { signal(signalNumber, SIG_DFL) }
    }
}
