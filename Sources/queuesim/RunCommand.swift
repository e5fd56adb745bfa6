import ArgumentParser

/// Placeholder until the runner lands: says so plainly and exits 2, so scripts cannot mistake
/// it for a run.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a scenario (not available yet in this build)."
    )

    @Argument(parsing: .captureForPassthrough, help: .hidden)
    var ignored: [String] = []

    func run() throws {
        StandardError.print("queuesim run is not available yet in this build")
        throw ExitCode(2)
    }
}
