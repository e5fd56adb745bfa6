import Foundation
import Testing

/// `scripts/check-layers` (CI): a folder of `Sources/QueueSim` that names a type of a higher
/// layer fails, with the line that says which; names downwards, in comments or in strings do
/// not count, and a folder in no layer is refused rather than passed.
@Suite("scripts/check-layers: upward uses fail", .timeLimit(.minutes(1)))
struct LayerCheckTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("scripts/check-layers").path

    /// Runs the script over a tree of the given files (path → text); its exit status and output.
    static func check(_ files: [String: String]) throws -> (status: Int32, output: String) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("layers-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        for (path, text) in files {
            let file = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: file, atomically: true, encoding: .utf8)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, root.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }

    static let run = "struct PreparedRun { let engine: VisitorEngine }\n"
    static let engine = "struct VisitorEngine {}\n"

    @Test("the engine naming a type of Run/ fails, and says which file, which type and whose")
    func upwardUseFails() throws {
        let result = try Self.check([
            "Run/PreparedRun.swift": Self.run,
            "Engine/VisitorEngine.swift": Self.engine + "extension VisitorEngine { init(run: PreparedRun) {} }\n",
        ])
        #expect(result.status == 1)
        #expect(result.output.contains("/Engine/VisitorEngine.swift: uses PreparedRun from Run/ (a higher layer)"))
        #expect(result.output.contains("check-layers: 1 upward uses"))
    }

    @Test("a use downwards passes; a higher type named only in a comment or a string does not count")
    func downwardUsePasses() throws {
        let result = try Self.check([
            "Run/PreparedRun.swift": Self.run,
            "Engine/VisitorEngine.swift": Self.engine + "// made by PreparedRun\nlet word = \"PreparedRun\"\n",
        ])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("check-layers: no upward use in 2 files"))
    }

    @Test("a clock adapter naming the guardrails (results, above it) fails")
    func clockNamingResultsFails() throws {
        let result = try Self.check([
            "Guardrail/GuardrailMonitor.swift": "struct GuardrailMonitor {}\n",
            "Virtual/VirtualDriver.swift": "struct VirtualDriver { var guardrails: GuardrailMonitor? }\n",
        ])
        #expect(result.status == 1)
        #expect(result.output.contains("/Virtual/VirtualDriver.swift: uses GuardrailMonitor from Guardrail/"))
    }

    @Test("a static member that only a higher folder's extension declares is an upward use by its type's name")
    func memberOfAnExtensionAboveFails() throws {
        let files = [
            "Report/RunMinutes.swift": "struct RunMinutes { static let columns = 7 }\n",
            "Compare/RunMinutes+Folder.swift": "extension RunMinutes {\n    static let file = \"minutes.csv\"\n}\n",
        ]
        let upward = try Self.check(files.merging(["Report/Recorder.swift": "let name = RunMinutes.file\n"]) { $1 })
        #expect(upward.status == 1)
        #expect(upward.output.contains("/Report/Recorder.swift: uses RunMinutes.file from Compare/ (a higher layer)"))
        let own = try Self.check(files.merging(["Report/Recorder.swift": "let count = RunMinutes.columns\n"]) { $1 })
        #expect(own.status == 0, "\(own.output)")
    }

    @Test("a folder in no layer is refused, not passed")
    func unknownFolderFails() throws {
        let result = try Self.check(["Attic/Old.swift": "struct Old {}\n"])
        #expect(result.status == 1)
        #expect(result.output.contains("folder Attic/ is in no layer"))
    }
}
