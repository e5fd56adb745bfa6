import Foundation
import Testing

/// `queuesim run` and `validate` with visitors who give up, come back and shop: the end screen,
/// the exit code of an `abandoned` threshold, and a bad value refused with its position.
@Suite("queuesim run: patience, comeback, afterPass", .serialized, .timeLimit(.minutes(2)))
struct BehaviourCommandTests {
    static let yaml = """
        version: 1
        name: behaviour
        seed: 5
        target: { customerId: acme, waitingRoomId: launch }
        arrivals: { phases: [ { burst: 20 } ] }
        visitors:
          - name: app
            patience: { fixed: 4500ms }
            comeback: { share: 100%, after: { fixed: 10s } }
            afterPass: { calls: 2, thinkTime: { fixed: 1s } }
        waitingRoom: { outflow: 60/min }
        thresholds: [ "abandoned < 5%" ]
        """

    @Test("an `abandoned` threshold that fails: exit 1; the end screen shows comebacks and the shop's load")
    func endScreen() throws {
        let scenario = try TemporaryScenario(Self.yaml)
        let out = RunCommandProcess.reportDirectory()
        defer { try? FileManager.default.removeItem(atPath: out) }
        let junit = out + ".junit.xml"
        defer { try? FileManager.default.removeItem(atPath: junit) }
        let result = try RunCommandProcess.run([
            "run", scenario.path, "--clock", "virtual", "--out", out, "--junit", junit,
        ])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stdout.contains("abandoned       15     75%"), "\(result.stdout)")
        #expect(result.stdout.contains("comebacks: 15 (visitors who reopened the app)"))
        // Five passed, one a second from 0 s, each with two calls 1 s apart: the first is two
        // requests (the connector's 302), the second one. In second 2: visitor 1's first call and
        // visitor 0's second.
        #expect(result.stdout.contains("behind the queue: 15 after-pass requests, peak 3/s in second 2"))
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(xml.contains("<property name=\"abandoned_share\" value=\"0.75\"/>"))
        #expect(xml.contains("<property name=\"after_pass_peak_requests_per_second\" value=\"3\"/>"))
        #expect(xml.contains("abandoned &lt; 5%"), "the threshold is a test case")
        let (header, rows) = try RunCommandProcess.rows(out, "visitors.csv")
        #expect(header.last == "comebacks")
        #expect(rows.count == 20)
    }

    @Test("validate: a bad patience is refused with its file, line and column (exit 2)")
    func badPatience() throws {
        let scenario = try TemporaryScenario(
            Self.yaml.replacingOccurrences(of: "{ fixed: 4500ms }", with: "{ fixd: 4500ms }"))
        let result = try RunCommandProcess.run(["validate", scenario.path])
        #expect(result.status == 2)
        #expect(
            result.stderr.contains(
                "\(scenario.path):8:17: unknown key `fixd` in `visitors[0].patience`; expected `mean`, `fixed`, `lognormal`, `csv`, `column`; did you mean `fixed`?"
            ), "\(result.stderr)")
    }
}
