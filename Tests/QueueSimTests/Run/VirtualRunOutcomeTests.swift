import Foundation
import QueueClientCore
import Testing

@testable import QueueSim

/// End to end on the virtual clock: a scenario in, the client core against the embedded room's
/// service, the reports out. Each test reaches one outcome and checks the columns the client
/// core's decision implies, with timings exact on the simulated clock.
@Suite("virtual run: every outcome", .timeLimit(.minutes(1)))
struct VirtualRunOutcomeTests {
    /// Ten visitors at once, a room with no latency; tests add `client`, `waitingRoom`, `run`.
    static func scenario(
        client: String = "{ pollInterval: 1s, maxWait: 10m }", room: String, run: String = "{}",
        visitors: String = "[ { name: app } ]", burst: Int = 10
    ) -> String {
        """
        version: 1
        name: outcome
        seed: 7
        target: { customerId: acme, waitingRoomId: launch }
        client: \(client)
        arrivals: { phases: [ { burst: \(burst) } ] }
        visitors: \(visitors)
        waitingRoom: \(room)
        run: \(run)
        """
    }

    @Test("passed through the queue: one poll or more, a valid token, FIFO waits at the outflow")
    func passedThroughTheQueue() throws {
        let reports = try RunFixture.virtual(Self.scenario(room: "{ mode: queue, outflow: 600/min }"))
        reports.expectContract(arrivals: 10)
        #expect(reports.outcomes == ["passed": 10])
        #expect(reports.report.exitStatus == .success)
        for row in reports.visitors.rows {
            #expect(row["redirect_type"] == "queue")
            #expect(row["token"] == "present")
            #expect(row["attempts"] == "1")
            #expect(row.int("polls")! >= 1)
            #expect(row["http_status"] == "302")
            #expect(row["enqueue_ms"] == "0")
            #expect(row["queue_id"]?.isEmpty == false)
        }
        // 600/min releases one place every 100 ms: the tenth visitor cannot pass before 900 ms,
        // and polling on Retry-After (whole seconds) brings it in at most a second later.
        let waits = reports.visitors.column("wait_ms").compactMap(Int.init)
        #expect(waits.count == 10)
        #expect(waits.max()! >= 900 && waits.max()! <= 1900)
        #expect(waits.first == 0, "the first visitor meets an empty queue and passes on its first poll")
    }

    @Test("passed by safetynet: arrivals within the outflow pass at once; above it they queue")
    func passedBySafetynet() throws {
        let reports = try RunFixture.virtual(
            Self.scenario(room: "{ mode: safetynet, outflow: 10/min }", burst: 14))
        reports.expectContract(arrivals: 14)
        #expect(reports.outcomes == ["passed": 14])
        let rows = reports.visitors.rows
        // The first ten fit in the trailing minute's outflow: straight through, no queue page.
        for row in rows.prefix(10) {
            #expect(row["redirect_type"] == "safetynet")
            #expect(row["polls"] == "0")
            #expect(row["wait_ms"] == "0")
            #expect(row["token"] == "present")
            #expect(row["http_status"] == "200")
        }
        for row in rows.dropFirst(10) {
            #expect(row["redirect_type"] == "queue")
            #expect(row.int("polls")! >= 1)
        }
    }

    @Test(
        "disabled, idle and afterevent rooms end `disabled` with that redirect type",
        arguments: [
            "disabled", "idle", "afterevent",
        ])
    func disabledModes(mode: String) throws {
        let reports = try RunFixture.virtual(
            Self.scenario(room: "{ mode: \(mode), latency: { enqueue: 20ms } }"), label: "disabled\(mode)")
        reports.expectContract(arrivals: 10)
        #expect(reports.outcomes == ["disabled": 10])
        for row in reports.visitors.rows {
            #expect(row["redirect_type"] == mode)
            #expect(row["attempts"] == "1")
            #expect(row["polls"] == "0")
            #expect(row["enqueue_ms"] == "20")
            #expect(row["wait_ms"] == "0")
            #expect(row["total_ms"] == "20")
        }
        #expect(reports.timeline.rows.first?["disabled"] == "10")
    }

    @Test("queued when client.maxWait runs out in the queue")
    func queuedAfterMaxWait() throws {
        let reports = try RunFixture.virtual(
            Self.scenario(
                client: "{ pollInterval: 5s, maxWait: 30s }", room: "{ mode: queue, outflow: 1/min }"))
        reports.expectContract(arrivals: 10)
        // One place a minute: the first visitor meets an empty queue, the rest outwait maxWait.
        #expect(reports.outcomes == ["passed": 1, "queued": 9])
        let queued = reports.visitors.rows.filter { $0["outcome"] == "queued" }
        for row in queued {
            #expect(row["redirect_type"] == "queue")
            #expect(row["token"] == "absent")
            #expect(row["wait_ms"] == "30000", "maxWait counts from queue entry, to the millisecond")
            // Retry-After is capped at 30 s and the turn is minutes away: the one poll at queue
            // entry, then maxWait runs out at the instant the second would go.
            #expect(row["polls"] == "1")
        }
        #expect(reports.report.exitStatus == .success)
    }

    @Test("queued when run.duration ends while in the queue; total_ms ends at the deadline")
    func queuedAtRunEnd() throws {
        let reports = try RunFixture.virtual(
            Self.scenario(room: "{ mode: queue, outflow: 1/min, latency: { enqueue: 40ms } }", run: "{ duration: 20s }")
        )
        reports.expectContract(arrivals: 10)
        #expect(reports.outcomes == ["passed": 1, "queued": 9])
        for row in reports.visitors.rows.dropFirst() {
            #expect(row["outcome"] == "queued")
            #expect(row["enqueue_ms"] == "40")
            #expect(row["wait_ms"] == "19960")
            #expect(row["total_ms"] == "20000")
        }
        #expect(reports.manifest["duration_ms"] as? Int == 20_000)
        #expect(reports.timeline.rows.count == 20)
    }

    @Test("unavailable: 503 on every enqueue → 5 attempts over 1+2+4+8 s of back-off")
    func unavailableAfterRetries() throws {
        let room = """
            { mode: queue, latency: { enqueue: 20ms },
              faults: [ { from: 0s, endpoint: enqueue, status: 503, rate: 100% } ] }
            """
        let reports = try RunFixture.virtual(Self.scenario(room: room))
        reports.expectContract(arrivals: 10)
        #expect(reports.outcomes == ["unavailable": 10])
        for row in reports.visitors.rows {
            #expect(row["attempts"] == "5")
            #expect(row["http_status"] == "503")
            #expect(row["redirect_type"] == "")
            #expect(row["polls"] == "0")
            #expect(row["error"]?.isEmpty == false)
            #expect(row["enqueue_ms"] == "15100", "5 × 20 ms latency + 15 s of back-off")
            #expect(row["queue_id"] == "", "a faulted request never reaches the room: no queue id")
            #expect(row["token"] == "absent")
        }
        #expect(reports.timeline.rows[15]["unavailable"] == "10")
    }

    @Test("interrupted by run.duration while the enqueue is still retrying: enqueue_ms empty")
    func interruptedMidRetryAtRunEnd() throws {
        let room = "{ mode: queue, faults: [ { from: 0s, endpoint: enqueue, status: 503, rate: 100% } ] }"
        let reports = try RunFixture.virtual(Self.scenario(room: room, run: "{ duration: 5s }"))
        reports.expectContract(arrivals: 10)
        #expect(reports.outcomes == ["interrupted": 10])
        // Attempts at 0, 1 s and 3 s had happened; the next would be at 7 s.
        #expect(Set(reports.visitors.column("attempts")) == ["3"])
        #expect(Set(reports.visitors.column("enqueue_ms")) == [""])
        #expect(reports.report.exitStatus == .success, "run.duration is a normal end, not SIGINT")
    }

    @Test("error: an invite-only room refuses a forged enqueue key with 403, and the key stays out of the reports")
    func errorOnForgedKey() throws {
        let reports = try RunFixture.virtual(
            Self.scenario(
                room: "{ mode: queue, inviteOnly: true, latency: { enqueue: 30ms } }",
                visitors: "[ { name: forged, enqueueKey: FORGED-KEY-0001 } ]"))
        reports.expectContract(arrivals: 10)
        #expect(reports.outcomes == ["error": 10])
        for row in reports.visitors.rows {
            #expect(row["http_status"] == "403")
            #expect(row["attempts"] == "1")
            #expect(row["enqueue_ms"] == "30")
            #expect(row["error"]?.isEmpty == false)
            #expect(row["queue_id"] == "")
        }
        let csv = try String(contentsOfFile: reports.directory + "/visitors.csv", encoding: .utf8)
        #expect(!csv.contains("FORGED-KEY-0001"))
    }

    @Test("closed: the queue page navigates to queueit://close")
    func closedByTheQueuePage() throws {
        let room = "{ mode: queue, outflow: 1/min, faults: [ { from: 0s, endpoint: queuePage, navigate: close } ] }"
        let reports = try RunFixture.virtual(Self.scenario(room: room))
        reports.expectContract(arrivals: 10)
        #expect(reports.outcomes == ["closed": 10])
        for row in reports.visitors.rows {
            #expect(row["polls"] == "1")
            #expect(row["attempts"] == "1")
            #expect(row["restarts"] == "0")
            #expect(row["token"] == "absent")
            #expect(row["http_status"] == "302")
        }
    }

    @Test("restarted: restartSession more often than maxRestarts; each allowed restart enqueues again")
    func restartedBeyondMaxRestarts() throws {
        let room = """
            { mode: queue, outflow: 1/min, faults: [ { from: 0s, endpoint: queuePage, navigate: restartSession } ] }
            """
        let reports = try RunFixture.virtual(
            Self.scenario(client: "{ pollInterval: 1s, maxWait: 10m, maxRestarts: 2 }", room: room))
        reports.expectContract(arrivals: 10)
        #expect(reports.outcomes == ["restarted": 10])
        for row in reports.visitors.rows {
            #expect(row["attempts"] == "3", "the first run and two restarts each enqueue once")
            #expect(row["polls"] == "3")
            // Every restartSession navigation counts, the refused third one included.
            #expect(row["restarts"] == "3")
        }
    }

    @Test("interrupted: a stop signal ends everyone in flight; visitors not yet arrived get no row")
    func interruptedByTheStopSignal() throws {
        let stop = RunStopSignal()
        stop.stop(.interrupted)
        // The virtual loop looks at the signal every 16,384 events. Arrivals count as events
        // and go before responses at the same instant, so the burst is cut after exactly that
        // many arrivals, none of which has had an answer.
        let reports = try RunFixture.virtual(
            Self.scenario(room: "{ mode: queue, latency: { enqueue: 10ms } }", burst: 20_000), stopSignal: stop)
        let arrived = VirtualClockRunner.publishEvery
        reports.expectContract(arrivals: arrived)
        #expect(reports.outcomes == ["interrupted": arrived])
        #expect(Set(reports.visitors.column("enqueue_ms")) == [""])
        #expect(reports.report.exitStatus == .interrupted)
        #expect(reports.manifest["interrupted"] as? Bool == true)
        #expect(reports.manifest["exit_code"] as? Int == 130)
    }

    @Test("a failing threshold: exit status 1, and the reports are written with the verdict")
    func failingThreshold() throws {
        let yaml =
            Self.scenario(room: "{ mode: disabled }")
            + "\nthresholds: [ \"passed >= 50%\", \"disabled.count <= 10\" ]\n"
        let reports = try RunFixture.virtual(yaml)
        reports.expectContract(arrivals: 10)
        #expect(reports.report.exitStatus == .thresholdFailed)
        #expect(reports.report.verdicts.map(\.passed) == [false, true])
        #expect(reports.manifest["exit_code"] as? Int == 1)
    }
}
