import Foundation
import Testing

@testable import QueueSim

/// deploy/kubernetes: one shard's guardrail stop (exit 4) fails the whole Indexed Job, the room
/// starts its timeline at the shards' START_AT, and the manifests pass `kubernetes-validate
/// --strict` (PyPI's kubernetes-validate; the schema test runs where it is installed).
@Suite("deploy/kubernetes: podFailurePolicy, the room's start, kubernetes-validate --strict")
struct KubernetesFailurePolicyTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("deploy/kubernetes")

    private func document(_ file: String, kind: String) throws -> YamlNode {
        let text = try String(contentsOf: Self.folder.appendingPathComponent(file), encoding: .utf8)
        let documents = try text.components(separatedBy: "\n---\n").compactMap {
            try YamlReader().read(Array($0.utf8))
        }
        return try #require(documents.first { $0["kind"]?.scalarText == kind }, "\(file) has no \(kind)")
    }

    private func list(_ node: YamlNode?) -> [YamlNode] {
        guard case .sequence(let items)? = node?.content else { return [] }
        return items
    }

    private func environment(_ container: YamlNode) -> [String: String] {
        Dictionary(
            list(container["env"]).compactMap { variable in
                variable["name"]?.scalarText.map { ($0, variable["value"]?.scalarText ?? "") }
            }, uniquingKeysWith: { first, _ in first })
    }

    @Test("a shard that exits 4 (a guardrail) fails the whole Job")
    func guardrailFailsTheJob() throws {
        let job = try document("shard-job.yaml", kind: "Job")
        let rules = list(job["spec"]?["podFailurePolicy"]?["rules"])
        let containers = list(job["spec"]?["template"]?["spec"]?["containers"])
        let container = try #require(containers.first)
        let failJob = try #require(rules.first { $0["action"]?.scalarText == "FailJob" })
        let exitCodes = try #require(failJob["onExitCodes"])
        #expect(exitCodes["containerName"]?.scalarText == container["name"]?.scalarText)
        #expect(exitCodes["operator"]?.scalarText == "In")
        #expect(list(exitCodes["values"]).compactMap(\.scalarText) == ["\(RunExitStatus.guardrailStopped.rawValue)"])
        // A pod failure policy needs pods that are never restarted in place.
        #expect(job["spec"]?["template"]?["spec"]?["restartPolicy"]?.scalarText == "Never")
    }

    @Test("the room's second 0 is the shards' START_AT, so the shards do not refuse it")
    func roomStartsWithTheShards() throws {
        let job = try document("shard-job.yaml", kind: "Job")
        let shards = list(job["spec"]?["template"]?["spec"]?["containers"])
        let shard = try #require(shards.first)
        let room = try document("room.yaml", kind: "Deployment")
        let servers = list(room["spec"]?["template"]?["spec"]?["containers"])
        let server = try #require(servers.first)
        let args = list(server["args"]).compactMap(\.scalarText)
        let startAt = try #require(args.firstIndex(of: "--start-at"), "serve has no --start-at: \(args)")
        #expect(args[startAt + 1] == "$(START_AT)")
        let shardStart = try #require(environment(shard)["START_AT"])
        #expect(environment(server)["START_AT"] == shardStart)
    }

    /// `kubernetes-validate` on PATH, or nil.
    static let validator: String? = {
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            let path = "\(directory)/kubernetes-validate"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }()

    private func validate(_ files: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(Self.validator))
        process.arguments = ["--strict", "--quiet"] + files
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }

    @Test(
        "every manifest passes kubernetes-validate --strict, and a misspelt field does not",
        .enabled(if: validator != nil, "kubernetes-validate is not installed (pip install kubernetes-validate)"),
        .timeLimit(.minutes(2)))
    func strictSchema() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path)
            .filter { $0.hasSuffix(".yaml") }.sorted().map { Self.folder.appendingPathComponent($0).path }
        #expect(files.count >= 5)
        let result = try validate(files)
        #expect(result.status == 0, "\(result.output)")
        // The check has teeth: the policy's `operator` misspelt is refused.
        let broken = FileManager.default.temporaryDirectory.appendingPathComponent("queuesim-job-\(UUID()).yaml")
        defer { try? FileManager.default.removeItem(at: broken) }
        let job = try String(contentsOf: Self.folder.appendingPathComponent("shard-job.yaml"), encoding: .utf8)
        try job.replacingOccurrences(of: "operator: In", with: "operatr: In").write(
            to: broken, atomically: true, encoding: .utf8)
        let refused = try validate([broken.path])
        #expect(refused.status != 0, "\(refused.output)")
        #expect(refused.output.contains("podFailurePolicy"), "\(refused.output)")
    }
}
