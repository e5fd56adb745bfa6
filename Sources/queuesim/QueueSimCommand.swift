import ArgumentParser
import Foundation
import QueueSim

@main
struct QueueSimCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "queuesim",
        abstract: "Rehearse a Queue-it waiting-room launch with virtual app visitors.",
        discussion: """
            A YAML scenario describes the waiting room, how visitors arrive and what must
            hold (thresholds). See docs/scenarios.md for every key.

            Examples:
              queuesim validate scenarios/launch.yaml
              queuesim validate scenarios/*.yaml
              queuesim validate --quiet my-launch.yaml
              queuesim run scenarios/launch.yaml
              queuesim sweep scenarios/what-outflow.yaml
              queuesim recover reports/launch

            Exit codes:
              0    valid, or every threshold held
              1    a threshold failed
              2    the scenario or the command line is invalid, or the report directory
                   is in use
              3    the run could not start or could not write its reports
              4    a guardrail (a threshold with abortOnFail) stopped the run
              5    merge --allow-partial merged without some shards (never a pass)
              130  interrupted (SIGINT)
              143  stopped (SIGTERM)
            """,
        version: QueueSimVersion.current,
        subcommands: [
            ValidateCommand.self, RunCommand.self, ServeCommand.self, RecoverCommand.self, ReportCommand.self,
            MergeCommand.self, SweepCommand.self, CompareCommand.self, ImportCommand.self, CalibrateCommand.self,
        ]
    )

    /// Like ArgumentParser's own `main()`, except that command-line mistakes exit with 2 (the
    /// contract's "invalid" code) instead of its default 64.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            let code = exitCode(for: error)
            let message = fullMessage(for: error)
            if code == .success {
                if !message.isEmpty { print(message) }
                Foundation.exit(0)
            }
            if !message.isEmpty { StandardError.print(message) }
            Foundation.exit(code == .validationFailure ? 2 : code.rawValue)
        }
    }
}
