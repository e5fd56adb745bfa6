import Foundation
import StandInServers
import Testing

/// `queuesim import queue-it`: the same scenario from the API (a loopback stand-in that checks the
/// `Api-Key` header) and from the saved JSON, valid, every unmodelled field named, and no key
/// or secret in any output or file.
@Suite("import queue-it: scenario from a room, secrets kept out, refusals in words")
struct ImportCommandTests {
    static let key = "qit-cli-9a7e41d0-synthetic-api-key"
    static let example = QueueSimProcess.repositoryRoot + "/scenarios/imported"
    static let roomSecret = "synthetic-0d5f3c2a-secret-never-copied"

    static func folder() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("queuesim-import-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func standIn() throws -> AdminAPIStandIn {
        AdminAPIStandIn(
            key: key, event: "spring26",
            eventJSON: try String(contentsOfFile: example + "/event.json", encoding: .utf8))
    }

    static func text(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }

    @Test("--from-file and --event write the same bytes, which validate, and are the example's imported.yaml")
    func sameScenarioBothWays() async throws {
        let folder = try Self.folder()
        let standIn = try Self.standIn()
        let (fromFile, fromAPI) = try await ScriptedQueueItServer.with(script: standIn.answer) { server in
            let fromFile = try await QueueSimProcess.runOffPool([
                "import", "queue-it", "--customer", "acme", "--event", "spring26",
                "--from-file", Self.example + "/event.json", "--out", folder + "/file.yaml",
            ])
            let fromAPI = try await QueueSimProcess.runOffPool(
                [
                    "import", "queue-it", "--customer", "acme", "--event", "spring26",
                    "--api-base", "http://127.0.0.1:\(server.port)/2_0", "--out", folder + "/api.yaml",
                ], environment: ["QUEUEIT_API_KEY": Self.key])
            #expect(server.received.map(\.path) == ["/2_0/event/spring26"])
            #expect(server.received.first?.header("Api-Key") == Self.key)
            return (fromFile, fromAPI)
        }
        #expect(fromFile.status == 0, "\(fromFile.stderr)")
        #expect(fromAPI.status == 0, "\(fromAPI.stderr)")
        let written = Self.text(folder + "/api.yaml")
        #expect(!written.isEmpty && written == Self.text(folder + "/file.yaml"))
        #expect(written == Self.text(Self.example + "/imported.yaml"), "scenarios/imported/imported.yaml is stale")
        let validate = try await QueueSimProcess.runOffPool(["validate", folder + "/api.yaml"])
        #expect(validate.status == 0, "\(validate.stderr)")
        // Every `# not modelled:` line of the file is a warning on stderr, both ways.
        let notModelled = written.split(separator: "\n").compactMap { line in
            line.range(of: "# not modelled: ").map { String(line[$0.upperBound...]) }
        }
        #expect(notModelled.count >= 8)
        for words in notModelled {
            #expect(fromFile.stderr.contains("warning: not modelled: \(words)"), "\(words)")
            #expect(fromAPI.stderr.contains("warning: not modelled: \(words)"), "\(words)")
        }
        #expect(fromAPI.stderr.contains("IsTest is False: spring26 is a production room"))
        for output in [fromFile.stdout, fromFile.stderr, fromAPI.stdout, fromAPI.stderr, written, validate.stdout] {
            #expect(!output.contains(Self.key))
            #expect(!output.contains(Self.roomSecret))
        }
    }

    @Test("refusals: --out exists (2), no key (2), a wrong key (2, never echoed), an unknown event (2)")
    func refusals() async throws {
        let folder = try Self.folder()
        let existing = folder + "/room.yaml"
        try Data("keep me\n".utf8).write(to: URL(fileURLWithPath: existing))
        let standIn = try Self.standIn()
        try await ScriptedQueueItServer.with(script: standIn.answer) { server in
            let base = "http://127.0.0.1:\(server.port)/2_0"
            func importing(_ event: String, out: String, key: String, _ extra: [String] = []) async throws
                -> QueueSimProcess.Result
            {
                try await QueueSimProcess.runOffPool(
                    ["import", "queue-it", "--customer", "acme", "--event", event, "--api-base", base, "--out", out]
                        + extra, environment: ["QUEUEIT_API_KEY": key])
            }
            let exists = try await importing("spring26", out: existing, key: Self.key)
            #expect(exists.status == 2)
            #expect(exists.stderr.contains("--out \(existing) exists; give --force to replace it"))
            #expect(Self.text(existing) == "keep me\n")
            let forced = try await importing("spring26", out: existing, key: Self.key, ["--force"])
            #expect(forced.status == 0, "\(forced.stderr)")
            #expect(Self.text(existing).hasPrefix("# Imported by `queuesim import queue-it`"))

            let noKey = try await importing("spring26", out: folder + "/a.yaml", key: "")
            #expect(noKey.status == 2)
            #expect(noKey.stderr.contains("set QUEUEIT_API_KEY to the Admin API key"))
            let wrong = "wrong-0b1c-synthetic-key"
            let refused = try await importing("spring26", out: folder + "/a.yaml", key: wrong)
            #expect(refused.status == 2)
            #expect(refused.stderr.contains("refused the API key (401"), "\(refused.stderr)")
            #expect(!refused.stderr.contains(wrong) && !refused.stdout.contains(wrong))
            let unknown = try await importing("autumn27", out: folder + "/a.yaml", key: Self.key)
            #expect(unknown.status == 2)
            #expect(unknown.stderr.contains("has no event `autumn27` (404"), "\(unknown.stderr)")
            #expect(!FileManager.default.fileExists(atPath: folder + "/a.yaml"))
        }
    }

    @Test("nothing listening and an unwritable --out are exit 3; bad ids and files are exit 2")
    func cannotFetchOrWrite() async throws {
        let folder = try Self.folder()
        let port = try await ScriptedQueueItServer.with(script: { _ in StandInAnswer(status: 200) }) { $0.port }
        let unreachable = try await QueueSimProcess.runOffPool(
            [
                "import", "queue-it", "--customer", "acme", "--event", "spring26",
                "--api-base", "http://127.0.0.1:\(port)/2_0", "--out", folder + "/a.yaml",
            ], environment: ["QUEUEIT_API_KEY": Self.key])
        #expect(unreachable.status == 3)
        #expect(unreachable.stderr.contains("refused the connection"), "\(unreachable.stderr)")
        let noFolder = try await QueueSimProcess.runOffPool([
            "import", "queue-it", "--customer", "acme", "--from-file", Self.example + "/event.json",
            "--out", folder + "/missing/a.yaml",
        ])
        #expect(noFolder.status == 3)
        #expect(noFolder.stderr.contains("cannot write \(folder)/missing/a.yaml"), "\(noFolder.stderr)")
        let badId = try await QueueSimProcess.runOffPool([
            "import", "queue-it", "--customer", "acme", "--event", "../x", "--out", folder + "/a.yaml",
        ])
        #expect(badId.status == 2)
        #expect(badId.stderr.contains("--event must be letters, digits and `-`"))
        try Data("[1, 2]".utf8).write(to: URL(fileURLWithPath: folder + "/list.json"))
        let notEvent = try await QueueSimProcess.runOffPool([
            "import", "queue-it", "--customer", "acme", "--event", "x", "--from-file", folder + "/list.json",
            "--out", folder + "/a.yaml",
        ])
        #expect(notEvent.status == 2)
        #expect(notEvent.stderr.contains("list.json: it is not a JSON object"))
    }

    @Test("the example: both scenarios validate, and stats.csv is in the format queue-it-stats writes")
    func example() async throws {
        let validate = try await QueueSimProcess.runOffPool(
            ["validate", Self.example + "/imported.yaml", Self.example + "/replay.yaml"], limit: .seconds(30))
        #expect(validate.status == 0, "\(validate.stderr)")
        #expect(validate.stdout.contains("replay      stats.csv, column queueinflow, 120 rows of a minute"))
        let rows = Self.text(Self.example + "/stats.csv").split(separator: "\n").map(String.init)
        let header = [
            "minute", "queueinflow", "queuebeforeeventinflow", "queueuniqueinflow", "queueoutflow",
            "queueuniqueoutflow", "safetynetoutflow", "queueidsinqueue", "queueexpectedwaittime",
            "queueactualwaittime", "maxoutflow", "oldqueuenumbers", "redirectedpercentage",
            "returningqueueitemsinlessthan30s", "exceededmaxredirectcount", "queueidscanceled",
        ]
        #expect(rows.first == header.joined(separator: ","))
        #expect(rows.count == 121)
        for (index, row) in rows.dropFirst().enumerated() {
            let minute = 8 * 60 + 30 + index
            let expected = String(format: "2026-05-01T%02d:%02d:00Z,", minute / 60, minute % 60)
            #expect(row.hasPrefix(expected), "row \(index + 1): \(row)")
        }
    }

    @Test("help: the examples are whole lines of at most 78 columns", arguments: ["", "queue-it", "queue-it-stats"])
    func help(subcommand: String) throws {
        let arguments = ["import"] + (subcommand.isEmpty ? [] : [subcommand]) + ["--help"]
        let result = try QueueSimProcess.run(arguments, environment: ["COLUMNS": "80"])
        #expect(result.status == 0)
        let examples = HelpTextCommandTests.exampleLines(result.stdout)
        #expect(!examples.isEmpty)
        for example in examples { #expect(example.count <= 78, "\(example)") }
    }
}
