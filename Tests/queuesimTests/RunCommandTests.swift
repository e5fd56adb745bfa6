import Foundation
import Testing

/// `queuesim run` as users call it: exit codes, report files, SIGINT.
@Suite("queuesim run", .serialized, .timeLimit(.minutes(2)))
struct RunCommandTests {
    static let reportFiles = ["visitors.csv", "summary.csv", "timeline.csv", "run.json"]

    static func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

    @Test("a threshold that fails: exit 1, and all four reports are written")
    func failingThresholdExitsOne() throws {
        let scenario = try TemporaryScenario(
            """
            version: 1
            name: failing
            target: { customerId: acme, waitingRoomId: launch }
            arrivals: { phases: [ { burst: 20 } ] }
            waitingRoom: { mode: disabled }
            thresholds: [ "passed >= 99%" ]
            """)
        let out = RunCommandProcess.reportDirectory()
        defer { try? FileManager.default.removeItem(atPath: out) }
        let result = try RunCommandProcess.run(["run", scenario.path, "--clock", "virtual", "--out", out, "--quiet"])
        #expect(result.status == 1, "\(result.stderr)")
        for file in Self.reportFiles { #expect(Self.exists(out + "/" + file), "\(file) missing") }
        let (_, rows) = try RunCommandProcess.rows(out, "visitors.csv")
        #expect(rows.count == 20)
        let manifest = try String(contentsOfFile: out + "/run.json", encoding: .utf8)
        #expect(manifest.contains("\"exit_code\" : 1"))
    }

    @Test("the same failing threshold on the wall clock: exit 1 with reports")
    func failingThresholdOnTheWallClock() throws {
        let scenario = try TemporaryScenario(
            """
            version: 1
            name: failing-wall
            target: { customerId: acme, waitingRoomId: launch }
            arrivals: { phases: [ { burst: 20 } ] }
            waitingRoom: { mode: idle }
            thresholds: [ "passed >= 99%" ]
            """)
        let out = RunCommandProcess.reportDirectory()
        defer { try? FileManager.default.removeItem(atPath: out) }
        let result = try RunCommandProcess.run(["run", scenario.path, "--out", out], limit: .seconds(30))
        #expect(result.status == 1, "\(result.stderr)")
        for file in Self.reportFiles { #expect(Self.exists(out + "/" + file), "\(file) missing") }
        #expect(result.stdout.contains("passed"), "the verdict table is printed")
        // A wall run says how its own generator kept up, on the screen and in run.json.
        #expect(result.stdout.contains("generator: "), "\(result.stdout)")
        #expect(result.stdout.contains("the load generator"), "\(result.stdout)")
        let manifest = try String(contentsOfFile: out + "/run.json", encoding: .utf8)
        #expect(manifest.contains("\"generator\" : {"))
        #expect(manifest.contains("\"saturated_windows\""))
    }

    @Test("an invalid scenario: exit 2, a position in the message, no report directory")
    func invalidScenarioExitsTwo() throws {
        let scenario = try TemporaryScenario(
            """
            version: 1
            target: { customerId: acme, waitingRoomId: launch }
            arrivals: { phases: [ { burst: -3 } ] }
            """)
        let out = RunCommandProcess.reportDirectory()
        let result = try RunCommandProcess.run(["run", scenario.path, "--out", out])
        #expect(result.status == 2)
        #expect(result.stderr.contains(scenario.path + ":3:"), "\(result.stderr)")
        #expect(!Self.exists(out))
    }

    @Test(
        "invalid command lines exit 2 before anything runs",
        arguments: [
            ["--clock", "bogus"], ["--duration", "soon"], ["--concurrency", "0"],
        ])
    func invalidCommandLineExitsTwo(extra: [String]) throws {
        let scenario = try TemporaryScenario(
            """
            version: 1
            target: { customerId: acme, waitingRoomId: launch }
            arrivals: { phases: [ { burst: 3 } ] }
            """)
        let out = RunCommandProcess.reportDirectory()
        let result = try RunCommandProcess.run(["run", scenario.path, "--out", out] + extra)
        #expect(result.status == 2, "\(result.stderr)")
        #expect(!result.stderr.isEmpty)
        #expect(!Self.exists(out))
    }

    @Test("--clock virtual against a real endpoint: exit 2, nothing run")
    func virtualClockNeedsTheEmbeddedRoom() throws {
        let scenario = try TemporaryScenario(
            """
            version: 1
            target: { customerId: acme, waitingRoomId: launch, endpoint: "http://127.0.0.1:9" }
            arrivals: { phases: [ { burst: 3 } ] }
            """)
        let out = RunCommandProcess.reportDirectory()
        let result = try RunCommandProcess.run(["run", scenario.path, "--clock", "virtual", "--out", out])
        #expect(result.status == 2)
        #expect(result.stderr.contains("virtual"), "\(result.stderr)")
        #expect(!Self.exists(out))
    }

    @Test("an unreachable endpoint: exit 3 before any visitor, no reports")
    func unreachableEndpointExitsThree() throws {
        // Port 9 (discard) on loopback: nothing listens there, the connection is refused at once.
        let scenario = try TemporaryScenario(
            """
            version: 1
            target: { customerId: acme, waitingRoomId: launch, endpoint: "http://127.0.0.1:9" }
            arrivals: { phases: [ { burst: 3 } ] }
            """)
        let out = RunCommandProcess.reportDirectory()
        defer { try? FileManager.default.removeItem(atPath: out) }
        let result = try RunCommandProcess.run(["run", scenario.path, "--out", out, "--quiet"], limit: .seconds(30))
        #expect(result.status == 3, "\(result.stderr)")
        #expect(!Self.exists(out + "/visitors.csv"))
    }

    @Test("SIGINT two seconds into a wall run: exit 130, a row for every arrived visitor")
    func sigintExits130WithReports() throws {
        // 100 visitors a second for 30 s into a room that releases nobody before its event start.
        let scenario = try TemporaryScenario(
            """
            version: 1
            name: sigint
            target: { customerId: acme, waitingRoomId: launch }
            client: { pollInterval: 500ms }
            arrivals: { phases: [ { duration: 30s, rate: 100 } ] }
            waitingRoom: { mode: queue, eventStart: 1h }
            """)
        let out = RunCommandProcess.reportDirectory()
        defer { try? FileManager.default.removeItem(atPath: out) }
        let result = try RunCommandProcess.run(
            ["run", scenario.path, "--out", out, "--quiet"], interruptAfter: .seconds(2), limit: .seconds(30))
        #expect(result.status == 130, "\(result.stderr)")
        for file in Self.reportFiles { #expect(Self.exists(out + "/" + file), "\(file) missing") }
        let (header, rows) = try RunCommandProcess.rows(out, "visitors.csv")
        let outcome = try #require(header.firstIndex(of: "outcome"))
        let arrival = try #require(header.firstIndex(of: "arrival_ms"))
        // Arrivals are 10 ms apart from the run's start, which came after the process started:
        // no more rows than 2 s (plus the signal's delivery) of arrivals, and a good share of them.
        let signalledAfter = try #require(result.signalledAfter)
        #expect(rows.count > 0)
        #expect(rows.count <= Int(signalledAfter / .milliseconds(10)) + 50)
        #expect(rows.count >= 50, "the run had time to admit visitors before the signal")
        #expect(rows.map { $0[0] } == (1...rows.count).map(String.init), "rows are the plan's first visitors")
        #expect(rows.allSatisfy { $0[outcome] == "interrupted" })
        #expect(rows.allSatisfy { !$0[arrival].isEmpty })
        let manifest = try String(contentsOfFile: out + "/run.json", encoding: .utf8)
        #expect(manifest.contains("\"interrupted\" : true"))
        #expect(manifest.contains("\"visitors\" : \(rows.count)"))
    }

    @Test("SIGTERM (a CI timeout, docker stop) two seconds into a wall run: exit 143, the same reports as SIGINT")
    func sigtermExits143WithReports() throws {
        let scenario = try TemporaryScenario(
            """
            version: 1
            name: sigterm
            target: { customerId: acme, waitingRoomId: launch }
            arrivals: { phases: [ { duration: 30s, rate: 100 } ] }
            waitingRoom: { mode: queue, eventStart: 1h }
            """)
        let out = RunCommandProcess.reportDirectory()
        let result = try RunCommandProcess.run(
            ["run", scenario.path, "--out", out, "--quiet"], interruptAfter: .seconds(2), limit: .seconds(30),
            signal: SIGTERM)
        #expect(result.status == 143, "\(result.stderr)")
        let rows = try RunCommandProcess.rows(out, "visitors.csv").rows
        #expect(rows.count >= 50)
        let manifest = try String(contentsOfFile: out + "/run.json", encoding: .utf8)
        #expect(manifest.contains("\"exit_code\" : 143"))
        #expect(manifest.contains("\"interrupted\" : true"))
    }
}
