import Foundation
import QueueClientCore

@testable import QueueSim

/// A temporary folder holding a scenario and the files it replays (relative paths resolve
/// against it, as they do beside a real scenario).
final class ReplayFolder {
    let path: String

    init(_ files: [String: String] = [:]) throws {
        path =
            FileManager.default.temporaryDirectory.appendingPathComponent("queuesim-replay-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        for (name, text) in files { try write(name, text) }
    }

    func write(_ name: String, _ text: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path + "/" + name))
    }

    var scenarioPath: String { path + "/scenario.yaml" }

    /// A virtual-clock scenario against the embedded room with `arrivals` and `room` lines.
    static func scenario(arrivals: String, room: String = "", seed: Int = 1) -> String {
        """
        version: 1
        name: replay
        seed: \(seed)
        clock: virtual
        target: { customerId: acme, waitingRoomId: launch, endpoint: embedded }
        client: { pollInterval: 1s }
        arrivals: \(arrivals)
        \(room)
        """
    }

    func load(_ yaml: String) throws(ScenarioLoadError) -> Scenario {
        try ScenarioLoader.load(yaml: yaml, path: scenarioPath, environment: [:])
    }

    /// `LINE:COLUMN: message` for every problem of `yaml`, none when it loads.
    func problems(_ yaml: String) -> [String] {
        do {
            _ = try load(yaml)
            return []
        } catch {
            return error.diagnostics.map { diagnostic in
                guard let line = diagnostic.line, let column = diagnostic.column else { return diagnostic.message }
                return "\(line):\(column): \(diagnostic.message)"
            }
        }
    }

    /// Runs `yaml` on the virtual clock and returns visitors.csv's rows.
    func run(_ yaml: String, label: String = #function) throws -> [VisitorRow] {
        let directory = try makeReportDirectory(label)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let prepared = try PreparedRun(
            scenario: try load(yaml), options: RunOptions(outputDirectory: directory, clock: .virtual))
        let runner = VirtualClockRunner(
            run: prepared, progress: RunProgress(planned: prepared.summary.visitorCount), stopSignal: RunStopSignal())
        _ = try runner.execute()
        return try VirtualRun.visitors(directory)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

extension [VisitorRow] {
    /// Arrivals per whole `seconds` window from second 0, as many windows as `count`.
    func arrivalsPer(_ seconds: Int64, count: Int) -> [Int] {
        var windows = [Int](repeating: 0, count: count)
        for row in self {
            let window = Int(row.arrivalMs / (seconds * 1000))
            if window < count { windows[window] += 1 } else { windows.append(-1) }
        }
        return windows
    }
}
