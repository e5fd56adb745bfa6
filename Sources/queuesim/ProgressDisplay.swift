import Foundation
import QueueClientCore
import QueueSim
import Synchronization

/// The live progress of a run on standard error: on a terminal, one line refreshed four times
/// a second; otherwise (CI logs) a plain line every 10 seconds.
final class ProgressDisplay: Sendable {
    private let status: RunProgress
    private let clock: ClockKind
    private let isTerminal: Bool
    private let task = Mutex<Task<Void, Never>?>(nil)
    private let wallStart = ContinuousClock.now

    init(status: RunProgress, clock: ClockKind) {
        self.status = status
        self.clock = clock
        isTerminal = isatty(STDERR_FILENO) != 0
    }

    func start() {
        let interval: Duration = isTerminal ? .milliseconds(250) : .seconds(10)
        let running = Task { [self] in
            var previous: (wall: Duration, requests: Int) = (.zero, 0)
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                if Task.isCancelled { break }
                let wall = ContinuousClock.now - wallStart
                let snapshot = status.snapshot(at: RunInstant(sinceOrigin: clock == .wall ? wall : .zero))
                let seconds = max((wall - previous.wall).secondsDouble, 0.001)
                let perSecond = Double(snapshot.requests - previous.requests) / seconds
                previous = (wall, snapshot.requests)
                write(line(snapshot, wall: wall, requestsPerSecond: perSecond))
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

    func line(_ snapshot: RunProgress.Snapshot, wall: Duration, requestsPerSecond: Double) -> String {
        var parts: [String] = []
        if clock == .virtual {
            let simulated = snapshot.now.sinceOrigin.secondsDouble
            let speedUp = wall.secondsDouble > 0 ? simulated / wall.secondsDouble : 0
            parts.append("sim \(Self.clockText(snapshot.now.sinceOrigin)) (\(Int(speedUp))x)")
        } else {
            parts.append(Self.clockText(wall))
        }
        parts.append("arrived \(snapshot.arrived)/\(snapshot.planned)")
        parts.append("in queue \(snapshot.inQueue)")
        parts.append("passed \(snapshot.passed)")
        parts.append("errors \(snapshot.errors)")
        parts.append("req/s \(Int(requestsPerSecond.rounded()))")
        if let p95 = snapshot.enqueueP95Milliseconds { parts.append("enqueue p95 \(p95)ms") }
        if snapshot.generatorSaturated {
            parts.append(
                "GENERATOR SATURATED (loop lag \(snapshot.loopLag.wholeMilliseconds)ms: timings include its delay)")
        }
        return parts.joined(separator: "  ")
    }

    static func clockText(_ duration: Duration) -> String {
        let total = Int(duration.components.seconds)
        let (hours, minutes, seconds) = (total / 3600, (total % 3600) / 60, total % 60)
        return hours > 0
            ? String(format: "%d:%02d:%02d", hours, minutes, seconds) : String(format: "%02d:%02d", minutes, seconds)
    }
}
