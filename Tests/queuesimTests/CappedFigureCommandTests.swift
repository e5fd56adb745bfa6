import Foundation
import Testing

/// Issue 52, items 1 and 2: a figure capped by `client.maxWait` never passes `<`, in `run` and
/// in `sweep`; a sweep without `--goal` is judged by the scenario's thresholds, and one with
/// neither is refused; a rate without a unit warns in `sweep` and is shown with `/s`.
@Suite("capped figures, sweep goals and rate units", .serialized, .timeLimit(.minutes(5)))
struct CappedFigureCommandTests {
    /// 1,000 visitors at once, 25/min out, 30 minutes of maxWait: 750 get through in time and
    /// 25 % give up at the cap, so the wait p95 reads the cap (the fluid p95 is 950/25 = 38 min).
    static func capped(outflow: String = "25/min", thresholds: String = "thresholds: [ \"wait.p95 < 35m\" ]")
        -> String
    {
        """
        version: 1
        name: capped
        seed: 5
        target: { customerId: acme, waitingRoomId: launch }
        client: { pollInterval: 30s, maxWait: 30m }
        arrivals: { phases: [ { burst: 1000 } ] }
        waitingRoom: { mode: queue, outflow: \(outflow) }
        \(thresholds)
        """
    }

    static func json(_ directory: String) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: directory + "/sweep.json"))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test("run: wait.p95 < 35m on a wait capped at 30m fails (capped), exit 1, the cap named")
    func runFailsACappedUpperBound() throws {
        let scenario = try TemporaryScenario(Self.capped())
        let out = RunCommandProcess.reportDirectory()
        defer { try? FileManager.default.removeItem(atPath: out) }
        let result = try QueueSimProcess.run(
            ["run", scenario.path, "--clock", "virtual", "--out", out, "--no-progress"], limit: .seconds(60))
        #expect(result.status == 1, "\(result.stdout)\n\(result.stderr)")
        #expect(
            result.stdout.contains("wait.p95 | < 35m 0s | ≥ 30m 0s (capped by client.maxWait) | FAIL (capped)"),
            "\(result.stdout)")
        #expect(
            result.stderr.contains(
                "queuesim run: FAIL (exit 1): wait.p95 < 35m was ≥ 30m 0s (capped by client.maxWait)"),
            "\(result.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out + "/run.json")))
        let thresholds = try #require((json as? [String: Any])?["thresholds"] as? [[String: Any]])
        #expect(thresholds.first?["passed"] as? Bool == false)
        #expect(thresholds.first?["capped_by"] as? String == "client.maxWait")
    }

    @Test("run: a windowed wait.p95 < 35m whose window sits at the cap fails (capped) too")
    func aWindowAtTheCapFails() throws {
        let scenario = try TemporaryScenario(
            Self.capped(thresholds: "thresholds: [ { threshold: \"wait.p95 < 35m\", over: 5m } ]"))
        let out = RunCommandProcess.reportDirectory()
        defer { try? FileManager.default.removeItem(atPath: out) }
        let result = try QueueSimProcess.run(
            ["run", scenario.path, "--clock", "virtual", "--out", out, "--no-progress"], limit: .seconds(60))
        #expect(result.status == 1, "\(result.stdout)\n\(result.stderr)")
        #expect(
            result.stdout.contains("| ≥ 30m 0s in 1501s..1801s (capped by client.maxWait) | FAIL (capped)"),
            "\(result.stdout)")
    }

    @Test("run: a lower bound still proves >=: wait.p95 >= 20m on a capped 30m passes")
    func aCappedFigureProvesALowerLimit() throws {
        let scenario = try TemporaryScenario(Self.capped(thresholds: "thresholds: [ \"wait.p95 >= 20m\" ]"))
        let out = RunCommandProcess.reportDirectory()
        defer { try? FileManager.default.removeItem(atPath: out) }
        let result = try QueueSimProcess.run(
            ["run", scenario.path, "--clock", "virtual", "--out", out, "--no-progress"], limit: .seconds(60))
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
    }

    @Test("sweep: the capped point does not meet wait.p95 < 35m and is marked capped in csv, json and html")
    func sweepMarksCappedPoints() async throws {
        let scenario = try TemporaryScenario(Self.capped(thresholds: ""))
        let out = RunCommandProcess.reportDirectory()
        defer { try? FileManager.default.removeItem(atPath: out) }
        let result = try await QueueSimProcess.runOffPool(
            [
                "sweep", scenario.path, "--out", out, "--no-progress", "--vary", "waitingRoom.outflow=25/min,50/min",
                "--goal", "wait.p95 < 35m", "--minimize", "waitingRoom.outflow",
            ], limit: .seconds(120))
        #expect(result.status == 0, "\(result.stderr)")
        // 25/min is capped (not met); 50/min serves everyone within 20 minutes.
        #expect(result.stdout.contains(": 50/min"), "\(result.stdout)")
        let json = try Self.json(out)
        let points = try #require(json["points"] as? [[String: Any]])
        #expect(points[0]["meets_goals"] as? Bool == false)
        #expect(points[0]["capped"] as? [String] == ["wait_p95_ms"])
        let figures = try #require(points[0]["figures"] as? [String: [String: Any]])
        #expect(figures["wait_p95_ms"]?["capped_by"] as? String == "client.maxWait")
        #expect(points[1]["meets_goals"] as? Bool == true)
        #expect(points[1]["capped"] as? [String] == [])

        let csv = try String(contentsOfFile: out + "/sweep.csv", encoding: .utf8)
        let lines = csv.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        let capped = try #require(lines[0].firstIndex(of: "capped"))
        let pointRows = lines.filter { $0.first == "point" }
        #expect(pointRows.map { String($0[capped]) } == ["yes", "no"], "\(csv)")
        let page = try String(contentsOfFile: out + "/sweep.html", encoding: .utf8)
        #expect(page.contains("≥ 30m"), "the capped mean is shown as a lower bound")
        #expect(page.contains("capped by client.maxWait"))
    }

    @Test("sweep without --goal judges by the scenario's thresholds and says so")
    func sweepTakesTheThresholdsAsGoals() async throws {
        let scenario = try TemporaryScenario(Self.capped())
        let out = RunCommandProcess.reportDirectory()
        defer { try? FileManager.default.removeItem(atPath: out) }
        let result = try await QueueSimProcess.runOffPool(
            [
                "sweep", scenario.path, "--out", out, "--no-progress", "--vary", "waitingRoom.outflow=25/min,50/min",
                "--minimize", "waitingRoom.outflow",
            ], limit: .seconds(120))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "no --goal given: every point is judged by the scenario's thresholds (wait.p95 < 35m)"),
            "\(result.stderr)")
        #expect(try Self.json(out)["goals"] as? [String] == ["wait.p95 < 35m"])
        #expect(result.stdout.contains(": 50/min"), "\(result.stdout)")
    }

    @Test("sweep with neither --goal nor thresholds: exit 2 before any run, nothing written")
    func sweepWithoutAQuestionIsRefused() async throws {
        let scenario = try TemporaryScenario(Self.capped(thresholds: ""))
        let out = RunCommandProcess.reportDirectory()
        defer { try? FileManager.default.removeItem(atPath: out) }
        let result = try await QueueSimProcess.runOffPool(
            ["sweep", scenario.path, "--out", out, "--no-progress", "--vary", "waitingRoom.outflow=25/min,50/min"],
            limit: .seconds(60))
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains("sweep needs a question: give --goal"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test("sweep: a bare outflow warns as run does, and the answer carries /s")
    func sweepWarnsOfARateWithoutAUnit() async throws {
        let scenario = try TemporaryScenario(Self.capped(outflow: "1", thresholds: ""))
        let out = RunCommandProcess.reportDirectory()
        defer { try? FileManager.default.removeItem(atPath: out) }
        let result = try await QueueSimProcess.runOffPool(
            [
                "sweep", scenario.path, "--out", out, "--no-progress", "--vary", "waitingRoom.outflow=1,2,3",
                "--goal", "wait.p95 < 10m", "--minimize", "waitingRoom.outflow",
            ], limit: .seconds(120))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "--vary waitingRoom.outflow=1:1:21: warning: `waitingRoom.outflow: 1` has no unit, so it is read as 1/s (60/min)"
            ), "\(result.stderr)")
        #expect(result.stderr.contains("(and 2 more of its values)"), "\(result.stderr)")
        // The scenario's own outflow is never run (every point sets its own): no warning for it.
        #expect(!result.stderr.contains("\(scenario.path):7"), "\(result.stderr)")
        // 1,000 at 2/s (120/min) take 8m20s: p95 7m55s; at 1/s the p95 is 15m50s.
        #expect(result.stdout.contains(": 2/s"), "\(result.stdout)")
    }

    @Test("sweep: a bare outflow given with --set warns at the --set")
    func sweepWarnsOfASetRateWithoutAUnit() async throws {
        let scenario = try TemporaryScenario(Self.capped(thresholds: ""))
        let out = RunCommandProcess.reportDirectory()
        defer { try? FileManager.default.removeItem(atPath: out) }
        let result = try await QueueSimProcess.runOffPool(
            [
                "sweep", scenario.path, "--out", out, "--no-progress", "--vary", "arrivals.scale=0.5,1",
                "--goal", "wait.p95 < 10m", "--set", "waitingRoom.outflow=3",
            ], limit: .seconds(120))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "--set waitingRoom.outflow=3:1:21: warning: `waitingRoom.outflow: 3` has no unit, so it is read as 3/s"),
            "\(result.stderr)")
    }
}
