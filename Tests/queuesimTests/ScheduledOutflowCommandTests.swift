import Foundation
import Testing

/// Issue 30: a scheduled outflow as `validate`, run.json and report.html show it.
@Suite("queuesim: a scheduled outflow", .serialized, .timeLimit(.minutes(2)))
struct ScheduledOutflowCommandTests {
    static let yaml = """
        version: 1
        name: raise
        clock: virtual
        target: { customerId: acme, waitingRoomId: launch }
        client: { pollInterval: 1s }
        arrivals: { phases: [ { burst: 30 } ] }
        waitingRoom:
          outflow:
            - { at: 0s, rate: 30/min }
            - { at: 20s, rate: 60/min }
        """

    @Test func validateNamesEveryRate() throws {
        let file = try TemporaryScenario(Self.yaml)
        let result = try QueueSimProcess.run(["validate", file.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout.contains("outflow 30/min (0.5/s), 60/min from 20s, event start at 0s"), "\(result.stdout)")
    }

    @Test func theRunRecordsTheScheduleAndThePageShowsIt() throws {
        let file = try TemporaryScenario(Self.yaml)
        let out = RunCommandProcess.reportDirectory()
        defer { try? FileManager.default.removeItem(atPath: out) }
        let result = try RunCommandProcess.run(["run", file.path, "--out", out, "--quiet"])
        #expect(result.status == 0, "\(result.stderr)")
        let data = try Data(contentsOf: URL(fileURLWithPath: out + "/run.json"))
        let manifest = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let configuration = try #require(manifest["configuration"] as? [String: Any])
        let room = try #require(configuration["room"] as? [String: Any])
        let schedule = try #require(room["outflow_schedule"] as? [[String: Any]])
        #expect(schedule.map { $0["at_ms"] as? Int } == [0, 20_000])
        #expect(schedule.map { $0["per_minute"] as? Double } == [30, 60])
        #expect(room["outflow_per_minute"] as? Double == 30)
        let marks = try #require(manifest["timeline_marks"] as? [[String: Any]])
        #expect(marks.contains { $0["label"] as? String == "outflow 60/min" && $0["from_ms"] as? Int == 20_000 })
        let page = try String(contentsOfFile: out + "/report.html", encoding: .utf8)
        #expect(page.contains("<dt>outflow (scheduled)</dt><dd>30/min, 60/min from 20s</dd>"))
        // 10 released at 30/min by 18 s, the other 20 at 60/min: the last passes at 39 s.
        let (header, rows) = try RunCommandProcess.rows(out, "visitors.csv")
        let wait = try #require(header.firstIndex(of: "wait_ms"))
        #expect(rows.compactMap { Int($0[wait]) }.max() == 39_000)
    }
}
