import Foundation
import Testing

/// What a person sees in a terminal (issue 29, item 7): a live line that fits, help that
/// names the keys the tool accepts, shares written one way.
@Suite("the terminal: live line, help, shares", .serialized)
struct TerminalCommandTests {
    /// Three seconds of wall-clock arrivals, so the live line refreshes a dozen times.
    static let scenario = """
        version: 1
        target: { customerId: acme, waitingRoomId: launch }
        arrivals: { phases: [ { duration: 3s, rate: 20 } ] }
        waitingRoom: { mode: safetynet }
        thresholds:
          - passed >= 99%
        """

    @Test(.timeLimit(.minutes(1)))
    func theLiveLineFitsANarrowTerminalAndLeavesNoTrail() throws {
        let scenario = try TemporaryScenario(Self.scenario)
        let out = RunCommandProcess.reportDirectory()
        let queuesim = try QueueSimProcess.executable()
        // `script` gives the run a terminal (a pseudo-terminal with no size), so COLUMNS decides.
        let result = try QueueSimProcess.run(
            ["-qec", "'\(queuesim)' run '\(scenario.path)' --out '\(out)'", "/dev/null"], limit: .seconds(30),
            program: "/usr/bin/script", environment: ["COLUMNS": "40"])
        #expect(result.status == 0, "\(result.stdout)")
        // Every refresh clears the row and rewrites it: what follows each clear up to the next
        // line end is one refresh (the last clear is followed by the end screen instead).
        let refreshes = result.stdout.components(separatedBy: "\r\u{1B}[2K").dropFirst().map {
            String($0.prefix { !$0.isNewline })
        }.filter { $0.hasPrefix("00:") }
        #expect(refreshes.count >= 4, "\(result.stdout)")
        for line in refreshes {
            #expect(line.count <= 39, "\(line)")
            #expect(line.contains("/60"), "\(line)")
        }
        // requests per second only once a whole second has passed, then over it.
        #expect(refreshes.allSatisfy { !$0.hasPrefix("00:00 ") || !$0.contains("req/s") })
    }

    @Test func helpRunNamesTheClockKeyTheToolAcceptsAndThePage() throws {
        let help = try QueueSimProcess.run(["help", "run"])
        let text = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(text.contains("default: the scenario's top-level `clock:` key"), "\(help.stdout)")
        #expect(text.contains("not a key of `run:`"), "\(help.stdout)")
        #expect(!text.contains("run.clock"), "\(help.stdout)")
        #expect(text.contains("writes report.html"), "\(help.stdout)")
        #expect(text.contains("143 stopped by SIGTERM"), "\(help.stdout)")
        let root = try QueueSimProcess.run(["--help"])
        #expect(root.stdout.contains("143  stopped (SIGTERM)"))
        #expect(root.stdout.contains("5    merge --allow-partial"))
    }

    @Test func sharesReadAsThresholdsDoOnTheEndScreen() throws {
        let scenario = try TemporaryScenario(
            """
            version: 1
            target: { customerId: acme, waitingRoomId: launch }
            arrivals: { phases: [ { burst: 8 } ] }
            waitingRoom:
              mode: safetynet
              faults:
                - { endpoint: enqueue, status: 400, rate: 50% }
            """)
        let result = try QueueSimProcess.run([
            "run", scenario.path, "--clock", "virtual", "--out", RunCommandProcess.reportDirectory(), "--seed", "3",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let shares = result.stdout.split(separator: "\n").filter { $0.hasPrefix("passed ") || $0.hasPrefix("error ") }
        #expect(!shares.isEmpty, "\(result.stdout)")
        // Eighths, written as thresholds are: `37.5%`, `50%`, never ` 37.50%`.
        let eighths = [1: "12.5%", 2: "25%", 3: "37.5%", 4: "50%", 5: "62.5%", 6: "75%", 7: "87.5%", 8: "100%"]
        for line in shares {
            let fields = line.split(separator: " ")
            let count = try #require(Int(fields[1]), "\(line)")
            #expect(String(fields[2]) == eighths[count], "\(line)")
        }
    }
}
