import Foundation
import Testing

/// Issue 30: `--set KEY=VALUE` on `run` and `validate`, as users type it: the value changes
/// what runs, a bad one is exit 2 with its place in the argument, and the run records it.
@Suite("queuesim --set", .serialized, .timeLimit(.minutes(2)))
struct SetOptionCommandTests {
    static let yaml = """
        version: 1
        name: set-option
        clock: virtual
        target: { customerId: acme, waitingRoomId: launch }
        arrivals: { phases: [ { burst: 20 } ] }
        visitors:
          - { name: app }
        waitingRoom:
          outflow: 600/min
          secretKey: file-secret
        """

    @Test func validateDescribesTheScenarioWithTheValuesSet() throws {
        let file = try TemporaryScenario(Self.yaml)
        let result = try QueueSimProcess.run([
            "validate", file.path, "--set", "waitingRoom.outflow=1200/min", "--set", "arrivals.phases.0.burst=30",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("outflow 1,200/min (20/s)"), "\(result.stdout)")
        #expect(result.stdout.contains("30 planned"), "\(result.stdout)")
        #expect(
            result.stdout.contains("--set waitingRoom.outflow=1200/min --set arrivals.phases.0.burst=30"),
            "\(result.stdout)")
    }

    @Test func aBadValueIsExitTwoWithItsPlaceInTheArgument() throws {
        let file = try TemporaryScenario(Self.yaml)
        for command in ["validate", "run"] {
            let result = try QueueSimProcess.run([command, file.path, "--set", "waitingRoom.outflow=fast"])
            #expect(result.status == 2)
            #expect(
                result.stderr.contains(
                    "--set waitingRoom.outflow=fast:1:21: `waitingRoom.outflow` must be a rate such as 10 (per second) or 600/min, found `fast`"
                ), "\(result.stderr)")
        }
        let missing = try QueueSimProcess.run(["validate", file.path, "--set", "visitors.ap.flow=tryPass"])
        #expect(missing.status == 2)
        #expect(
            missing.stderr.contains(
                "--set visitors.ap.flow=tryPass:1:10: `visitors` has no item named `ap`; did you mean `app`?"),
            "\(missing.stderr)")
    }

    @Test func anArgumentWithoutEqualsIsACommandLineError() throws {
        let file = try TemporaryScenario(Self.yaml)
        let result = try QueueSimProcess.run(["validate", file.path, "--set", "waitingRoom.outflow"])
        #expect(result.status == 2)
        #expect(
            result.stderr.contains(
                "--set waitingRoom.outflow: expected KEY=VALUE, such as --set waitingRoom.outflow=1200/min"),
            "\(result.stderr)")
    }

    @Test func aWarningAboutASetValueNamesTheArgument() throws {
        let file = try TemporaryScenario(Self.yaml)
        let result = try QueueSimProcess.run(["validate", file.path, "--set", "waitingRoom.outflow=3000"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "--set waitingRoom.outflow=3000:1:21: warning: `waitingRoom.outflow: 3000` has no unit"),
            "\(result.stderr)")
    }

    @Test func theRunAppliesTheValuesAndRecordsThemWithoutTheSecret() throws {
        let file = try TemporaryScenario(Self.yaml)
        let out = RunCommandProcess.reportDirectory()
        defer { try? FileManager.default.removeItem(atPath: out) }
        let result = try RunCommandProcess.run([
            "run", file.path, "--out", out, "--quiet", "--set", "waitingRoom.outflow=60/min", "--set",
            "waitingRoom.secretKey=cli-secret-123", "--set", "arrivals.phases.0.burst=10",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let (_, rows) = try RunCommandProcess.rows(out, "visitors.csv")
        #expect(rows.count == 10)
        let data = try Data(contentsOf: URL(fileURLWithPath: out + "/run.json"))
        let manifest = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let recorded = ["waitingRoom.outflow=60/min", "waitingRoom.secretKey=<redacted>", "arrivals.phases.0.burst=10"]
        #expect(manifest["set"] as? [String] == recorded)
        let configuration = try #require(manifest["configuration"] as? [String: Any])
        #expect(configuration["set"] as? [String] == recorded)
        let room = try #require(configuration["room"] as? [String: Any])
        #expect(room["outflow_per_minute"] as? Double == 60)
        // The file's digest, not the digest of what ran: `set` says the two differ.
        let fileDigest = try Self.sha256(ofFile: file.path)
        #expect(manifest["scenario_sha256"] as? String == fileDigest)
        for report in ["run.json", "report.html", "visitors.csv", "summary.csv", "timeline.csv"] {
            let text = try String(contentsOfFile: out + "/" + report, encoding: .utf8)
            #expect(!text.contains("cli-secret-123"), "\(report) holds the secret")
        }
        let page = try String(contentsOfFile: out + "/report.html", encoding: .utf8)
        #expect(page.contains("--set waitingRoom.outflow=60/min --set waitingRoom.secretKey=&lt;redacted&gt;"))
    }

    /// `sha256sum FILE`'s digest, computed outside queuesim.
    static func sha256(ofFile path: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        process.arguments = [path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: output, as: UTF8.self).split(separator: " ").first.map(String.init) ?? ""
    }
}
