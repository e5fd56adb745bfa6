import ArgumentParser
import QueueSim

struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check scenario files and show what each will do.",
        usage: "queuesim validate [<options>] <files> ...",
        discussion: """
            Reads each file, reports every problem as FILE:LINE:COLUMN: message on
            standard error, and for a valid file prints a short description: the enqueue
            URL each group calls, planned visitors, arrival rates, the room's mode and
            outflow, faults and thresholds. For an embedded queue it adds the fluid
            estimate, at once: wait p50/p95, the share within client.maxWait, the peak
            queue, and for each wait threshold the outflow it needs (`outflow needed for
            wait.p95 < 20m: about 9,670/min`), all marked "about" (docs/scenarios.md,
            "Will the outflow keep up?"). With patience (the same in every group) or
            no-shows (noShow, pooled over the groups by weight) it is the model with
            abandonment under the scenario's turn rule, said on the line (`with patience
            …, no-shows 5%, turns wasted`): the share passing, the waits of those who
            pass, the peak queue and the outflow each threshold needs; where it cannot
            apply, the line says what it leaves out. Then runs `run`'s own preflight
            with the same options: the whole plan is walked, feeders must have rows for
            every visitor planned to read them, and the memory estimate must fit the
            budget (--max-memory). Exit 0 means `queuesim run` with the same options
            will start; 2 otherwise.

            Examples:
              queuesim validate scenarios/launch.yaml
              queuesim validate scenarios/*.yaml
              queuesim validate scenarios/launch.yaml --set waitingRoom.outflow=1200/min
            """
    )

    @Argument(help: "Scenario files (YAML).")
    var files: [String] = []

    @Flag(name: .shortAndLong, help: "Print only problems, not the description of valid files.")
    var quiet = false

    @OptionGroup var plan: PlanOptions

    func validate() throws {
        if files.isEmpty {
            throw ValidationError("give at least one scenario file, e.g. queuesim validate scenarios/launch.yaml")
        }
    }

    func run() throws {
        let options = try plan.runOptions()
        var invalid = 0
        for (index, file) in files.enumerated() {
            do {
                let scenario = try ScenarioLoader.load(path: file, overrides: plan.scenarioOverrides)
                if let note = plan.endpointNote(for: scenario, command: "validate") { StandardError.print(note) }
                let prepared: PreparedRun
                do {
                    prepared = try PreparedRun(scenario: scenario, options: options)
                } catch {
                    StandardError.print(CommandSupport.preflightMessage(scenario: scenario, error))
                    invalid += 1
                    continue
                }
                if let problems = SweepCommand.sweepBlockProblems(
                    file: file, scenario: scenario, overrides: plan.scenarioOverrides)
                {
                    StandardError.print(problems)
                    invalid += 1
                    continue
                }
                for warning in ScenarioWarnings.lines(file: file, prepared: prepared) {
                    StandardError.print(warning)
                }
                if !quiet {
                    if index > 0 { print("") }
                    print(ScenarioSummary(scenario, prepared: prepared).text)
                }
            } catch {
                StandardError.print(error.description)
                invalid += 1
            }
        }
        if invalid > 0 {
            if files.count > 1 { StandardError.print("\(invalid) of \(files.count) scenario files are invalid") }
            throw ExitCode(2)
        }
    }
}
