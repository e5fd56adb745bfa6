import Foundation
import QueueSim
import Synchronization

/// The sweep's progress on standard error: runs and points done, time spent and left (from
/// the pace so far). On a terminal one line refreshed every half second; otherwise a plain
/// line every 10 seconds.
final class SweepProgressLine: Sendable {
    private let runner: SweepRunner
    private let total: Int
    private let seeds: Int
    private let isTerminal = isatty(STDERR_FILENO) != 0
    private let task = Mutex<Task<Void, Never>?>(nil)
    private let began = ContinuousClock.now

    init(runner: SweepRunner, total: Int, seeds: Int) {
        self.runner = runner
        self.total = total
        self.seeds = seeds
    }

    func start() {
        let interval: Duration = isTerminal ? .milliseconds(500) : .seconds(10)
        let running = Task { [self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                if Task.isCancelled { break }
                write(text(done: runner.finishedCount, elapsed: ContinuousClock.now - began))
            }
        }
        task.withLock { $0 = running }
    }

    func stop() {
        task.withLock { $0?.cancel() }
        if isTerminal { FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8)) }
    }

    /// `sweep: 37/200 runs (7/40 points) · 0:42 · about 3:05 left`.
    func text(done: Int, elapsed: Duration) -> String {
        let seconds = Double(elapsed.components.seconds)
        var line =
            "sweep: \(done)/\(total) runs (\(done / max(1, seeds))/\(total / max(1, seeds)) points) · \(Self.clock(seconds))"
        if done > 0, done < total {
            line += " · about \(Self.clock(seconds / Double(done) * Double(total - done))) left"
        }
        return line
    }

    static func clock(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        return whole >= 3600
            ? String(format: "%d:%02d:%02d", whole / 3600, (whole % 3600) / 60, whole % 60)
            : String(format: "%d:%02d", whole / 60, whole % 60)
    }

    private func write(_ text: String) {
        FileHandle.standardError.write(Data((isTerminal ? "\r\u{1B}[2K" + text : text + "\n").utf8))
    }
}
