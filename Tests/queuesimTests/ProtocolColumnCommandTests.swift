import Foundation
import QueueClientCore
import QueueSim
import Testing

/// visitors.csv says which HTTP version answered each visitor (issue 55, item 1): a live run
/// with a TLS destination ends its rows with a `protocol` column (`h2` by ALPN, `http/1.1`
/// with `client.http: h1`); a plain-HTTP live run has no such column; `recover` and `merge`
/// keep it.
@Suite("visitors.csv's protocol column", .serialized, .timeLimit(.minutes(3)))
struct ProtocolColumnCommandTests {
    static let fixtures = QueueSimProcess.repositoryRoot + "/Tests/QueueSimTests/Fixtures/tls"

    /// A wall-clock run of 8 iOS and Android visitors against the embedded room, over TLS or not.
    static func scenario(http: String, tls: Bool) -> String {
        let room =
            tls
            ? "waitingRoom: { mode: queue, tls: { cert: \(fixtures)/self-signed.cert.pem, key: \(fixtures)/self-signed.key.pem } }"
            : "waitingRoom: { mode: queue }"
        return """
            version: 1
            name: protocol-\(http)
            clock: wall
            target: { customerId: acme, waitingRoomId: launch }
            arrivals: { phases: [ { burst: 8 } ] }
            \(room)
            client: { platform: { ios: 50%, android: 50% }, http: \(http) }
            thresholds: [ "passed >= 99%" ]
            """
    }

    /// Runs the scenario into `out` and returns visitors.csv's header and rows.
    static func run(http: String, tls: Bool, out: String) throws -> (header: [String], rows: [[String]]) {
        let scenario = try TemporaryScenario(scenario(http: http, tls: tls))
        let result = try RunCommandProcess.run(["run", scenario.path, "--out", out, "--quiet"], limit: .seconds(60))
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        return try RunCommandProcess.rows(out, "visitors.csv")
    }

    @Test("client.http: auto over TLS: the last column is `protocol`, and every visitor's is h2")
    func autoSaysH2() throws {
        let out = RunCommandProcess.reportDirectory()
        defer { try? FileManager.default.removeItem(atPath: out) }
        let (header, rows) = try Self.run(http: "auto", tls: true, out: out)
        #expect(header.suffix(3) == ["tls_ms", "platform", "protocol"], "\(header)")
        #expect(rows.count == 8)
        #expect(rows.allSatisfy { $0.count == header.count && $0.last == "h2" }, "\(rows)")
        // report.html's line for the room: every number with its unit, free to wrap on a phone.
        let page = try String(contentsOfFile: out + "/report.html", encoding: .utf8)
        let line = try #require(
            page.range(
                of:
                    #"<li style="overflow-wrap:anywhere">https://127\.0\.0\.1:\d+: h2 on \d+ connections?; [\d.]+ requests? per connection \(at most \d+ on one connection\)</li>"#,
                options: .regularExpression))
        #expect(page[line].contains("h2 on"))
    }

    @Test("client.http: h1 over TLS: every visitor's protocol is http/1.1")
    func h1SaysHTTP1() throws {
        let out = RunCommandProcess.reportDirectory()
        defer { try? FileManager.default.removeItem(atPath: out) }
        let (header, rows) = try Self.run(http: "h1", tls: true, out: out)
        #expect(header.last == "protocol", "\(header)")
        #expect(rows.count == 8)
        #expect(rows.allSatisfy { $0.last == "http/1.1" }, "\(rows)")
    }

    @Test("a plain-HTTP live run has no protocol column: its header is today's")
    func plainHTTPHasNoColumn() throws {
        let out = RunCommandProcess.reportDirectory()
        defer { try? FileManager.default.removeItem(atPath: out) }
        let (header, rows) = try Self.run(http: "auto", tls: false, out: out)
        #expect(!header.contains("protocol"), "\(header)")
        #expect(header.last == "platform", "\(header)")
        #expect(rows.allSatisfy { $0.count == header.count })
    }

    @Test("recover keeps the column: the spool's rows keep their protocol, a filled-in row's is empty")
    func recoverKeepsTheColumn() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "queuesim-protocol-recover-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("reports").path
        let (header, rows) = try Self.run(http: "auto", tls: true, out: out)
        try #require(rows.count == 8 && header.last == "protocol")

        // The finished run's rows, visitor 4's missing, as the spool of a run killed beside it.
        let text = try String(contentsOfFile: out + "/visitors.csv", encoding: .utf8)
        let spooled = text.split(separator: "\n").dropFirst().filter { !$0.hasPrefix("4,") }
        let runFolder = out + ".runs/29990101T000000Z-dead"
        try FileManager.default.createDirectory(atPath: runFolder, withIntermediateDirectories: true)
        try (spooled.joined(separator: "\n") + "\n").write(
            toFile: runFolder + "/.visitors.unordered.tmp", atomically: true, encoding: .utf8)
        try """
        {"clock":"wall","groups":["default"],"plannedVisitors":8,"runId":"29990101T000000Z-dead",\
        "scenario":"protocol-auto","scenarioFile":"\(folder.path)/s.yaml","scenarioSHA256":"\(String(repeating: "ab", count: 32))",\
        "seed":1,"startedAt":1700000000,"thresholds":[]}
        """.write(toFile: runFolder + "/.run.pending.json", atomically: true, encoding: .utf8)

        let result = try QueueSimProcess.run(["recover", out], limit: .seconds(20))
        #expect(result.status == 0, "\(result.stderr)")
        let recovered = try RunCommandProcess.rows(runFolder, "visitors.csv")
        #expect(recovered.header == header)
        #expect(recovered.rows.count == 8)
        for row in recovered.rows {
            #expect(row.count == header.count, "\(row)")
            #expect(row.last == (row.first == "4" ? "" : "h2"), "\(row)")
        }
    }

    /// Two shards of 10 visitors whose rows say their platform and protocols, as a live TLS
    /// run's recorder writes them.
    static func shardFolders(base: String) throws -> [String] {
        try (0..<2).map { index in
            let pointer = base + "/shard-\(index)"
            let shard = PlanShard(index: index, count: 2)!
            let folder = try ReportFolder(pointer: pointer)
            try folder.createRunDirectory()
            var description = RunDescription(
                scenarioName: "launch", scenarioPath: "launch.yaml", scenarioSHA256: String(repeating: "ab", count: 32),
                seed: 42, clock: .wall, groupNames: ["app"], thresholds: [], runId: folder.runId,
                endpoint: "https://127.0.0.1:9")
            description.shard = ShardIdentity(
                shard: shard, visitorsOverride: nil, plannedVisitors: 10, shardVisitors: 5)
            let recorder = try Recorder(directory: folder.runDirectory, description: description)
            for visitor in (0..<10).filter(shard.owns) {
                let arrival = RunInstant.origin + .milliseconds(Int64(visitor * 50))
                var record = VisitorRecord(
                    index: visitor, group: "app", flow: "protectedApi", arrival: arrival, start: arrival,
                    outcome: .passed, redirectType: "queue", httpStatus: 200, attempts: 1, polls: 1, requests: 4,
                    enqueueDecided: arrival, queueEntered: arrival, ended: arrival + .seconds(1),
                    queueId: "q-\(visitor)", token: .present)
                record.platform = visitor.isMultiple(of: 2) ? "ios" : "android"
                record.spokenProtocols = visitor == 3 ? "h2+http/1.1" : "h2"
                try recorder.record(record)
            }
            _ = try recorder.finish(
                RunEnding(end: .origin + .seconds(5), startedAt: Date(), endedAt: Date().addingTimeInterval(5)))
            try folder.publish()
            folder.release()
            return pointer
        }
    }

    @Test("merge keeps the column: the merged rows are the shards', protocols and all")
    func mergeKeepsTheColumn() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent(
            "queuesim-protocol-merge-\(UUID().uuidString)"
        ).path
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: base) }
        let shards = try Self.shardFolders(base: base)
        let merge = try QueueSimProcess.run(["merge"] + shards + ["--out", base + "/merged", "--quiet"])
        #expect(merge.status == 0, "\(merge.stderr)")
        let merged = try RunCommandProcess.rows(base + "/merged", "visitors.csv")
        #expect(merged.header.suffix(2) == ["platform", "protocol"], "\(merged.header)")
        #expect(merged.rows.count == 10)
        #expect(
            merged.rows.map { $0.last ?? "?" } == ["h2", "h2", "h2", "h2+http/1.1"] + Array(repeating: "h2", count: 6))
        // compare reads every row of both folders and refuses one it did not write.
        let again = try QueueSimProcess.run(["merge"] + shards + ["--out", base + "/merged-again", "--quiet"])
        #expect(again.status == 0, "\(again.stderr)")
        let compare = try QueueSimProcess.run(["compare", base + "/merged", base + "/merged-again"])
        #expect(compare.status == 0, "\(compare.stdout)\n\(compare.stderr)")
    }

    @Test("a visitor whose API answered over HTTP/1.1 and its room over h2 says both, the API first")
    func bothInTheOrderFirstUsed() throws {
        // The protected API: another room's connector on plain HTTP, with the embedded room's
        // secret key, so the token the embedded room signs lets the visitor through.
        let api = try TemporaryScenario(
            """
            version: 1
            name: api
            target: { customerId: acme, waitingRoomId: launch }
            arrivals: { phases: [ { burst: 1 } ] }
            waitingRoom: { mode: queue, secretKey: protocol-test-secret }
            """)
        let server = try ServeProcess(arguments: ["serve", api.path, "--port", "0"])
        defer { server.kill() }
        let apiPort = try server.waitForPort()
        let scenario = try TemporaryScenario(
            """
            version: 1
            name: protocol-both
            clock: wall
            target:
              customerId: acme
              waitingRoomId: launch
              protectedApi: "http://api.shop.example/api/protected"
              protectedApiEndpoint: "http://127.0.0.1:\(apiPort)"
            arrivals: { phases: [ { burst: 4 } ] }
            waitingRoom:
              mode: queue
              secretKey: protocol-test-secret
              tls: { cert: \(Self.fixtures)/self-signed.cert.pem, key: \(Self.fixtures)/self-signed.key.pem }
            client: { platform: ios, pollInterval: 200ms }
            visitors: [ { name: shop, flow: protectedApi } ]
            thresholds: [ "passed >= 99%" ]
            """)
        let out = RunCommandProcess.reportDirectory()
        defer { try? FileManager.default.removeItem(atPath: out) }
        let result = try RunCommandProcess.run(["run", scenario.path, "--out", out, "--quiet"], limit: .seconds(60))
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        let (header, rows) = try RunCommandProcess.rows(out, "visitors.csv")
        #expect(header.last == "protocol", "\(header)")
        #expect(rows.count == 4)
        #expect(rows.allSatisfy { $0.last == "http/1.1+h2" }, "\(rows)")
    }
}
