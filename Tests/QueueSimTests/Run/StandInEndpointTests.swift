import Foundation
import Logging
import QueueClientCore
import StandInServers
import Synchronization
import Testing

@testable import QueueSim

/// `endpoint: http://127.0.0.1:PORT` pointed at a scripted stand-in of Queue-it's API: the
/// report must say what the client core decided for each scripted answer.
@Suite("wall run against a stand-in of Queue-it's API", .serialized, .timeLimit(.minutes(1)))
struct StandInEndpointTests {
    static let enqueuePath = "/api/mobileapp/queue/acme/launch/enqueue"
    static let targetURL = "https://acme.example/launch"

    /// A token of KnownUser's shape; the runner cannot check its hash (no secret for a real
    /// endpoint), only that it reads as a token.
    static func token(queueId: String, type: String) -> String {
        let expiry = Int(Date().timeIntervalSince1970) + 180
        return "e_launch~q_\(queueId)~ts_\(expiry)~ce_true~rt_\(type)~h_" + String(repeating: "ab", count: 32)
    }

    static func enqueueAnswer(queueId: String, token: String?) -> StandInAnswer {
        let tokenJSON = token.map { "\"\($0)\"" } ?? "null"
        let body = """
            {"QueueId":"\(queueId)","QueueUrl":"https://acme.queue-it.net/queue/acme/launch?q=\(queueId)",\
            "QueueUrlTTLInMinutes":30,"EventTargetUrl":"\(targetURL)","QueueitToken":\(tokenJSON)}
            """
        return StandInAnswer(status: 200, headers: [("Content-Type", "application/json")], body: body)
    }

    /// Counts calls per key (a visitor's user id, or a queue id) across the server's threads.
    final class CallCounter: Sendable {
        private let counts = Mutex<[String: Int]>([:])
        /// This call's number for `key`, from 1.
        func next(_ key: String) -> Int {
            counts.withLock {
                $0[key, default: 0] += 1
                return $0[key]!
            }
        }
    }

    /// The script: what each group's enqueue key asks the stand-in to do.
    static func script(_ counter: CallCounter) -> @Sendable (StandInRequest) -> StandInAnswer {
        { request in
            if request.method == "GET", request.path == "/queue/acme/launch" {
                let queueId = request.uri.components(separatedBy: "q=").last ?? ""
                // First poll: still waiting (one second, says Retry-After); second: your turn.
                if counter.next("poll-" + queueId) == 1 {
                    return StandInAnswer(
                        status: 200, headers: [("Retry-After", "1")], body: "{\"state\":\"queue\",\"position\":1}")
                }
                let token = Self.token(queueId: queueId, type: "queue")
                return StandInAnswer(status: 302, headers: [("Location", "\(targetURL)?queueittoken=\(token)")])
            }
            guard request.method == "POST", request.path == enqueuePath else {
                return StandInAnswer(status: 404, body: "{\"error\":\"not found\"}")
            }
            let userId = request.bodyField("userId") ?? "?"
            let queueId = "q" + userId.replacingOccurrences(of: "-", with: "").prefix(12).lowercased()
            switch request.bodyField("enqueueKey") {
            case "safetynet":
                return enqueueAnswer(queueId: queueId, token: token(queueId: queueId, type: "safetynet"))
            case "flaky":
                // Two 503s, then a safetynet pass: the SDK retries after 1 s and 2 s.
                if counter.next(userId) <= 2 { return StandInAnswer(status: 503, body: "{\"error\":\"busy\"}") }
                return enqueueAnswer(queueId: queueId, token: token(queueId: queueId, type: "safetynet"))
            case "refused":
                return StandInAnswer(status: 400, body: "{\"error\":\"Invalid enqueue request\"}")
            case "idle":
                return enqueueAnswer(queueId: queueId, token: token(queueId: queueId, type: "idle"))
            case "queue":
                return enqueueAnswer(queueId: queueId, token: nil)
            default:
                return StandInAnswer(status: 400, body: "{\"error\":\"unscripted\"}")
            }
        }
    }

    @Test("outcome, attempts, polls and HTTP status are what the client core decides for each answer")
    func reportFollowsTheClientCore() async throws {
        let counter = CallCounter()
        let reports = try await ScriptedQueueItServer.with(script: Self.script(counter)) { server in
            let yaml = """
                version: 1
                name: standin
                seed: 5
                target: { customerId: acme, waitingRoomId: launch, endpoint: "http://127.0.0.1:\(server.port)" }
                client: { pollInterval: 200ms, maxWait: 30s, requestTimeout: 5s }
                arrivals: { phases: [ { burst: 40 } ] }
                visitors:
                  - { name: safetynet, enqueueKey: safetynet }
                  - { name: flaky, enqueueKey: flaky }
                  - { name: refused, enqueueKey: refused }
                  - { name: idle, enqueueKey: idle }
                  - { name: queue, enqueueKey: queue }
                """
            let reports = try await RunFixture.wall(yaml)
            // The Host header keeps the waiting room's host; only the connection goes to loopback.
            let enqueues = server.received.filter { $0.path == Self.enqueuePath }
            #expect(!enqueues.isEmpty)
            #expect(enqueues.allSatisfy { $0.host == "acme.queue-it.net" })
            return reports
        }
        reports.expectContract(arrivals: 40)
        let byGroup = Dictionary(grouping: reports.visitors.rows) { $0["group"] ?? "" }
        #expect(byGroup.keys.sorted() == ["flaky", "idle", "queue", "refused", "safetynet"])

        func expectRows(
            _ group: String, outcome: String, attempts: Int, polls: Int, status: String, redirect: String,
            token: String, sourceLocation: SourceLocation = #_sourceLocation
        ) {
            for row in byGroup[group] ?? [] {
                #expect(row["outcome"] == outcome, sourceLocation: sourceLocation)
                #expect(row.int("attempts") == attempts, sourceLocation: sourceLocation)
                #expect(row.int("polls") == polls, sourceLocation: sourceLocation)
                #expect(row["http_status"] == status, sourceLocation: sourceLocation)
                #expect(row["redirect_type"] == redirect, sourceLocation: sourceLocation)
                #expect(row["token"] == token, sourceLocation: sourceLocation)
            }
        }
        expectRows(
            "safetynet", outcome: "passed", attempts: 1, polls: 0, status: "200", redirect: "safetynet",
            token: "present")
        expectRows(
            "flaky", outcome: "passed", attempts: 3, polls: 0, status: "200", redirect: "safetynet", token: "present")
        expectRows("refused", outcome: "error", attempts: 1, polls: 0, status: "400", redirect: "", token: "absent")
        // An idle room still hands out a token (rt_idle): the visitor came back with one.
        expectRows(
            "idle", outcome: "disabled", attempts: 1, polls: 0, status: "200", redirect: "idle", token: "present")
        expectRows(
            "queue", outcome: "passed", attempts: 1, polls: 2, status: "302", redirect: "queue", token: "present")

        for row in byGroup["flaky"] ?? [] {
            // Back-off of 1 s then 2 s between the three attempts.
            #expect(row.int("enqueue_ms")! >= 3000 && row.int("enqueue_ms")! < 6000)
        }
        for row in byGroup["refused"] ?? [] {
            #expect(row["error"]?.contains("Invalid enqueue request") == true)
        }
        for row in byGroup["queue"] ?? [] {
            // Retry-After: 1 between the two polls.
            #expect(row.int("wait_ms")! >= 1000 && row.int("wait_ms")! < 4000)
            #expect(row["queue_id"]?.hasPrefix("q") == true)
        }
        // No token ever reaches a report.
        let csv = try String(contentsOfFile: reports.directory + "/visitors.csv", encoding: .utf8)
        #expect(!csv.contains("~h_"))
    }

    @Test("a unique feeder hands each row to one visitor, with 200 visitors in flight at once")
    func uniqueFeederUnderConcurrency() async throws {
        let folder = try RunFixture.makeFolder()
        let keys = (1...200).map { "INVITE-\($0)" }
        try ("key\n" + keys.joined(separator: "\n") + "\n").write(
            toFile: folder + "/keys.csv", atomically: true, encoding: .utf8)
        let seen = try await ScriptedQueueItServer.with(script: { request in
            guard request.method == "POST", request.path == Self.enqueuePath else {
                return StandInAnswer(status: 404)
            }
            let queueId = "q\(request.bodyField("enqueueKey") ?? "none")"
            return Self.enqueueAnswer(queueId: queueId, token: Self.token(queueId: queueId, type: "safetynet"))
        }) { server in
            let yaml = """
                version: 1
                name: feeder
                target: { customerId: acme, waitingRoomId: launch, endpoint: "http://127.0.0.1:\(server.port)" }
                arrivals: { phases: [ { burst: 200 } ] }
                visitors: [ { name: invited, enqueueKey: { csv: keys.csv, column: key, order: unique } } ]
                run: { concurrency: 200 }
                """
            let run = try RunFixture.prepare(yaml, folder: folder, options: RunOptions(clock: .wall))
            let runner = WallClockRunner(
                run: run, progress: RunProgress(planned: 200), stopSignal: RunStopSignal(),
                logger: Logger(label: "queuesim.test"))
            let reports = try RunReports(report: try await runner.execute())
            reports.expectContract(arrivals: 200)
            #expect(reports.outcomes == ["passed": 200])
            return server.received.compactMap { $0.bodyField("enqueueKey") }
        }
        #expect(seen.count == 200)
        #expect(Set(seen).count == seen.count, "a key went to two visitors")
        #expect(Set(seen) == Set(keys))
    }
}
