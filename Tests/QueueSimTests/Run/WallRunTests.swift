import Foundation
import QueueClientCore
import Synchronization
import Testing

@testable import QueueSim

/// The wall-clock runner against the embedded room on loopback: real sockets, real time, tiny
/// scenarios that finish in a few seconds.
@Suite("wall run against the embedded room", .serialized, .timeLimit(.minutes(1)))
struct WallRunTests {
    static func scenario(arrivals: String, room: String, run: String = "{}") -> String {
        """
        version: 1
        name: wall
        seed: 3
        target: { customerId: acme, waitingRoomId: launch }
        client: { pollInterval: 200ms, maxWait: 1m, requestTimeout: 5s }
        arrivals: \(arrivals)
        visitors: [ { name: app } ]
        waitingRoom: \(room)
        run: \(run)
        """
    }

    @Test("20 visitors through a fast queue all pass with a valid token")
    func everyonePasses() async throws {
        let yaml = Self.scenario(
            arrivals: "{ phases: [ { duration: 1s, rate: 20 } ] }", room: "{ mode: queue, outflow: 6000/min }")
        let started = ContinuousClock.now
        let reports = try await RunFixture.wall(yaml)
        #expect(ContinuousClock.now - started < .seconds(30))
        reports.expectContract(arrivals: 20)
        #expect(reports.outcomes == ["passed": 20])
        #expect(reports.report.exitStatus == .success)
        #expect(Set(reports.visitors.column("token")) == ["present"], "tokens validate against the room's secret")
        for row in reports.visitors.rows {
            #expect(row["redirect_type"] == "queue")
            #expect(row["attempts"] == "1")
            #expect(row.int("polls")! >= 1)
            // Open model: nobody starts before its intended arrival (the gap after it depends on
            // the machine's load, so it is not bounded here).
            #expect(row.int("start_ms")! >= row.int("arrival_ms")!)
        }
        #expect(reports.manifest["clock"] as? String == "wall")
    }

    @Test("stopped after a second: exit 130, and every visitor whose arrival had come has a row")
    func interruptedBySignal() async throws {
        // 100/s for 10 s into a queue that releases nobody before its event start.
        let yaml = Self.scenario(
            arrivals: "{ phases: [ { duration: 10s, rate: 100 } ] }",
            room: "{ mode: queue, eventStart: 1h, outflow: 600/min }")
        let before = ContinuousClock.now
        let stoppedAfter = LockedBox<Duration?>(nil)
        let reports = try await RunFixture.wall(yaml) { stop, progress in
            // The run's origin comes after the room has started, which a loaded machine makes
            // late: count the second from the first arrival the run publishes (bounded wait).
            for _ in 0..<1000 where progress.snapshot(at: .origin).arrived == 0 {
                try? await Task.sleep(for: .milliseconds(10))
            }
            try? await Task.sleep(for: .seconds(1))
            stop.stop(.interrupted)
            stoppedAfter.set(ContinuousClock.now - before)
        }
        #expect(reports.report.exitStatus == .interrupted)
        let rows = reports.visitors.rows
        reports.expectContract(arrivals: rows.count)
        #expect(reports.outcomes == ["interrupted": rows.count])
        // Uniform arrivals at 5 ms, 15 ms, 25 ms, … from the run's origin, which lies after
        // `before`: the stop came at least 1 s after the first arrival was published (100
        // arrivals due) and at most `stoppedAfter` after the origin.
        let upperBound = try #require(stoppedAfter.value)
        #expect(rows.count >= 100)
        #expect(rows.count <= Int((upperBound - .milliseconds(5)) / .milliseconds(10)) + 1)
    }

    @Test("run.duration ends while visitors wait: `queued`, total_ms at the deadline")
    func queuedAtRunEnd() async throws {
        let yaml = Self.scenario(
            arrivals: "{ phases: [ { burst: 15 } ] }", room: "{ mode: queue, outflow: 1/min }",
            run: "{ duration: 2s }")
        let reports = try await RunFixture.wall(yaml)
        reports.expectContract(arrivals: 15)
        #expect(reports.report.exitStatus == .success)
        // One place a minute: the first passes at once, everyone else is still in line at 2 s.
        #expect(reports.outcomes == ["passed": 1, "queued": 14])
        for row in reports.visitors.rows where row["outcome"] == "queued" {
            // Stopped at the deadline; on the wall clock the stop reaches each task a little later.
            #expect(row.int("total_ms")! >= 2000 && row.int("total_ms")! < 2500)
            #expect(row["token"] == "absent")
            #expect(row.int("polls")! >= 1)
        }
    }
}
