import ArgumentParser
import Foundation
import QueueSim

enum StandardError {
    static func print(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}

/// Reads a scenario for `run` or `serve`: every problem goes to standard error as
/// `FILE:LINE:COLUMN: message` and the command exits 2 (nothing run, no reports).
func loadScenarioOrExit(_ path: String, overrides: [ScenarioOverride] = []) throws -> Scenario {
    do {
        return try ScenarioLoader.load(path: path, overrides: overrides)
    } catch {
        StandardError.print(error.description)
        throw ExitCode(RunExitStatus.invalidInput.rawValue)
    }
}
