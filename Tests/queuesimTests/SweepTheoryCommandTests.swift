import Foundation
import Testing

/// `queuesim sweep --check-theory`: points held to the theory's oracle, the oracle's columns in
/// sweep.csv, a point off its theory is exit 1 with the figures named.
@Suite("queuesim sweep --check-theory", .serialized, .timeLimit(.minutes(5)))
struct SweepTheoryCommandTests {
    /// `rate` visitors a minute for 5 min, exponential patience θ = 10 min, skipped turns.
    static func scenario(rate: String, seed: Int = 3) -> String {
        """
        version: 1
        name: theory-cli
        seed: \(seed)
        target: { customerId: acme, waitingRoomId: launch }
        client: { pollInterval: 2s, maxWait: 2h }
        arrivals: { phases: [ { duration: 5m, rate: \(rate) } ] }
        visitors: [ { name: app, patience: { mean: 10m } } ]
        waitingRoom: { outflow: 600/min, abandonedTurns: skipped, latency: { enqueue: 0s, queuePage: 0s, jitter: 0s } }
        thresholds: [ "passed >= 50%" ]
        """
    }

    static func csv(_ directory: String) throws -> [[String]] {
        try String(contentsOfFile: directory + "/sweep.csv", encoding: .utf8).split(separator: "\n")
            .map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
    }

    @Test("5,000 visitors at two outflows hold to the theory: exit 0, oracle columns, pass")
    func pointsHoldToTheTheory() async throws {
        let scenario = try TemporaryScenario(Self.scenario(rate: "1000/min"))
        let out = RunCommandProcess.reportDirectory()
        defer { try? FileManager.default.removeItem(atPath: out) }
        let result = try await QueueSimProcess.runOffPool(
            [
                "sweep", scenario.path, "--out", out, "--no-progress", "--vary",
                "waitingRoom.outflow=400/min,800/min", "--check-theory",
            ], limit: .seconds(120))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "queuesim sweep: theory check: 2 points within 2 points (shares) and 5 % (waits) of the theory"),
            "\(result.stderr)")
        let rows = try Self.csv(out)
        let header = rows[0]
        for column in ["oracle_passed_share", "oracle_abandoned_share", "oracle_wait_p95_ms", "theory"] {
            #expect(header.contains(column), "\(column) missing")
        }
        let theory = try #require(header.firstIndex(of: "theory"))
        let oracle = try #require(header.firstIndex(of: "oracle_passed_share"))
        let measured = try #require(header.firstIndex(of: "passed_share"))
        let points = rows.filter { $0.first == "point" }
        #expect(points.count == 2 && points.allSatisfy { $0[theory] == "pass" })
        for row in points {
            let (simulated, expected) = (try #require(Double(row[measured])), try #require(Double(row[oracle])))
            #expect(abs(simulated - expected) <= 0.02, "\(row)")
        }
        #expect(rows.filter { $0.first == "seed" }.allSatisfy { $0[theory].isEmpty })
    }

    /// 60 visitors are no fluid: this seed's crowd passes 76.7 % against the theory's 81.5 %.
    @Test("a point off its theory is exit 1, its figures named")
    func aPointOffItsTheoryIsExitOne() async throws {
        let scenario = try TemporaryScenario(
            Self.scenario(rate: "12/min").replacingOccurrences(of: "outflow: 600/min", with: "outflow: 6/min"))
        let out = RunCommandProcess.reportDirectory()
        defer { try? FileManager.default.removeItem(atPath: out) }
        let result = try await QueueSimProcess.runOffPool(
            [
                "sweep", scenario.path, "--out", out, "--no-progress", "--vary", "waitingRoom.outflow=6/min",
                "--check-theory",
            ],
            limit: .seconds(120))
        #expect(result.status == 1, "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "theory check: point 1 (waitingRoom.outflow=6/min) fails: passed_share 76.7% against the theory's 81.5%"
            ),
            "\(result.stderr)")
        let rows = try Self.csv(out)
        let theory = try #require(rows[0].firstIndex(of: "theory"))
        #expect(rows.first { $0.first == "point" }?[theory] == "fail")
        // Without --check-theory the same sweep meets its thresholds: exit 0, no oracle columns.
        let plain = try await QueueSimProcess.runOffPool(
            ["sweep", scenario.path, "--out", out, "--no-progress", "--vary", "waitingRoom.outflow=6/min"],
            limit: .seconds(120))
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(try !Self.csv(out)[0].contains("theory"))
    }
}
