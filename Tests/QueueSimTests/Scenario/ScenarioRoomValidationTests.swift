import Foundation
import Testing

@testable import QueueSim

/// Validation of the embedded room's settings, faults and thresholds, with exact positions.
@Suite("Scenario validation: room, faults and thresholds")
struct ScenarioRoomValidationTests {
    let minimal = ScenarioTestSupport.minimal
    func problems(_ yaml: String, environment: [String: String] = [:]) -> [String] {
        ScenarioTestSupport.problems(yaml, environment: environment)
    }

    @Test func faultsNeedExactlyOneEffect() throws {
        let yaml =
            minimal + """
                waitingRoom:
                  faults:
                    - { from: 30s, to: 40s, endpoint: enqueue, status: 503, rate: 50% }
                    - { from: 60s, mode: disabled }
                    - { from: 1s, to: 2s, endpoint: queuePage, latency: 2s, jitter: 500ms }
                    - { reset: true, rate: 0.1 }
                    - { timeout: true, endpoint: protectedApi }
                    - { malformed: true }
                    - { navigate: restartSession, rate: 5% }
                """
        let faults = try ScenarioTestSupport.load(yaml).waitingRoom?.faults
        #expect(
            faults == [
                FaultRule(from: .seconds(30), to: .seconds(40), endpoint: .enqueue, rate: 0.5, effect: .status(503)),
                FaultRule(from: .seconds(60), effect: .mode(.disabled)),
                FaultRule(
                    from: .seconds(1), to: .seconds(2), endpoint: .queuePage,
                    effect: .latency(.seconds(2), jitter: .milliseconds(500))),
                FaultRule(rate: 0.1, effect: .reset),
                FaultRule(endpoint: .protectedApi, effect: .timeout),
                FaultRule(effect: .malformedBody),
                FaultRule(endpoint: .queuePage, rate: 0.05, effect: .navigate(.restartSession)),
            ])
        let bad =
            minimal + """
                waitingRoom:
                  faults:
                    - { from: 30s, to: 40s }
                    - { status: 503, latency: 1s }
                    - { from: 40s, to: 30s, status: 700 }
                    - { reset: false }
                    - { navigate: close, endpoint: enqueue }
                    - { mode: disabled, rate: 50% }
                    - { status: 500, jitter: 1s }
                """
        #expect(
            problems(bad) == [
                "10:7: waitingRoom.faults[0] needs exactly one effect (status, latency, reset, timeout, malformed, navigate or mode), found none",
                "11:7: waitingRoom.faults[1] needs exactly one effect (status, latency, reset, timeout, malformed, navigate or mode), found `status` and `latency`",
                "12:24: `waitingRoom.faults[2].to` must be later than `from` (40s), found 30s",
                "12:37: `waitingRoom.faults[2].status` must be an HTTP status from 100 to 599, such as 503, found 700",
                "13:16: `waitingRoom.faults[3].reset` is an effect: write `reset: true` or remove the fault",
                "14:36: `waitingRoom.faults[4].navigate` acts on the queue page: expected `endpoint: queuePage`, found `enqueue`",
                "15:31: a `mode` fault switches the whole room; `rate` does not apply, remove it",
                "16:30: `waitingRoom.faults[6].jitter` goes with `latency`; this fault has none",
            ])
    }

    @Test func waitingRoomSettingsAreRead() throws {
        let yaml =
            minimal + """
                waitingRoom:
                  mode: safetynet
                  eventStart: 1m
                  outflow: 600/min
                  secretKey: ${ROOM_SECRET:-dev}
                  tokenValidity: 90s
                  inviteOnly: true
                  enqueueKeys: { csv: keys.csv, column: key }
                  latency: { enqueue: 20ms, queuePage: 10ms, protectedApi: 5ms, jitter: 5ms }
                """
        let room = try #require(
            try ScenarioTestSupport.load(yaml, environment: ["ROOM_SECRET": "from-env"]).waitingRoom)
        #expect(room.mode == .safetynet)
        #expect(room.eventStart == .seconds(60))
        #expect(room.outflowPerSecond == 10)
        #expect(room.secretKey == "from-env")
        #expect(room.tokenValidity == .seconds(90))
        #expect(room.inviteOnly)
        #expect(room.enqueueKeys == CSVFeeder(path: ScenarioTestSupport.fixtures + "/keys.csv", column: "key"))
        #expect(
            room.latency
                == LatencySettings(
                    enqueue: .milliseconds(20), queuePage: .milliseconds(10), protectedApi: .milliseconds(5),
                    jitter: .milliseconds(5)))
        #expect(
            problems(yaml.replacingFirst("inviteOnly: true", with: "inviteOnly: yes")) == [
                "14:15: expected true or false for `waitingRoom.inviteOnly`, found `yes`"
            ])
    }

    @Test func thresholdsPointAtTheBadWord() throws {
        let yaml =
            minimal + """
                thresholds:
                  - passed >= 99%
                  - wait.p95 < 5m
                  - passed.count > 10
                  - visitors == 50
                  - enqueue.p99.9 <= 300ms
                  - passd >= 99%
                  - wait.p95 < 5 minutes
                  - error => 1%
                  - error < 120%
                  - "total.max"
                  - { a: 1 }
                """
        #expect(
            problems(yaml) == [
                "14:5: unknown metric `passd`; did you mean `passed`?",
                "15:16: `wait.p95` is compared with a duration such as 300ms, 2s or 5m, found `5 minutes`",
                "16:11: `=>` is not an operator; expected <, <=, >, >=, == or !=",
                "17:13: `error` is compared with a share from 0% to 100% such as 99% or 0.99, found `120%`",
                "18:6: a threshold reads METRIC OPERATOR VALUE, such as `passed >= 99%` or `wait.p95 < 5m`; no comparison operator (<, <=, >, >=, ==, !=) in \"total.max\"",
                "19:7: a threshold for one group reads `- GROUP: METRIC OPERATOR VALUE`, but `a` is not one of the scenario's groups (`default`)",
            ])
        let thresholds = try ScenarioTestSupport.load(
            minimal
                + "thresholds:\n  - passed >= 99%\n  - wait.p95 < 5m\n  - passed.count > 10\n  - visitors == 50\n  - enqueue.p99.9 <= 300ms\n"
        ).thresholds
        #expect(
            thresholds == [
                Threshold(
                    metric: .outcomeRatio(.passed), comparator: .greaterOrEqual, limit: 0.99, source: "passed >= 99%"),
                Threshold(
                    metric: .timing(.wait, .percentile(95)), comparator: .lessThan, limit: 300_000,
                    source: "wait.p95 < 5m"),
                Threshold(
                    metric: .outcomeCount(.passed), comparator: .greaterThan, limit: 10, source: "passed.count > 10"),
                Threshold(metric: .visitorCount, comparator: .equal, limit: 50, source: "visitors == 50"),
                Threshold(
                    metric: .timing(.enqueue, .percentile(99.9)), comparator: .lessOrEqual, limit: 300,
                    source: "enqueue.p99.9 <= 300ms"),
            ])
    }
}
