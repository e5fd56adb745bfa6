import Foundation
import StandInServers
import Testing

/// `queuesim import queue-it-stats`: stats.csv from the statistics API of a loopback stand-in,
/// the raw answers kept beside it and read again, resumed, and a SIGINT that keeps them.
@Suite("import queue-it-stats: stats.csv, its raw answers, resume and SIGINT")
struct ImportStatsCommandTests {
    static let key = ImportCommandTests.key

    static func arguments(_ port: Int, out: String, types: String) -> [String] {
        [
            "import", "queue-it-stats", "--customer", "acme", "--event", "spring26",
            "--api-base", "http://127.0.0.1:\(port)/2_0", "--from", "2026-05-01T09:00:00Z",
            "--to", "2026-05-01T09:03:00Z", "--types", types, "--out", out,
        ]
    }

    @Test("stats.csv a row a minute; the raw answers make the same file offline; a rerun asks nothing again")
    func tableAndRawAnswers() async throws {
        let folder = try ImportCommandTests.folder()
        let out = folder + "/stats.csv"
        let standIn = AdminAPIStandIn(key: Self.key, event: "spring26", eventJSON: "{}")
        try await ScriptedQueueItServer.with(script: standIn.answer) { server in
            let types = "queueoutflow,queueinflow,maxoutflow"
            let first = try await QueueSimProcess.runOffPool(
                Self.arguments(server.port, out: out, types: types), environment: ["QUEUEIT_API_KEY": Self.key])
            #expect(first.status == 0, "\(first.stderr)")
            #expect(server.received.count == 3)
            #expect(server.received.allSatisfy { $0.header("Api-Key") == Self.key })
            #expect(
                ImportCommandTests.text(out) == """
                    minute,queueinflow,queueoutflow,maxoutflow
                    2026-05-01T09:00:00Z,11,12,10
                    2026-05-01T09:01:00Z,12,13,11
                    2026-05-01T09:02:00Z,13,14,12

                    """)
            let again = try await QueueSimProcess.runOffPool(
                Self.arguments(server.port, out: out, types: types), environment: ["QUEUEIT_API_KEY": Self.key])
            #expect(again.status == 2)
            #expect(again.stderr.contains("exists; give --force to replace it"))
            let forced = try await QueueSimProcess.runOffPool(
                Self.arguments(server.port, out: out, types: types) + ["--force"],
                environment: ["QUEUEIT_API_KEY": Self.key])
            #expect(forced.status == 0, "\(forced.stderr)")
            #expect(server.received.count == 3, "a rerun asked again for answers it kept")
            #expect(forced.stderr.contains("3 of 3 answers kept from an earlier import"))
            let offline = try await QueueSimProcess.runOffPool([
                "import", "queue-it-stats", "--from-file", out + ".raw", "--out", folder + "/offline.csv",
            ])
            #expect(offline.status == 0, "\(offline.stderr)")
            #expect(ImportCommandTests.text(folder + "/offline.csv") == ImportCommandTests.text(out))
            for result in [first, forced, offline] {
                #expect(!result.stdout.contains(Self.key) && !result.stderr.contains(Self.key))
            }
            let files = try FileManager.default.contentsOfDirectory(atPath: out + ".raw")
            #expect(Set(files) == ["request.json", "queueinflow.json", "queueoutflow.json", "maxoutflow.json"])
            for file in files { #expect(!ImportCommandTests.text(out + ".raw/" + file).contains(Self.key)) }
        }
    }

    @Test("SIGINT while waiting for the rate limit: exit 130, the answers so far kept, and said so")
    func interruptedWhileWaiting() async throws {
        let folder = try ImportCommandTests.folder()
        let out = folder + "/stats.csv"
        let standIn = AdminAPIStandIn(key: Self.key, event: "spring26", eventJSON: "{}")
        try await ScriptedQueueItServer.with(script: standIn.answer) { server in
            // 11 types: the 11th waits a minute for the budget; the SIGINT comes during that wait.
            let eleven = [
                "queueinflow", "queuebeforeeventinflow", "queueuniqueinflow", "queueoutflow", "queueuniqueoutflow",
                "safetynetoutflow", "queueidsinqueue", "queueexpectedwaittime", "queueactualwaittime", "maxoutflow",
                "oldqueuenumbers",
            ]
            let result = try await QueueSimProcess.runOffPool(
                Self.arguments(server.port, out: out, types: eleven.joined(separator: ",")),
                limit: .seconds(20), interruptAfter: .seconds(3), environment: ["QUEUEIT_API_KEY": Self.key])
            #expect(result.status == 130, "\(result.stderr)")
            #expect(result.elapsed < .seconds(10))
            #expect(server.received.count == 10)
            #expect(
                result.stderr.contains("waiting 1m: Queue-it allows about 10 requests a minute per event"),
                "\(result.stderr)")
            #expect(
                result.stderr.contains(
                    "interrupted; 10 of 11 answers are kept in \(out).raw: the same command resumes from them"))
            #expect(!FileManager.default.fileExists(atPath: out))
        }
    }

    @Test("bad input is exit 2 in words: times, types, a range too long, --from-file without answers")
    func refusals() async throws {
        let folder = try ImportCommandTests.folder()
        let cases: [([String], String)] = [
            (["--from", "yesterday", "--to", "2026-05-01T10:00:00Z"], "--from must be ISO-8601 UTC"),
            (["--from", "2026-05-01T10:00:00Z", "--to", "2026-05-01T09:00:00Z"], "must be after --from"),
            (["--from", "2026-01-01T00:00:00Z", "--to", "2026-06-01T00:00:00Z"], "is more than 92 days"),
            (
                ["--from", "2026-05-01T09:00:00Z", "--to", "2026-05-01T10:00:00Z", "--types", "queueinflow,nope"],
                "--types: `nope` is not a statistics type"
            ),
        ]
        for (extra, words) in cases {
            let result = try await QueueSimProcess.runOffPool(
                ["import", "queue-it-stats", "--customer", "acme", "--event", "spring26", "--out", folder + "/s.csv"]
                    + extra, environment: ["QUEUEIT_API_KEY": Self.key])
            #expect(result.status == 2, "\(extra)")
            #expect(result.stderr.contains(words), "\(result.stderr)")
        }
        let empty = try await QueueSimProcess.runOffPool([
            "import", "queue-it-stats", "--from-file", folder, "--out", folder + "/s.csv",
        ])
        #expect(empty.status == 2)
        #expect(empty.stderr.contains("holds no saved answers"))
    }
}
