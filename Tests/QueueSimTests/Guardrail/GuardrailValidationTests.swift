import Foundation
import QueueClientCore
import Testing

@testable import QueueSim

/// Windowed thresholds as a scenario writes them: what they become, and every mistake at the
/// position users will see.
@Suite("Guardrails: reading windowed thresholds")
struct GuardrailValidationTests {
    let minimal = ScenarioTestSupport.minimal

    func problems(_ thresholds: String) -> [String] {
        ScenarioTestSupport.problems(minimal + "thresholds:\n" + thresholds)
    }

    func thresholds(_ text: String, extra: String = "") throws -> [Threshold] {
        try ScenarioTestSupport.load(minimal + extra + "thresholds:\n" + text).thresholds
    }

    @Test("plain lines stay as they were; a mapping with a window becomes a windowed threshold")
    func windowedAndPlain() throws {
        let read = try thresholds(
            """
              - passed >= 99%
              - { threshold: "unavailable < 5%", over: 30s, abortOnFail: true }
              - { threshold: "wait.p95 < 2m", during: 0s..2m, group: default, minVisitors: 50 }
              - { threshold: "error.count < 10", after: 90s }

            """)
        #expect(read.count == 4)
        #expect(read[0] == (try ThresholdParser.parse("passed >= 99%").get()))
        #expect(read[0].window == nil)
        #expect(read[1].source == "unavailable < 5% over 30s")
        #expect(read[1].window == ThresholdWindow(span: .sliding(.seconds(30)), abortOnFail: true, text: "over 30s"))
        #expect(read[1].isGuardrail)
        #expect(read[2].source == "default: wait.p95 < 2m during 0s..2m")
        #expect(read[2].group == "default")
        #expect(read[2].window?.span == .during(from: .zero, to: .seconds(120)))
        #expect(read[2].window?.minVisitors == 50)
        #expect(read[2].isGuardrail == false)
        #expect(read[3].window?.span == .after(.seconds(90)))
        #expect(read[3].window?.minVisitors == ThresholdWindow.defaultMinVisitors)
    }

    @Test("after: eventStart is the embedded room's event start (whole seconds, rounded up)")
    func afterEventStart() throws {
        let read = try thresholds(
            "  - { threshold: \"passed > 90%\", after: eventStart }\n",
            extra: "waitingRoom: { eventStart: 90.5s }\n")
        #expect(read[0].window?.span == .after(.seconds(91)))
        #expect(read[0].source == "passed > 90% after eventStart")
    }

    @Test("mistakes are reported at their key or value")
    func mistakes() {
        // Lines 1-7 are the minimal scenario, line 8 `thresholds:`, the item on line 9.
        #expect(
            problems("  - { threshold: \"unavailable < 5%\", ovr: 30s }\n") == [
                "9:5: a windowed threshold needs one of `over`, `during` or `after` (\(ScenarioValidator.windowShape))",
                "9:38: unknown key `ovr` in a windowed threshold; did you mean `over`? (\(ScenarioValidator.windowShape))",
            ])
        #expect(
            problems("  - { threshold: \"unavailable < 5%\", over: 30s, during: 0s..1m }\n") == [
                "9:49: a windowed threshold takes one of `over`, `during` or `after`, found `over` and `during`"
            ])
        #expect(
            problems("  - { threshold: \"unavailable < 5%\", over: 1.5s }\n") == [
                "9:44: `over` must be a duration of whole seconds such as 30s or 5m, found `1.5s`"
            ])
        #expect(
            problems("  - { threshold: \"unavailable < 5%\", during: 2m..1m }\n") == [
                "9:46: `during` must end after it starts, found 2m..1m"
            ])
        #expect(
            problems("  - { threshold: \"unavailable < 5%\", over: 30s, abortOnFail: yes }\n")
                == ["9:62: `abortOnFail` must be true or false, found `yes`"])
        #expect(
            problems("  - { threshold: \"unavailable < 5%\", over: 30s, minVisitors: 0 }\n")
                == ["9:62: `minVisitors` must be a whole number from 1 to 1000000, found `0`"])
        #expect(
            problems("  - { threshold: \"unavailable < 5%\", over: 30s, group: partner }\n") == [
                "9:56: `group` names `partner`, but it is not one of the scenario's groups (`default`)"
            ])
        // The threshold's own words keep their column inside the quotes.
        #expect(
            problems("  - { threshold: \"unavailabel < 5%\", over: 30s }\n") == [
                "9:19: unknown metric `unavailabel`; did you mean `unavailable`?"
            ])
        #expect(
            problems("  - { over: 30s }\n") == ["9:5: missing the key `threshold` (\(ScenarioValidator.windowShape))"])
    }

    @Test("after: eventStart needs the embedded room")
    func eventStartNeedsTheRoom() {
        let yaml = """
            version: 1
            target: { customerId: acme, waitingRoomId: launch, endpoint: "https://example.com" }
            arrivals: { phases: [ { duration: 10s, rate: 5 } ] }
            thresholds:
              - { threshold: "unavailable < 5%", after: eventStart }

            """
        #expect(
            ScenarioTestSupport.problems(yaml) == [
                "5:45: `after: eventStart` needs the embedded room (its `waitingRoom.eventStart`); against a real endpoint write the instant, e.g. `after: 90s`"
            ])
    }

    @Test("run.maxRequestRate reads /s and /min; a bad one is reported at its value")
    func maxRequestRate() throws {
        let perMinute = try ScenarioTestSupport.load(minimal + "run: { maxRequestRate: 1200/min }\n")
        #expect(perMinute.run.maxRequestRate == 20)
        let perSecond = try ScenarioTestSupport.load(minimal + "run: { maxRequestRate: 2000/s }\n")
        #expect(perSecond.run.maxRequestRate == 2000)
        #expect(try ScenarioTestSupport.load(minimal).run.maxRequestRate == nil)
        #expect(
            ScenarioTestSupport.problems(minimal + "run: { maxRequestRate: 0/s }\n") == [
                "8:24: `run.maxRequestRate` must be more than 0, found 0/s"
            ])
    }

    @Test("sweep goals take no windows")
    func goalsTakeNoWindows() {
        let yaml =
            minimal + """
                clock: virtual
                sweep:
                  vary: { waitingRoom.outflow: [600/min, 1200/min] }
                  goals:
                    - { threshold: "wait.p95 < 10m", over: 30s }

                """
        #expect(
            ScenarioTestSupport.problems(yaml).contains(
                "12:7: a goal is one line such as `wait.p95 < 10m`; windows (`over`, `during`, `after`) are for `thresholds:`"
            ))
    }
}
