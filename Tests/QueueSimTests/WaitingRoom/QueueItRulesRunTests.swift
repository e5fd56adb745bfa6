import Foundation
import Logging
import Testing

@testable import QueueSim

/// Queue-number validity, max redirects per queue id and unique keys change outcomes in whole
/// runs on the virtual clock, and run.json's `room` counts what they did.
@Suite("room rules from a Queue-it event: outcomes on the virtual clock", .timeLimit(.minutes(2)))
struct QueueItRulesRunTests {
    /// Three visitors at once, one turn every 10 s (turns at 0, 10 and 20 s): the third one's
    /// turn comes inside `fault`'s window.
    static func scenario(room: String, fault: String, client: String = "") -> String {
        """
        version: 1
        name: rules
        seed: 3
        clock: virtual
        target: { customerId: acme, waitingRoomId: launch }
        client: { \(client) }
        arrivals: { phases: [ { burst: 3 } ] }
        waitingRoom:
          outflow: 6/min
          latency: { enqueue: 0s, queuePage: 0s, protectedApi: 0s, jitter: 0s }
          faults: [ \(fault) ]
        \(room)
        """
    }

    static func roomCounts(_ reports: RunReports) -> [String: Int] {
        (reports.manifest["room"] as? [String: Int]) ?? [:]
    }

    /// The queue page answers 503 from 15 s to 7 min: the third visitor, whose turn comes at
    /// 20 s, keeps polling through the outage (iOS's WebView keeps a page that loaded) and asks
    /// for its turn at 7 min. With `queueNumberValidity: 5m` the turn was lost at 5 min 20 s: the
    /// room sends it to the error page, which answers 403, and the visitor ends `error`. With
    /// 10 min it passes.
    @Test("a queue-page outage past the validity costs the turn: error, counted in turns_expired")
    func outageCostsTheTurn() throws {
        let outage = "{ from: 15s, to: 7m, endpoint: queuePage, status: 503 }"
        let lost = try RunFixture.virtual(
            Self.scenario(room: "  queueNumberValidity: 5m", fault: outage), label: "validityLost")
        lost.expectContract(arrivals: 3)
        #expect(lost.outcomes == ["passed": 2, "error": 1])
        let row = try #require(lost.visitors.rows.first { $0["outcome"] == "error" })
        #expect(row["http_status"] == "403")
        #expect(row["error"]?.contains("the queue page answered HTTP 403") == true, "\(row["error"] ?? "")")
        #expect(
            Self.roomCounts(lost) == ["turns_expired": 1, "exceeded_max_redirect_count": 0, "reused_keys_refused": 0])

        let kept = try RunFixture.virtual(
            Self.scenario(room: "  queueNumberValidity: 10m", fault: outage), label: "validityKept")
        #expect(kept.outcomes == ["passed": 3])
        #expect(Self.roomCounts(kept)["turns_expired"] == 0)
    }

    /// From 15 s to 60 s the queue page answers only after 20 s, and the client gives up on a
    /// request after 5 s: the room hands the third visitor its turn at 20 s, 27 s, 34 s, …, but
    /// the redirects never arrive and the visitor polls again. With `maxRedirectsPerQueueId: 2`
    /// the third poll is refused (`exceededmaxredirectcount`); once the answers are prompt
    /// again the visitor follows the refusal to the error page and ends `error`. With 20 it
    /// passes after the slow window.
    @Test("redirects lost on the way use up the queue id: error, counted in exceeded_max_redirect_count")
    func lostRedirectsUseUpTheQueueId() throws {
        let slow = "{ from: 15s, to: 60s, endpoint: queuePage, latency: 20s }"
        let limited = try RunFixture.virtual(
            Self.scenario(room: "  maxRedirectsPerQueueId: 2", fault: slow, client: "requestTimeout: 5s"),
            label: "redirectsLimited")
        limited.expectContract(arrivals: 3)
        #expect(limited.outcomes == ["passed": 2, "error": 1])
        #expect(Self.roomCounts(limited)["exceeded_max_redirect_count"] == 1)
        let row = try #require(limited.visitors.rows.first { $0["outcome"] == "error" })
        #expect(row["http_status"] == "403")

        let generous = try RunFixture.virtual(
            Self.scenario(room: "  maxRedirectsPerQueueId: 20", fault: slow, client: "requestTimeout: 5s"),
            label: "redirectsGenerous")
        #expect(generous.outcomes == ["passed": 3])
        #expect(Self.roomCounts(generous)["exceeded_max_redirect_count"] == 0)
    }

    /// Four visitors share a CSV of two keys (the feeder cycles: k1, k2, k1, k2). With
    /// `uniqueKeys: true` the second use of each key gets the room's 403 and the SDK's error.
    @Test("uniqueKeys: the second enqueue with a key is refused (error), counted in reused_keys_refused")
    func uniqueKeysRefuseReuse() throws {
        func scenario(unique: Bool) -> String {
            """
            version: 1
            name: keys
            seed: 3
            clock: virtual
            target: { customerId: acme, waitingRoomId: launch }
            arrivals: { phases: [ { duration: 4s, rate: 1 } ] }
            visitors: [ { name: invited, enqueueKey: { csv: keys.csv, column: key, order: cycle } } ]
            waitingRoom: { outflow: 60/min, inviteOnly: true, uniqueKeys: \(unique), enqueueKeys: { csv: keys.csv, column: key } }
            """
        }
        let unique = try Self.run(scenario(unique: true), label: "unique")
        #expect(unique.outcomes == ["passed": 2, "error": 2])
        #expect(Self.roomCounts(unique)["reused_keys_refused"] == 2)
        for row in unique.visitors.rows where row["outcome"] == "error" {
            #expect(row["http_status"] == "403")
        }
        let reusable = try Self.run(scenario(unique: false), label: "reusable")
        #expect(reusable.outcomes == ["passed": 4])
    }

    /// Ten visitors at once into a safetynet room at 60/min. `normal` (the room's old rule)
    /// lets all ten through with safetynet tokens; `burst` lets the first through and queues the
    /// other nine one turn (1 s) apart, so they wait 1 … 9 s.
    @Test("safetyNet on the virtual clock: normal lets a small burst through, burst smooths it")
    func safetyNetVariants() throws {
        func run(_ variant: String) throws -> RunReports {
            try RunFixture.virtual(
                """
                version: 1
                name: safetynet
                seed: 3
                clock: virtual
                target: { customerId: acme, waitingRoomId: launch }
                client: { pollInterval: 100ms }
                arrivals: { phases: [ { burst: 10 } ] }
                waitingRoom:
                  mode: safetynet
                  safetyNet: \(variant)
                  outflow: 60/min
                  latency: { enqueue: 0s, queuePage: 0s, protectedApi: 0s, jitter: 0s }
                """, label: "safetyNet" + variant)
        }
        let normal = try run("normal")
        normal.expectContract(arrivals: 10)
        #expect(normal.outcomes == ["passed": 10])
        #expect(normal.visitors.counts("redirect_type") == ["safetynet": 10])
        let burst = try run("burst")
        #expect(burst.outcomes == ["passed": 10])
        #expect(burst.visitors.counts("redirect_type") == ["safetynet": 1, "queue": 9])
        let waits = burst.visitors.rows.filter { $0["redirect_type"] == "queue" }.compactMap { $0.int("wait_ms") }
        #expect(waits.sorted() == (1...9).map { $0 * 1000 })
    }

    /// The same room on the wall clock (the embedded server on loopback): the same refusals,
    /// counted in the same `room` figures.
    @Test("uniqueKeys on the wall clock: the same refusals, the same count")
    func uniqueKeysOnTheWallClock() async throws {
        let yaml = """
            version: 1
            name: keys-wall
            seed: 3
            target: { customerId: acme, waitingRoomId: launch }
            arrivals: { phases: [ { duration: 400ms, rate: 10 } ] }
            visitors: [ { name: invited, enqueueKey: { csv: keys.csv, column: key, order: cycle } } ]
            waitingRoom: { outflow: 6000/min, inviteOnly: true, uniqueKeys: true, enqueueKeys: { csv: keys.csv, column: key } }
            """
        let folder = try Self.folderWithKeys("wall")
        let run = try RunFixture.prepare(yaml, folder: folder, options: RunOptions(clock: .wall))
        var logger = Logger(label: "queuesim.test.room")
        logger.logLevel = .error
        let runner = WallClockRunner(
            run: run, progress: RunProgress(planned: run.summary.visitorCount), stopSignal: RunStopSignal(),
            logger: logger)
        let reports = try RunReports(report: try await runner.execute())
        reports.expectContract(arrivals: 4)
        #expect(reports.outcomes == ["passed": 2, "error": 2])
        #expect(Self.roomCounts(reports)["reused_keys_refused"] == 2)
    }

    /// A folder holding `keys.csv` (k1, k2) for one run.
    static func folderWithKeys(_ label: String) throws -> String {
        let folder = try RunFixture.makeFolder(label)
        try "key\nk1\nk2\n".write(toFile: folder + "/keys.csv", atomically: true, encoding: .utf8)
        return folder
    }

    /// A virtual run of `yaml` in a folder of its own holding `keys.csv`.
    static func run(_ yaml: String, label: String) throws -> RunReports {
        let run = try RunFixture.prepare(yaml, folder: try folderWithKeys(label), options: RunOptions(clock: .virtual))
        let report = try VirtualClockRunner(
            run: run, progress: RunProgress(planned: run.summary.visitorCount), stopSignal: RunStopSignal()
        ).execute()
        return try RunReports(report: report)
    }
}
