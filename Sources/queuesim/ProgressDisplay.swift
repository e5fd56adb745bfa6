import Foundation
import QueueClientCore
import QueueSim
import Synchronization

/// The live progress of a run on standard error: on a terminal, one line refreshed four times
/// a second; otherwise (CI logs) a plain line every 10 seconds. Either fits the terminal's
/// width (`ProgressLine`), so a refresh never leaves a trail of wrapped rows.
final class ProgressDisplay: Sendable {
    private let status: RunProgress
    private let clock: ClockKind
    /// The planned span of arrivals: the virtual clock shows how far through it the run is.
    private let span: Duration
    private let isTerminal: Bool
    private let task = Mutex<Task<Void, Never>?>(nil)
    private let wallStart = ContinuousClock.now

    init(status: RunProgress, clock: ClockKind, span: Duration) {
        self.status = status
        self.clock = clock
        self.span = span
        isTerminal = isatty(STDERR_FILENO) != 0
    }

    func start() {
        let interval: Duration = isTerminal ? .milliseconds(250) : .seconds(10)
        let running = Task { [self] in
            var rate = RequestRateWindow()
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                if Task.isCancelled { break }
                let wall = ContinuousClock.now - wallStart
                let snapshot = status.snapshot(at: RunInstant(sinceOrigin: clock == .wall ? wall : .zero))
                let line: ProgressLine
                switch clock {
                case .wall:
                    line = ProgressLine(
                        snapshot,
                        clock: .wall(elapsed: wall, requestsPerSecond: rate.rate(at: wall, requests: snapshot.requests))
                    )
                case .virtual:
                    line = ProgressLine(
                        snapshot, clock: .virtual(simulated: snapshot.now.sinceOrigin, span: span, wall: wall))
                }
                let width = TerminalWidth.columns(
                    of: STDERR_FILENO, environment: ProcessInfo.processInfo.environment)
                write(line.text(width: width))
            }
        }
        task.withLock { $0 = running }
    }

    func stop() {
        task.withLock { $0?.cancel() }
        if isTerminal { FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8)) }
    }

    private func write(_ text: String) {
        let framed = isTerminal ? "\r\u{1B}[2K" + text : text + "\n"
        FileHandle.standardError.write(Data(framed.utf8))
    }
}
