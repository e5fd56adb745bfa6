import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Inputs a hostile or careless user hands the command line (issue 12): each is refused with
/// exit 2 and a message naming the file, never a hang. Every child runs under a time limit, so
/// a regression (a FIFO opened blocking) fails the test instead of hanging the suite.
@Suite("queuesim refuses hostile inputs")
struct HostileInputCommandTests {
    /// A fresh folder with a named pipe `name` in it; nothing ever writes to the pipe.
    static func fifo(_ name: String = "scenario.yaml") throws -> (folder: String, path: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("queuesim-fifo-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = folder + "/" + name
        guard mkfifo(path, 0o600) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        return (folder, path)
    }

    @Test(arguments: ["validate", "run", "serve"])
    func aFIFOAsTheScenarioIsRefusedNotOpened(command: String) throws {
        let (folder, path) = try Self.fifo()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try QueueSimProcess.run([command, path], limit: .seconds(10))
        #expect(result.status == 2, "\(result.stderr)")
        #expect(
            result.stderr.hasPrefix(
                "\(path): this is a named pipe (FIFO), not a regular file; queuesim reads only regular files"),
            "\(result.stderr)")
        #expect(result.elapsed < .seconds(5))
    }

    @Test func aDeviceAsTheScenarioIsRefused() throws {
        let result = try QueueSimProcess.run(["validate", "/dev/zero"], limit: .seconds(10))
        #expect(result.status == 2, "\(result.stderr)")
        #expect(
            result.stderr.hasPrefix("/dev/zero: this is a character device, not a regular file"), "\(result.stderr)")
    }

    @Test func aFIFOAsAFeederIsRefusedAtItsPosition() throws {
        let (folder, _) = try Self.fifo("keys.csv")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let scenario = folder + "/scenario.yaml"
        try Data(
            """
            version: 1
            target: { customerId: acme, waitingRoomId: launch }
            arrivals: { phases: [ { burst: 1 } ] }
            visitors:
              - name: invited
                enqueueKey: { csv: keys.csv, column: key }
            """.utf8
        ).write(to: URL(fileURLWithPath: scenario))
        let result = try QueueSimProcess.run(["validate", scenario], limit: .seconds(10))
        #expect(result.status == 2, "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "\(scenario):6:24: `visitors[0].enqueueKey.csv`: cannot read \(folder)/keys.csv: this is a named pipe (FIFO), not a regular file"
            ), "\(result.stderr)")
    }

    @Test(arguments: ["validate", "run"])
    func anEventIdTheTokenCannotCarryIsExitTwoWithItsPosition(command: String) throws {
        let file = try TemporaryScenario(
            """
            version: 1
            target: { customerId: acme, waitingRoomId: spring_launch }
            arrivals: { phases: [ { burst: 1 } ] }
            """)
        let arguments = command == "run" ? ["run", file.path, "--clock", "virtual"] : ["validate", file.path]
        let result = try QueueSimProcess.run(arguments)
        #expect(result.status == 2, "\(result.stderr)")
        #expect(
            result.stderr.hasPrefix(
                "\(file.path):2:44: `target.waitingRoomId` is the event id inside KnownUser tokens"),
            "\(result.stderr)")
        #expect(result.stderr.contains("cannot carry `_`"))
    }

    /// An escape sequence in the scenario's name would reach the terminal from the summary and
    /// the run's last screen: it is refused where it is written, and nothing of it is echoed.
    @Test(arguments: ["validate", "run"])
    func aNameWithAnEscapeSequenceIsExitTwoWithItsPosition(command: String) throws {
        let file = try TemporaryScenario(
            #"""
            version: 1
            name: "launch\e[2J"
            target: { customerId: acme, waitingRoomId: launch }
            arrivals: { phases: [ { burst: 1 } ] }
            """#)
        let out = RunCommandProcess.reportDirectory()
        let arguments =
            command == "run" ? ["run", file.path, "--clock", "virtual", "--out", out] : ["validate", file.path]
        let result = try QueueSimProcess.run(arguments)
        #expect(result.status == 2, "\(result.stderr)")
        #expect(
            result.stderr
                == "\(file.path):2:7: `name` contains a control character (U+001B) at offset 6; names are shown in terminals, reports and CSV files, so only printable characters are allowed\n"
        )
        #expect(result.stdout.isEmpty, "\(result.stdout)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test func anUnreachableEndpointIsNamedInWordsNotATypeDump() throws {
        let file = try TemporaryScenario(
            """
            version: 1
            target: { customerId: acme, waitingRoomId: launch, endpoint: "http://127.0.0.1:1" }
            arrivals: { phases: [ { burst: 1 } ] }
            """)
        let result = try QueueSimProcess.run(["run", file.path, "--out", RunCommandProcess.reportDirectory()])
        #expect(result.status == 3, "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "the endpoint http://127.0.0.1:1 is not reachable: could not connect: Connection refused (errno 111)"),
            "\(result.stderr)")
        for raw in ["Error(", "(errno: ", "error set", ".swift"] {
            #expect(!result.stderr.contains(raw), "\(result.stderr)")
        }
    }

    /// A large feeder takes seconds to read and check; SIGINT meanwhile must end the process
    /// at once with 130 and write nothing (it used to die without exit 130).
    @Test(arguments: [SIGINT, SIGTERM])
    func aSignalWhileAFeederLoadsExitsAtOnceWithItsCode(signal: Int32) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("queuesim-feed-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var csv = Array("key\n".utf8)
        csv.reserveCapacity(40 * 1_000_000)
        for row in 0..<1_000_000 { csv += Array(String(format: "%032x\n", row).utf8) }
        try Data(csv).write(to: URL(fileURLWithPath: folder + "/keys.csv"))
        let scenario = folder + "/scenario.yaml"
        try Data(
            """
            version: 1
            target: { customerId: acme, waitingRoomId: launch }
            arrivals: { phases: [ { burst: 10 } ] }
            visitors:
              - name: invited
                enqueueKey: { csv: keys.csv, column: key }
            """.utf8
        ).write(to: URL(fileURLWithPath: scenario))
        let out = folder + "/reports"
        let result = try QueueSimProcess.run(
            ["run", scenario, "--clock", "virtual", "--out", out], limit: .seconds(60),
            interruptAfter: .milliseconds(300), signal: signal)
        #expect(result.status == 128 + signal, "\(result.stderr)")
        #expect(result.stderr.contains("before the run started; nothing ran"), "\(result.stderr)")
        if let signalled = result.signalledAfter { #expect(result.elapsed - signalled < .seconds(2)) }
        #expect(!FileManager.default.fileExists(atPath: out))
    }
}
