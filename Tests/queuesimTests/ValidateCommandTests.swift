import Foundation
import Testing

@Suite("queuesim validate")
struct ValidateCommandTests {
    @Test func theReadyMadeScenariosAreValidAndDescribed() throws {
        let files = ["hybrid", "invite-only", "launch", "proxy", "soak"].map { "scenarios/\($0).yaml" }
        let result = try QueueSimProcess.run(["validate"] + files)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty)
        let out = result.stdout
        #expect(out.contains("scenarios/launch.yaml: valid (scenario format v1)"))
        #expect(out.contains("1,900 planned, arriving over 15s (uniform), peak 943 in one second (burst included)"))
        #expect(out.contains("10s ramp 20/s → 150/s; burst of 800 at 10s; 5s at 50/s"))
        #expect(out.contains("enqueue https://acme.queue-it.net/api/mobileapp/queue/acme/spring-launch/enqueue"))
        #expect(
            out.contains("enqueue https://queue.partner.example/queue/api/mobileapp/queue/acme/spring-launch/enqueue"))
        #expect(out.contains("enqueue key from scenarios/data/keys.csv column key (unique)"))
        #expect(out.contains("outflow 6,000/min (100/s), event start at 10s"))
        #expect(out.contains("passed >= 95%; error < 1%; wait.p95 < 40s; enqueue.p99 < 2s"))
        #expect(out.contains("10m–12m: enqueue requests: answer 503 on 30% of requests"))
        #expect(out.contains("55m–end: room mode disabled"))
        // Keys and tokens are credentials: only their source is printed.
        #expect(out.contains("enqueue key: literal (hidden)"))
        #expect(!out.contains("FORGED-0000"))
    }

    @Test func aBaseURLEndpointIsNamedNextToEachURL() throws {
        let file = try TemporaryScenario(
            """
            version: 1
            target: { customerId: acme, waitingRoomId: launch, endpoint: "http://127.0.0.1:8080" }
            arrivals: { phases: [ { burst: 10 } ] }
            """)
        let result = try QueueSimProcess.run(["validate", file.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout.contains(
                "enqueue https://acme.queue-it.net/api/mobileapp/queue/acme/launch/enqueue (connected via http://127.0.0.1:8080)"
            ))
    }

    @Test func eachPlatformsTimeoutsAreDescribedAsTheRunAppliesThem() throws {
        let file = try TemporaryScenario(
            """
            version: 1
            target: { customerId: acme, waitingRoomId: launch }
            client: { platform: { ios: 50%, android: 50% } }
            arrivals: { phases: [ { burst: 10 } ] }
            """)
        let result = try QueueSimProcess.run(["validate", file.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("iOS-3.5.1, request timeout 1m without progress (enqueue and queue pages)"))
        #expect(
            result.stdout.contains(
                "Android-3.0.0, enqueue timeout 10s without progress; queue pages 4m to connect, then maxWait"))
        let replaced = try TemporaryScenario(
            """
            version: 1
            target: { customerId: acme, waitingRoomId: launch }
            client: { platform: android, requestTimeout: 15s }
            arrivals: { phases: [ { burst: 10 } ] }
            """)
        let whole = try QueueSimProcess.run(["validate", replaced.path])
        #expect(
            whole.stdout.contains("Android-3.0.0, request timeout 15s (whole exchange, every call)"), "\(whole.stdout)")
    }

    @Test func aShardIsDescribedAsTheRunThatShardWouldMake() throws {
        let file = try TemporaryScenario(
            """
            version: 1
            target: { customerId: acme, waitingRoomId: launch, endpoint: "http://127.0.0.1:8080" }
            arrivals: { phases: [ { burst: 1000 } ] }
            run: { startAt: "2026-12-01T18:00:00Z" }
            """)
        let result = try QueueSimProcess.run(["validate", file.path, "--shard", "3/10"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout.contains("start       waits for 2026-12-01T18:00:00.000Z (common start)"), "\(result.stdout)")
        #expect(result.stdout.contains("shard       3/10: 100 of 1,000 visitors (number mod 10 = 3)"))
        #expect(result.stdout.contains("visitors in flight at once in this shard"))
        let whole = try QueueSimProcess.run(["validate", file.path])
        #expect(!whole.stdout.contains("shard "))
        #expect(whole.stdout.contains("memory      estimated "))
    }

    /// The list of malformed scenarios: each exits 2 within a second with a position.
    static let malformed: [(name: String, bytes: [UInt8], expected: String)] = [
        (
            "typo",
            Array(
                "version: 1\ntarget: { custmerId: acme, waitingRoomId: w }\narrivals: { phases: [ { burst: 1 } ] }\n"
                    .utf8),
            ":2:11: unknown key `custmerId` in `target`; did you mean `customerId`?"
        ),
        (
            "duration",
            Array(
                "version: 1\ntarget: { customerId: acme, waitingRoomId: w }\narrivals: { phases: [ { duration: 10 sec, rate: 1 } ] }\n"
                    .utf8),
            ":3:35: `arrivals.phases[0].duration` must be a duration such as 250ms"
        ),
        (
            "negative-rate",
            Array(
                "version: 1\ntarget: { customerId: acme, waitingRoomId: w }\narrivals: { phases: [ { duration: 10s, rate: -3 } ] }\n"
                    .utf8),
            ":3:46: `arrivals.phases[0].rate` must be more than 0, found -3"
        ),
        (
            "tab", Array("version: 1\ntarget:\n\tcustomerId: acme\n".utf8),
            ":3:1: found character that cannot start any token"
        ),
        (
            "unclosed", Array("version: 1\ntarget: { customerId: acme\narrivals: []\n".utf8),
            "did not find expected ',' or '}' (while parsing a flow mapping that starts at 2:9)"
        ),
        (
            "missing", Array("version: 1\narrivals: { phases: [ { burst: 1 } ] }\n".utf8),
            ":1:1: missing the required key `target`"
        ),
        (
            "wrong-type", Array("version: 1\ntarget: acme\narrivals: { phases: [ { burst: 1 } ] }\n".utf8),
            ":2:9: expected a mapping (key: value lines) for `target`, found `acme`"
        ),
        ("empty", [], ":1:1: the file is empty"),
        ("random", (0..<2048).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ 13) }, ": found the byte"),
        (
            "deep", Array(String(repeating: "[", count: 20_000).utf8),
            ":1:65: lists and mappings nest deeper than 64 levels"
        ),
        ("bomb", Array(billionLaughs.utf8), "billion laughs"),
    ]

    @Test(arguments: malformed.indices)
    func malformedScenariosExitTwoWithAPosition(index: Int) throws {
        let (name, bytes, expected) = Self.malformed[index]
        let file = try TemporaryScenario(bytes: bytes, name: name)
        let result = try QueueSimProcess.run(["validate", file.path])
        #expect(result.status == 2, "\(name): \(result.stderr)")
        #expect(result.elapsed < .seconds(1), "\(name) took \(result.elapsed)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix(file.path + ":"), "\(name): \(result.stderr)")
        #expect(result.stderr.contains(expected), "\(name): \(result.stderr)")
    }

    @Test func everyProblemOfEveryFileIsReported() throws {
        let file = try TemporaryScenario(
            "version: 3\ntarget: { customerId: acme, waitingRoomId: w }\narrivals: { phases: [ { burst: 0 } ] }\nclock: sometimes\n"
        )
        let result = try QueueSimProcess.run(["validate", file.path, "scenarios/launch.yaml", "no-such.yaml"])
        #expect(result.status == 2)
        #expect(
            result.stderr == """
                \(file.path):1:10: `version: 3` is not supported; this queuesim reads scenario format version 1
                \(file.path):3:32: `arrivals.phases[0].burst` must be from 1 to 100000000 visitors, found 0
                \(file.path):4:8: `clock` must be one of wall, virtual, found `sometimes`
                no-such.yaml: no such file
                2 of 3 scenario files are invalid

                """)
        #expect(result.stdout.contains("scenarios/launch.yaml: valid"))
    }

    @Test func quietPrintsNothingForValidFiles() throws {
        let result = try QueueSimProcess.run(["validate", "--quiet", "scenarios/launch.yaml"])
        #expect(result.status == 0)
        #expect(result.stdout.isEmpty)
    }

    static let billionLaughs: String = {
        var text = "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n"
        var previous = "a"
        for name in ["b", "c", "d", "e", "f", "g", "h", "i"] {
            text += "\(name): &\(name) [" + Array(repeating: "*\(previous)", count: 9).joined(separator: ",") + "]\n"
            previous = name
        }
        return text
    }()
}

@Suite("queuesim command line")
struct CommandLineTests {
    @Test func versionAndHelp() throws {
        let version = try QueueSimProcess.run(["--version"])
        #expect(version.status == 0)
        #expect(version.stdout == "0.1.0\n")
        let help = try QueueSimProcess.run(["--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("queuesim validate scenarios/launch.yaml"))
        #expect(help.stdout.contains("validate"))
    }

    @Test func usageMistakesExitTwo() throws {
        for arguments in [["validate"], ["validate", "--frobnicate", "x.yaml"], ["launch"]] {
            let result = try QueueSimProcess.run(arguments)
            #expect(result.status == 2, "\(arguments): \(result.stderr)")
            #expect(!result.stderr.isEmpty)
        }
    }

    @Test(arguments: ["run", "serve"])
    func runAndServeRefuseAnInvalidScenarioWithTwo(command: String) throws {
        let scenario = try TemporaryScenario(
            bytes: Array("version: 1\nname: broken\ntarget: { customerId: acme }\n".utf8))
        let result = try QueueSimProcess.run([command, scenario.path])
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix(scenario.path + ":"), "\(result.stderr)")
        #expect(result.stderr.contains("waitingRoomId"), "\(result.stderr)")
    }
}

/// A scenario file in a fresh temporary folder, removed when the value is released.
final class TemporaryScenario {
    let path: String
    private let folder: URL

    init(bytes: [UInt8], name: String = "scenario") throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("queuesim-scenario-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        path = folder.appendingPathComponent("\(name).yaml").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    convenience init(_ text: String) throws {
        try self.init(bytes: Array(text.utf8))
    }

    deinit {
        try? FileManager.default.removeItem(at: folder)
    }
}

/// `--help` is read in an 80-column terminal: every line fits, and options that take one of a
/// few words list them.
@Suite("Help text at 80 columns")
struct HelpTextTests {
    static let commands: [[String]] = [
        [], ["run"], ["validate"], ["serve"], ["merge"], ["report"], ["recover"], ["sweep"], ["compare"],
    ]

    @Test("Every line fits in 80 columns", arguments: commands)
    func fits(command: [String]) throws {
        let help = try QueueSimProcess.run(command + ["--help"], environment: ["COLUMNS": "80"])
        #expect(help.status == 0)
        let long = help.stdout.split(separator: "\n").filter { $0.count > 80 }
        #expect(long.isEmpty, "lines over 80 columns: \(long)")
    }

    @Test func closedSetsListTheirValues() throws {
        let run = try QueueSimProcess.run(["run", "--help"], environment: ["COLUMNS": "80"])
        #expect(run.stdout.contains("(values: wall, virtual)"))
        #expect(run.stdout.contains("--duration <DURATION>"))
        let serve = try QueueSimProcess.run(["serve", "--help"], environment: ["COLUMNS": "80"])
        #expect(serve.stdout.contains("values: trace, debug, info, notice, warning, error,"))
    }
}
