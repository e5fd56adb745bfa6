import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `validate` is `run`'s own preflight (issue 12, item 4): what `run` refuses before it starts,
/// `validate` refuses too, with the same words and exit 2; and inputs that used to crash the
/// process (exit 132/134) or exhaust it are exit 2 with a message.
@Suite("queuesim validate and run share one preflight")
struct PreflightCommandTests {
    static let feederFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("QueueSimTests/Fixtures/scenarios").path

    /// Both commands on one scenario with the same options, in virtual time (`run` into a
    /// fresh folder, which a refused run must not create).
    static func both(_ scenario: TemporaryScenario, _ extra: [String] = []) throws -> [(String, QueueSimProcess.Result)]
    {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("queuesim-pre-\(UUID().uuidString)")
            .path
        defer {
            try? FileManager.default.removeItem(atPath: out)
            try? FileManager.default.removeItem(atPath: out + ".runs")
        }
        let validate = try QueueSimProcess.run(
            ["validate", "--quiet", scenario.path, "--clock", "virtual"] + extra, limit: .seconds(60))
        let run = try QueueSimProcess.run(
            ["run", scenario.path, "--clock", "virtual", "--quiet", "--out", out] + extra, limit: .seconds(60))
        #expect(!FileManager.default.fileExists(atPath: out), "a refused run wrote no report")
        return [("validate", validate), ("run", run)]
    }

    @Test func aUniqueFeederThatRunsOutIsRefusedByValidateToo() throws {
        let scenario = try TemporaryScenario(
            """
            version: 1
            target: { customerId: acme, waitingRoomId: launch }
            arrivals: { phases: [ { burst: 50 } ] }
            visitors:
              - name: invited
                enqueueKey: { csv: \(Self.feederFolder)/keys.csv, column: key, order: unique }
            """)
        for (command, result) in try Self.both(scenario) {
            #expect(result.status == 2, "\(command): \(result.stderr)")
            #expect(
                result.stderr.contains("\(scenario.path):6:24: visitor group 'invited': 50 visitors are planned but"),
                "\(command): \(result.stderr)")
            #expect(result.stderr.contains("with order: unique each row goes to one visitor only"))
        }
    }

    @Test func aRunOverTheMemoryBudgetIsRefusedBeforeAnythingRuns() throws {
        let scenario = try TemporaryScenario(
            """
            version: 1
            target: { customerId: acme, waitingRoomId: launch }
            client: { connections: shared }
            arrivals: { phases: [ { burst: 200000 } ] }
            """)
        // 64 MiB + 200,000 × (64 + 512) bytes: 200,000 lean iOS visitors in flight at once.
        for (command, result) in try Self.both(scenario, ["--max-memory", "160MiB"]) {
            #expect(result.status == 2, "\(command): \(result.stderr)")
            #expect(
                result.stderr.hasPrefix(
                    "\(scenario.path):4:1: this run would need at least 173.9 MiB of memory (about 200000 visitors, at least 200000 in flight at once), more than its budget of 160 MiB (--max-memory 160MiB)"
                ), "\(command): \(result.stderr)")
        }
        // The same plan within a budget that fits starts (and validates).
        let fits = try QueueSimProcess.run(
            ["validate", "--quiet", scenario.path, "--clock", "virtual", "--max-memory", "1GiB"])
        #expect(fits.status == 0, "\(fits.stderr)")
        // On the wall clock `run.concurrency` (10,000 by default) bounds the visitors in flight.
        let wall = try QueueSimProcess.run(["validate", "--quiet", scenario.path, "--max-memory", "160MiB"])
        #expect(wall.status == 0, "\(wall.stderr)")
    }

    @Test func visitorsBeyondTheLimitAreACommandLineError() throws {
        let scenario = try TemporaryScenario(
            """
            version: 1
            target: { customerId: acme, waitingRoomId: launch }
            arrivals: { phases: [ { burst: 10 } ] }
            """)
        for (command, result) in try Self.both(scenario, ["--visitors", "9223372036854775807"]) {
            #expect(result.status == 2, "\(command): \(result.stderr)")
            #expect(
                result.stderr.contains("--visitors must be from 0 to 100000000 (got 9223372036854775807)"),
                "\(command): \(result.stderr)")
        }
    }

    @Test func aVirtualClockOnARealEndpointIsRefusedByValidateToo() throws {
        let scenario = try TemporaryScenario(
            """
            version: 1
            target: { customerId: acme, waitingRoomId: launch, endpoint: "http://127.0.0.1:9" }
            arrivals: { phases: [ { burst: 1 } ] }
            """)
        let result = try QueueSimProcess.run(["validate", "--quiet", scenario.path, "--clock", "virtual"])
        #expect(result.status == 2, "\(result.stderr)")
        #expect(
            result.stderr.hasPrefix("\(scenario.path):2:1: clock virtual needs endpoint: embedded"), "\(result.stderr)")
    }

    /// The crash inputs: each was exit 132/134 (a trap) or ran out of memory.
    static let crashInputs: [(yaml: String, expected: String)] = [
        (
            "arrivals: { phases: [ { rate: 1e300/s, duration: 10s } ] }",
            ":3:31: `arrivals.phases[0].rate` must be a rate such as 10"
        ),
        (
            "arrivals: { phases: [ { burst: 9223372036854775807 } ] }",
            ":3:32: `arrivals.phases[0].burst` must be from 1 to 100000000 visitors"
        ),
        (
            "waitingRoom: { outflow: 0.00000000001/min }\narrivals: { phases: [ { burst: 10 } ] }",
            ":3:25: `waitingRoom.outflow` must let at least one visitor through within a year"
        ),
        (
            "arrivals: { phases: [ { burst: 10 }, { pause: 100000h }, { burst: 10 } ] }",
            ":3:47: `arrivals.phases[1].pause` must be at most 366 days (8784h)"
        ),
    ]

    @Test(arguments: crashInputs.indices)
    func anInputThatUsedToCrashIsExitTwoWithItsPosition(index: Int) throws {
        let (yaml, expected) = Self.crashInputs[index]
        let scenario = try TemporaryScenario(
            "version: 1\ntarget: { customerId: acme, waitingRoomId: launch }\n" + yaml + "\n")
        for (command, result) in try Self.both(scenario) {
            #expect(result.status == 2, "\(command): \(result.stderr)")
            #expect(result.stderr.hasPrefix(scenario.path + expected), "\(command): \(result.stderr)")
        }
    }

    @Test(
        "device visitors that need more descriptors than the hard limit: exit 2 at run.concurrency, both numbers named")
    func descriptorLimitRefused() throws {
        var limit = rlimit()
        #expect(getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0)
        let hard = Int(min(limit.rlim_max, rlim_t(Int32.max)))
        // Each visitor in flight holds two connections, both ends in the process: a quarter of
        // the limit is already too many. Beyond the scenario's largest concurrency, skip.
        let concurrency = hard / 4 + 100
        guard concurrency <= 10_000_000 else { return }
        let scenario = try TemporaryScenario(
            """
            version: 1
            target: { customerId: acme, waitingRoomId: launch }
            arrivals: { phases: [ { burst: \(concurrency) } ] }
            run: { concurrency: \(concurrency) }
            """)
        let result = try QueueSimProcess.run(["validate", "--quiet", scenario.path], limit: .seconds(120))
        #expect(result.status == 2, "\(result.stderr)")
        #expect(
            result.stderr.hasPrefix(
                "\(scenario.path):4:21: run.concurrency allows \(concurrency) visitors in flight at once"),
            "\(result.stderr)")
        #expect(result.stderr.contains("but this process may open \(hard) (ulimit -n's hard limit)"))
        // The same plan on shared connections fits.
        let shared = try TemporaryScenario(
            """
            version: 1
            target: { customerId: acme, waitingRoomId: launch }
            client: { connections: shared }
            arrivals: { phases: [ { burst: \(concurrency) } ] }
            run: { concurrency: \(concurrency) }
            """)
        let fits = try QueueSimProcess.run(["validate", "--quiet", shared.path], limit: .seconds(120))
        #expect(fits.status == 0, "\(fits.stderr)")
    }
}
