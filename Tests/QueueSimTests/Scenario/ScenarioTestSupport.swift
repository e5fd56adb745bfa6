import Foundation

@testable import QueueSim

/// Loading scenarios from text in tests: the file is named `test.yaml` in the fixtures folder,
/// so CSV feeders resolve against `Fixtures/scenarios`.
enum ScenarioTestSupport {
    /// `Tests/QueueSimTests`: this file lives in its `Scenario/` subfolder.
    static let testsFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    static let fixtures = testsFolder.appendingPathComponent("Fixtures/scenarios").path
    static let repositoryRoot = testsFolder.deletingLastPathComponent().deletingLastPathComponent().path
    static let path = fixtures + "/test.yaml"

    static func load(_ yaml: String, environment: [String: String] = [:]) throws(ScenarioLoadError) -> Scenario {
        try ScenarioLoader.load(yaml: yaml, path: path, environment: environment)
    }

    /// `LINE:COLUMN: message` for every problem (the file name stripped).
    static func problems(_ yaml: String, environment: [String: String] = [:]) -> [String] {
        do {
            _ = try load(yaml, environment: environment)
            return []
        } catch {
            return error.diagnostics.map { diagnostic in
                guard let line = diagnostic.line, let column = diagnostic.column else { return diagnostic.message }
                return "\(line):\(column): \(diagnostic.message)"
            }
        }
    }

    /// The smallest valid scenario; tests append or replace lines.
    static let minimal = """
        version: 1
        target:
          customerId: acme
          waitingRoomId: launch
        arrivals:
          phases:
            - { duration: 10s, rate: 5 }

        """
}
