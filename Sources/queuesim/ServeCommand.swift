import ArgumentParser

/// Placeholder until the embedded room's HTTP front lands: says so plainly and exits 2.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the embedded waiting room (not available yet in this build)."
    )

    @Argument(parsing: .captureForPassthrough, help: .hidden)
    var ignored: [String] = []

    func run() throws {
        StandardError.print("queuesim serve is not available yet in this build")
        throw ExitCode(2)
    }
}
