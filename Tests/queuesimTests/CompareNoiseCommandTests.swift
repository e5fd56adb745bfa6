import Foundation
import Testing

/// `queuesim compare` knows what noise is (issue 52 item 7): two seeds of one Poisson scenario
/// are comparable and their difference is noise (the band from batch means, not from order
/// statistics of one run), an outflow 10 % lower is a regression, every difference of
/// configuration is named above the table, one group is one row, a capped wait is never an
/// improvement.
@Suite("queuesim compare: noise, configuration, one group")
struct CompareNoiseCommandTests {
    /// The soak's shape in a quarter of its time (scenarios/soak.yaml runs an hour): Poisson
    /// arrivals at 300/min into an outflow of 240/min, so the queue grows all the way and waits
    /// are strongly autocorrelated — what made order-statistic bands call seeds a change.
    static let scenario = """
        version: 1
        name: soak-short
        seed: 7
        clock: virtual
        target: { customerId: acme, waitingRoomId: evergreen }
        client: { pollInterval: 5s, maxWait: 30m }
        arrivals:
          process: poisson
          phases:
            - { duration: 15m, rate: 300/min }
        waitingRoom:
          mode: queue
          outflow: 240/min
          latency: { enqueue: 30ms, queuePage: 15ms, jitter: 10ms }
        """

    static func run(_ scenario: TemporaryScenario, _ options: [String]) async throws -> String {
        let out = RunCommandProcess.reportDirectory()
        let result = try await QueueSimProcess.runOffPool(
            ["run", scenario.path, "--out", out, "--quiet"] + options, limit: .seconds(120))
        #expect(result.status == 0, "\(result.stderr)")
        return out
    }

    /// The table's row of `metric` for every visitor (`all  wait.p95  …`).
    static func row(_ output: String, _ metric: String) -> String? {
        output.split(separator: "\n").first { $0.hasPrefix("all ") && $0.contains("  \(metric)  ") }.map(String.init)
    }

    @Test func twoSeedsAreComparableAndTheirDifferenceIsNoise() async throws {
        let scenario = try TemporaryScenario(Self.scenario)
        let seven = try await Self.run(scenario, ["--seed", "7"])
        let eight = try await Self.run(scenario, ["--seed", "8"])
        // Any rise of the wait is beyond these rules: only the noise band keeps it from being
        // a regression.
        let result = try await QueueSimProcess.runOffPool(
            ["compare", seven, eight, "--rule", "wait.p95: +0%", "--rule", "wait.p50: +0%"], limit: .seconds(60))
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(!result.stderr.contains("not comparable"), "\(result.stderr)")
        #expect(result.stdout.contains("what differs:\n  seed 7 → 8\n"), "\(result.stdout)")
        #expect(result.stdout.contains("  visitors "), "the drawn visitor counts are named: \(result.stdout)")
        #expect(result.stdout.contains("noise: each run's visitors in 20 batches in arrival order"))
        for metric in ["wait.p50", "wait.p95", "wait.p99", "total.p95"] {
            let row = try #require(Self.row(result.stdout, metric), "\(metric): \(result.stdout)")
            #expect(row.contains("+"), "seed 8 waits longer than seed 7: \(row)")
            #expect(!row.contains("regression") && !row.contains("changed"), "\(row)")
        }
        #expect(Self.row(result.stdout, "wait.p95")?.hasSuffix("  noise") == true, "\(result.stdout)")
    }

    @Test func anOutflowTenPercentLowerIsARegressionAndItsSetIsNamed() async throws {
        let scenario = try TemporaryScenario(Self.scenario)
        let base = try await Self.run(scenario, [])
        let slower = try await Self.run(scenario, ["--seed", "8", "--set", "waitingRoom.outflow=216/min"])
        let markdown = RunCommandProcess.reportDirectory() + ".md"
        let result = try await QueueSimProcess.runOffPool(
            ["compare", base, slower, "--markdown", markdown], limit: .seconds(60))
        #expect(result.status == 1, "\(result.stdout)\n\(result.stderr)")
        #expect(
            result.stdout.contains(
                "what differs:\n  seed 7 → 8\n  --set waitingRoom.outflow not set → 216/min\n  room outflow 240/min → 216/min\n"
            ), "\(result.stdout)")
        #expect(Self.row(result.stdout, "wait.p95")?.hasSuffix("  regression") == true, "\(result.stdout)")
        // One group: one row per figure, and the broken rule once.
        #expect(!result.stdout.contains("\ndefault "), "\(result.stdout)")
        #expect(result.stdout.contains("\n1 rule broken: all wait.p95 +"), "\(result.stdout)")
        let table = try String(contentsOfFile: markdown, encoding: .utf8)
        #expect(table.contains("what differs:\n- seed 7 → 8\n- --set waitingRoom.outflow not set → 216/min\n"))
        #expect(table.components(separatedBy: "| wait.p95 |").count == 2, "\(table)")
    }

    @Test func severalBaseSeedsGiveTheBandFromTheirSpread() async throws {
        let scenario = try TemporaryScenario(Self.scenario)
        var bases: [String] = []
        for seed in [7, 8, 9] { bases.append(try await Self.run(scenario, ["--seed", String(seed)])) }
        let ten = try await Self.run(scenario, ["--seed", "10"])
        let result = try await QueueSimProcess.runOffPool(
            ["compare"] + bases + [ten, "--rule", "wait.p95: +0%"], limit: .seconds(60))
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.contains("noise: the spread of each figure across the 3 base runs"))
        #expect(result.stdout.contains("  seed 7, 8, 9 → 10\n"), "\(result.stdout)")
        #expect(result.stdout.components(separatedBy: "\nbase: ").count == 4, "\(result.stdout)")
        let slower = try await Self.run(scenario, ["--seed", "10", "--set", "waitingRoom.outflow=216/min"])
        let judged = try await QueueSimProcess.runOffPool(["compare"] + bases + [slower], limit: .seconds(60))
        #expect(judged.status == 1, "\(judged.stdout)\n\(judged.stderr)")
        #expect(Self.row(judged.stdout, "wait.p95")?.hasSuffix("  regression") == true, "\(judged.stdout)")
        let one = try await QueueSimProcess.runOffPool(["compare", ten], limit: .seconds(30))
        #expect(one.status == 2)
        #expect(one.stderr.contains("give a base run's folder (or several) and the new run's folder: 1 given"))
    }

    /// A wait at client.maxWait is a lower bound: a shorter wait after it is not proven better.
    @Test func aCappedWaitIsMarkedAndNeverAnImprovement() async throws {
        let scenario = try TemporaryScenario(
            """
            version: 1
            name: capped
            target: { customerId: acme, waitingRoomId: capped }
            client: { pollInterval: 1s, maxWait: 1m }
            arrivals: { phases: [ { burst: 400 } ] }
            waitingRoom: { mode: queue, eventStart: 0s, outflow: 120/min }
            """)
        let capped = try await Self.run(scenario, ["--clock", "virtual"])
        let faster = try await Self.run(
            scenario, ["--clock", "virtual", "--set", "waitingRoom.outflow=600/min"])
        let result = try await QueueSimProcess.runOffPool(["compare", capped, faster], limit: .seconds(60))
        let row = try #require(Self.row(result.stdout, "wait.p95"), "\(result.stdout)")
        #expect(row.contains("≥ 1m 0s"), "\(row)")
        #expect(row.contains("-") && !row.contains("improved"), "\(row)")
        #expect(result.stdout.contains("≥: a wait at its cap, client.maxWait (1m 0s), is a lower bound"))
    }
}
