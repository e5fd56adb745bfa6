import Foundation
import QueueSim
import StandInServers
import Synchronization
import Testing

@Suite("import queue-it-stats: the table, the raw answers, the rate limit")
struct StatisticsImportTests {
    static let from = QueueItInstant(iso8601: "2026-05-01T09:00:00Z")!
    static let to = QueueItInstant(iso8601: "2026-05-01T09:03:00Z")!
    static let request = StatisticsImport.Request(customer: "acme", event: "spring26", from: from, to: to)

    static func folder() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("queuesim-stats-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func api(_ server: ScriptedQueueItServer, key: String = ImportFixtures.apiKey, clock: VirtualImportClock)
        -> QueueItAdminAPI
    {
        var api = QueueItAdminAPI(
            base: "http://127.0.0.1:\(server.port)/2_0", apiKey: key, timeout: .seconds(5), clock: clock)
        api.budget = RequestBudget(clock: clock)
        return api
    }

    @Test("one row a minute, a column per type, empty cells where an answer has no entry")
    func table() throws {
        let answer = try StatisticsAnswer.parse(
            Array(AdminAPIStandIn.statistics(type: "queueinflow").utf8), source: "queueinflow.json")
        #expect(answer.intervalMinutes == 1 && answer.sums == [11, 12, 13])
        let late = StatisticsAnswer(from: Self.from.adding(minutes: 1), sums: [2.5, nil])
        let table = StatisticsTable.csv(
            types: ["queueinflow", "queueoutflow"], answers: ["queueinflow": answer, "queueoutflow": late],
            from: Self.from, to: Self.to.adding(minutes: 1))
        #expect(
            table.text == """
                minute,queueinflow,queueoutflow
                2026-05-01T09:00:00Z,11,
                2026-05-01T09:01:00Z,12,2.5
                2026-05-01T09:02:00Z,13,
                2026-05-01T09:03:00Z,,

                """)
        #expect(table.warnings.isEmpty)
    }

    @Test("an entry of Interval k minutes puts Sum/k in each of its minutes, and says so")
    func longerInterval() {
        let answer = StatisticsAnswer(from: Self.from, intervalMinutes: 2, sums: [10, 3])
        let table = StatisticsTable.csv(
            types: ["queueinflow"], answers: ["queueinflow": answer], from: Self.from, to: Self.to)
        #expect(
            table.text
                == "minute,queueinflow\n2026-05-01T09:00:00Z,5\n2026-05-01T09:01:00Z,5\n2026-05-01T09:02:00Z,1.5\n")
        #expect(
            table.warnings == [
                "queueinflow: Interval 2: each entry's Sum is spread evenly over its 2 minutes (docs/import.md); the raw answer is kept"
            ])
    }

    @Test("15 types: 10 requests, then a wait on the injected clock, then 5; a 429 is waited out")
    func rateLimit() async throws {
        let standIn = AdminAPIStandIn(
            key: ImportFixtures.apiKey, event: "spring26", eventJSON: "{}", tooManyOnce: ["queueoutflow"])
        let clock = VirtualImportClock()
        let folder = try Self.folder()
        let lines = LineLog()
        try await ScriptedQueueItServer.with(script: standIn.answer) { server in
            var api = Self.api(server, clock: clock)
            api.progress = lines.append
            let job = StatisticsImport(
                request: Self.request, types: StatisticsType.all, rawFolder: folder, api: api, progress: lines.append)
            let answers = try await job.answers()
            #expect(answers.count == 15)
            // 16 requests (one 429), every one with the key, and only the documented paths.
            #expect(server.received.count == 16)
            for request in server.received {
                #expect(request.header("Api-Key") == ImportFixtures.apiKey)
                #expect(request.path.hasPrefix("/2_0/event/spring26/queue/statistics/details/"))
                #expect(request.uri.hasSuffix("?from=2026-05-01T09:00:00Z&to=2026-05-01T09:03:00Z"))
            }
        }
        // 4 requests at 0 s (the 4th answered 429), its Retry-After of 7 s, 6 at 7 s (the retry
        // first); the 11th waits until the first four are a minute old (53 s), 4 more leave at
        // 60 s, and the 16th waits for the 7 s ones to be a minute old.
        #expect(clock.sleeps == [.seconds(7), .seconds(53), .seconds(7)])
        #expect(
            lines.all.contains("the Queue-it API asked to slow down (429): waiting 7s before asking again (try 2 of 4)")
        )
        #expect(lines.all.contains("waiting 53s: Queue-it allows about 10 requests a minute per event"))
        for type in StatisticsType.all {
            #expect(FileManager.default.fileExists(atPath: folder + "/\(type).json"))
        }
        let request = try String(contentsOfFile: folder + "/request.json", encoding: .utf8)
        #expect(!request.contains(ImportFixtures.apiKey))
    }

    @Test("no 60 s window of the injected clock holds more than 10 requests")
    func budgetWindows() async throws {
        let clock = VirtualImportClock()
        let budget = RequestBudget(clock: clock)
        var sent: [Duration] = []
        for _ in 0..<35 {
            try await budget.take { _ in }
            sent.append(clock.now)
        }
        for (index, time) in sent.enumerated() {
            let inWindow = sent[index...].prefix { $0 - time < .seconds(60) }.count
            #expect(inWindow <= 10, "\(inWindow) requests from \(time)")
        }
        #expect(clock.now == .seconds(180))
    }

    @Test("an import resumes: answers already saved are not asked again")
    func resumes() async throws {
        let standIn = AdminAPIStandIn(key: ImportFixtures.apiKey, event: "spring26", eventJSON: "{}")
        let folder = try Self.folder()
        try await ScriptedQueueItServer.with(script: standIn.answer) { server in
            let api = Self.api(server, clock: VirtualImportClock())
            let first = StatisticsImport(
                request: Self.request, types: ["queueinflow", "queueoutflow"], rawFolder: folder, api: api,
                progress: { _ in })
            _ = try await first.answers()
            let second = StatisticsImport(
                request: Self.request, types: StatisticsType.all.prefix(4).map { $0 }, rawFolder: folder, api: api,
                progress: { _ in })
            let answers = try await second.answers()
            #expect(answers.count == 4)
            #expect(server.received.count == 4)  // 2, then only the 2 missing
            let other = StatisticsImport(
                request: .init(customer: "acme", event: "spring26", from: Self.from, to: Self.to.adding(minutes: 1)),
                types: ["queueinflow"], rawFolder: folder, api: api, progress: { _ in })
            let refused = await #expect(throws: ImportFailure.self) { _ = try await other.answers() }
            #expect(refused?.message.contains("holds the answers of event spring26 of acme") == true)
            #expect(refused?.status == .invalidInput)
        }
    }

    @Test("a wrong key is 401 in words, exit 2, without the key; an unknown event is 404")
    func refusals() async throws {
        let standIn = AdminAPIStandIn(key: ImportFixtures.apiKey, event: "spring26", eventJSON: "{}")
        try await ScriptedQueueItServer.with(script: standIn.answer) { server in
            let wrong = Self.api(server, key: "wrong-key-0000", clock: VirtualImportClock())
            let refused = await #expect(throws: ImportFailure.self) {
                _ = try await wrong.get("/event/spring26", event: "spring26")
            }
            #expect(refused?.status == .invalidInput)
            #expect(refused?.message.contains("refused the API key (401") == true)
            #expect(refused?.message.contains("wrong-key-0000") == false)
            let api = Self.api(server, clock: VirtualImportClock())
            let unknown = await #expect(throws: ImportFailure.self) {
                _ = try await api.get("/event/other", event: "other")
            }
            #expect(unknown?.message.contains("has no event `other` (404") == true)
            #expect(unknown?.status == .invalidInput)
        }
    }

    @Test("one deadline bounds the whole exchange: headers and then nothing is exit 3 within --timeout")
    func stalledAnswer() async throws {
        let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"
        try await RawHTTPServer.with(reply: { _ in .stall(head) }) { server in
            let api = QueueItAdminAPI(
                base: "http://127.0.0.1:\(server.port)/2_0", apiKey: ImportFixtures.apiKey, timeout: .milliseconds(300),
                clock: VirtualImportClock())
            let started = ContinuousClock.now
            let failure = await #expect(throws: ImportFailure.self) { _ = try await api.get("/event/x", event: "x") }
            #expect(ContinuousClock.now - started < .seconds(3))
            #expect(failure?.status == .aborted)
            #expect(
                failure?.message.contains("sent its headers and then its answer too slowly") == true,
                "\(failure?.message ?? "")")
            #expect(failure?.message.hasPrefix("the Queue-it API at http://127.0.0.1:") == true)
        }
    }

    @Test("a redirect is not followed: the key never goes to another address")
    func redirectNotFollowed() async throws {
        try await ScriptedQueueItServer.with(script: { _ in StandInAnswer(status: 200, body: "{}") }) { elsewhere in
            let redirecting: @Sendable (StandInRequest) -> StandInAnswer = { _ in
                StandInAnswer(status: 302, headers: [("Location", "http://127.0.0.1:\(elsewhere.port)/2_0/event/x")])
            }
            try await ScriptedQueueItServer.with(script: redirecting) { server in
                let api = Self.api(server, clock: VirtualImportClock())
                let failure = await #expect(throws: ImportFailure.self) {
                    _ = try await api.get("/event/x", event: "x")
                }
                #expect(failure?.message.contains("answered 302") == true, "\(failure?.message ?? "")")
                #expect(failure?.status == .aborted)
                #expect(elsewhere.received.isEmpty)
            }
        }
    }

    @Test("nothing listening is exit 3 in words")
    func unreachable() async throws {
        let port = try await ScriptedQueueItServer.with(script: { _ in StandInAnswer(status: 200) }) { $0.port }
        let api = QueueItAdminAPI(
            base: "http://127.0.0.1:\(port)/2_0", apiKey: "k", timeout: .seconds(5), clock: VirtualImportClock())
        let failure = await #expect(throws: ImportFailure.self) { _ = try await api.get("/event/x", event: "x") }
        #expect(failure?.status == .aborted)
        #expect(failure?.message.contains("refused the connection") == true)
    }
}

final class LineLog: Sendable {
    private let lines = Mutex<[String]>([])
    var all: [String] { lines.withLock { $0 } }
    @Sendable func append(_ line: String) { lines.withLock { $0.append(line) } }
}
