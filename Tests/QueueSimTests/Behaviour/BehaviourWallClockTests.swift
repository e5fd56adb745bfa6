import Foundation
import Testing

@testable import QueueSim

/// The same behaviour on the wall clock, through the same engine code, against the embedded
/// room on 127.0.0.1: give-ups, a comeback and after-pass calls in a few seconds of real time.
@Suite("patience, comeback, afterPass on the wall clock", .timeLimit(.minutes(1)))
struct BehaviourWallClockTests {
    /// Ten visitors at once, one turn a second, patience 2.5 s: visitors 0–2 pass (their turns at
    /// 0, 1 and 2 s leave half a second of margin), the other seven give up at 2.5 s, reopen the
    /// app 1 s later (turns 10–16, from 10 s), and give up for good at 6 s. Each visitor who
    /// passed calls the protected API twice, 500 ms apart (the first call is two requests: the
    /// connector's 302 that strips the token, then the page).
    @Test("give-ups, a comeback and after-pass calls in real time")
    func wallClock() async throws {
        let yaml = """
            version: 1
            name: behaviour-wall
            seed: 9
            clock: wall
            target: { customerId: acme, waitingRoomId: launch }
            arrivals: { phases: [ { burst: 10 } ] }
            visitors:
              - name: app
                patience: { fixed: 2500ms }
                comeback: { share: 100%, after: { fixed: 1s } }
                afterPass: { calls: 2, thinkTime: { fixed: 500ms } }
            waitingRoom:
              outflow: 60/min
              latency: { enqueue: 0s, queuePage: 0s, protectedApi: 0s, jitter: 0s }
            """
        let (report, directory) = try await VirtualRun.runOnWallClock(yaml)
        // On a quiet machine: 3 pass, 7 give up. A loaded one (timers late by more than the half
        // second of margin) may shift one visitor; what must hold whatever the lag follows.
        let passed = report.outcomeCounts[.passed] ?? 0
        let abandoned = report.outcomeCounts[.abandoned] ?? 0
        #expect(passed + abandoned == 10)
        #expect((2...4).contains(passed), "passed \(passed)")
        // Everyone who gave up came back once (share 100 %, max 1), and gave up again: the new
        // turns come at 10 s and later, long after the new patience runs out.
        #expect(report.behaviour.comebacks == abandoned)
        // Two calls per visitor who passed; the first is two requests (the connector's 302).
        #expect(report.behaviour.afterPassRequests == 3 * passed)
        for row in try VirtualRun.visitors(directory) where row.outcome == "abandoned" {
            #expect(row.cells["comebacks"] == "1")
            #expect(row.cells["attempts"] == "2")
            // The last stay: from landing on the queue page to closing the app, 2.5 s of real
            // time (a timer fires late, never early).
            #expect(row.waitMs >= 2500 && row.waitMs < 3500, "wait_ms \(row.waitMs)")
        }
    }
}
