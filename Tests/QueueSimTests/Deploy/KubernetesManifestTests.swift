import Foundation
import Testing

@testable import QueueSim

/// deploy/kubernetes/ read as YAML: the fields a sharded run depends on, and the scenario in
/// the ConfigMap valid for the shards' command line.
@Suite("deploy/kubernetes manifests")
struct KubernetesManifestTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("deploy/kubernetes")

    /// Every document of a manifest file.
    private func documents(_ file: String) throws -> [YamlNode] {
        let text = try String(contentsOf: Self.folder.appendingPathComponent(file), encoding: .utf8)
        return try text.components(separatedBy: "\n---\n").compactMap { try YamlReader().read(Array($0.utf8)) }
    }

    private func document(_ file: String, kind: String) throws -> YamlNode {
        try #require(try documents(file).first { $0["kind"]?.scalarText == kind }, "\(file) has no \(kind)")
    }

    private func list(_ node: YamlNode?) -> [YamlNode] {
        guard case .sequence(let items)? = node?.content else { return [] }
        return items
    }

    private func texts(_ node: YamlNode?) -> [String] { list(node).compactMap(\.scalarText) }

    @Test(
        "the shards are an Indexed Job of N pods whose --shard says auto/N, with the scenario and the reports mounted")
    func shardJob() throws {
        let job = try document("shard-job.yaml", kind: "Job")
        #expect(job["apiVersion"]?.scalarText == "batch/v1")
        let spec = try #require(job["spec"])
        #expect(spec["completionMode"]?.scalarText == "Indexed")
        let completions = try #require(spec["completions"]?.scalarText.flatMap { Int($0) })
        #expect(spec["parallelism"]?.scalarText.flatMap { Int($0) } == completions)
        #expect(spec["backoffLimit"]?.scalarText == "0")
        let pod = try #require(spec["template"]?["spec"])
        #expect(pod["restartPolicy"]?.scalarText == "Never")
        let container = try #require(list(pod["containers"]).first)
        let args = texts(container["args"])
        #expect(Array(args.prefix(2)) == ["run", "/scenario/launch.yaml"])
        let shardFlag = try #require(args.firstIndex(of: "--shard"))
        #expect(args[shardFlag + 1] == "auto/\(completions)")
        #expect(args.contains("--start-at"))
        let out = try #require(args.firstIndex(of: "--out"))
        #expect(args[out + 1] == "/reports/shard-$(JOB_COMPLETION_INDEX)")
        let env = list(container["env"]).compactMap { $0["name"]?.scalarText }
        #expect(env.contains("START_AT") && env.contains("JOB_COMPLETION_INDEX"))
        let startAt = list(container["env"]).first { $0["name"]?.scalarText == "START_AT" }?["value"]?.scalarText
        #expect(startAt.flatMap(StartInstant.parse) != nil)
        #expect(container["image"]?.scalarText?.isEmpty == false)
        let mounts = Dictionary(
            uniqueKeysWithValues: list(container["volumeMounts"]).compactMap { mount in
                mount["name"]?.scalarText.map { ($0, mount["mountPath"]?.scalarText ?? "") }
            })
        #expect(mounts == ["scenario": "/scenario", "reports": "/reports"])
        let volumes = list(pod["volumes"])
        #expect(volumes.contains { $0["configMap"]?["name"]?.scalarText == "queuesim-scenario" })
        #expect(volumes.contains { $0["persistentVolumeClaim"]?["claimName"]?.scalarText == "queuesim-reports" })
    }

    @Test("the merge Job reads every shard folder from the same volume and writes one report")
    func mergeJob() throws {
        let job = try document("merge-job.yaml", kind: "Job")
        let pod = try #require(job["spec"]?["template"]?["spec"])
        let container = try #require(list(pod["containers"]).first)
        let command = (texts(container["command"]) + texts(container["args"])).joined(separator: " ")
        #expect(command.contains("queuesim merge /reports/shard-* --out /reports/merged"))
        #expect(
            list(pod["volumes"]).contains {
                $0["persistentVolumeClaim"]?["claimName"]?.scalarText == "queuesim-reports"
            })
        let claim = try document("reports-pvc.yaml", kind: "PersistentVolumeClaim")
        #expect(texts(claim["spec"]?["accessModes"]) == ["ReadWriteMany"])
    }

    @Test("the ConfigMap's scenario is valid for the shards' command line and its feeder sits beside it")
    func configMapScenario() throws {
        let map = try document("configmap.yaml", kind: "ConfigMap")
        let data = try #require(map["data"])
        let job = try document("shard-job.yaml", kind: "Job")
        let shards = try #require(job["spec"]?["completions"]?.scalarText.flatMap { Int($0) })
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("queuesim-k8s-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for file in ["launch.yaml", "keys.csv", "room.yaml"] {
            let text = try #require(data[file]?.scalarText, "the ConfigMap has no \(file)")
            try text.write(to: folder.appendingPathComponent(file), atomically: true, encoding: .utf8)
        }
        let scenario = try ScenarioLoader.load(path: folder.appendingPathComponent("launch.yaml").path)
        // Every shard of the Job prepares without a problem: a shared endpoint, the wall clock.
        for index in [0, shards - 1] {
            var options = RunOptions(maxMemory: MemoryBudget(bytes: 1 << 30, origin: "the pod's 1 GiB limit"))
            options.shard = try #require(PlanShard(index: index, count: shards))
            let prepared = try PreparedRun(scenario: scenario, options: options)
            #expect(prepared.summary.visitorCount == options.shard.share(of: prepared.summary.plannedVisitorCount))
        }
        // The rehearsal room is a valid scenario for `queuesim serve`.
        let room = try ScenarioLoader.load(path: folder.appendingPathComponent("room.yaml").path)
        #expect(room.target.endpoint == .embedded)
        let service = try document("room.yaml", kind: "Service")
        #expect(scenario.target.endpointDescription.contains(try #require(service["metadata"]?["name"]?.scalarText)))
    }
}
