import Foundation
import Synchronization
import Testing

/// Issue 12's contract over a generated corpus of mutated scenarios (`ScenarioCorpus`): for each,
/// `queuesim validate FILE` exits 0, or 2 with every stderr line `FILE:LINE:COL: message`;
/// never a crash, a hang or another exit code. Every file that validates must start as a
/// virtual run: `run FILE --clock virtual --duration 2s` exits 0 or 1 (thresholds).
///
/// Each child runs under `ulimit -v` (4 GiB) and `timeout` (20 s): a runaway case fails as a
/// crash or a hang instead of taking the machine. Set QUEUESIM_CORPUS_DIR to keep the files.
@Suite("mutated scenario corpus")
struct ScenarioCorpusTests {
    static let seed: UInt64 = 20_250_612
    static let randomCount = 260
    static let addressSpaceKiB = 4 << 20
    static let childSeconds = 20

    /// What a child's exit means; `nil` reason: within the contract.
    struct Outcome {
        var status: Int32
        var stderr: String
        var failure: String?
    }

    @Test func everyMutatedScenarioValidatesOrFailsWithPositionsAndValidOnesRun() throws {
        let folder = try Self.corpusFolder(keep: true)
        var corpus = ScenarioCorpus(bases: try Self.shippedScenarios(), seed: Self.seed)
        let cases = corpus.cases(randomCount: Self.randomCount)
        #expect(cases.count >= 300)
        for item in cases {
            try Data(item.yaml.utf8).write(to: URL(fileURLWithPath: "\(folder)/\(item.name).yaml"))
        }
        let failures = Mutex<[String]>([])
        let validCount = Mutex(0)
        // Two children at a time: CI has two cores, and most of a child's time is start-up.
        DispatchQueue.concurrentPerform(iterations: 2) { worker in
            for item in cases.enumerated().filter({ $0.offset % 2 == worker }).map(\.element) {
                let path = "\(folder)/\(item.name).yaml"
                let validation = Self.validate(path)
                var problem = validation.failure.map { "validate: \($0)" }
                if problem == nil, validation.status == 0 {
                    validCount.withLock { $0 += 1 }
                    let out = "\(folder)/out-\(item.name)"
                    let run = Self.outcome(
                        ["run", path, "--clock", "virtual", "--duration", "2s", "--out", out, "--quiet"],
                        allowed: [0, 1])
                    problem = run.failure.map { "run --clock virtual --duration 2s: \($0)" }
                    try? FileManager.default.removeItem(atPath: out)
                    try? FileManager.default.removeItem(atPath: out + ".runs")
                }
                guard let problem else { continue }
                let text = """
                    \(item.name) (\(item.mutations.joined(separator: "; "))): \(problem)
                    --- \(path)
                    \(item.yaml.count > 1500 ? item.yaml.prefix(1500) + "…" : item.yaml)
                    """
                failures.withLock { $0.append(text) }
            }
        }
        let found = failures.withLock { $0 }.sorted()
        let valid = validCount.withLock { $0 }
        let report = found.joined(separator: "\n\n")
        #expect(found.isEmpty, "\(found.count) of \(cases.count) mutated scenarios broke the contract:\n\n\(report)")
        // A corpus that validates nothing would not test `run` at all.
        #expect(valid >= 20, "only \(valid) of \(cases.count) mutated scenarios validate")
        if ProcessInfo.processInfo.environment["QUEUESIM_CORPUS_DIR"] == nil {
            try? FileManager.default.removeItem(atPath: folder)
        }
    }

    /// Extreme command-line overrides on a valid scenario: refused with exit 2 and a message, or
    /// a run that starts; never a crash or a hang.
    @Test(arguments: [
        ["--visitors", "9223372036854775807"], ["--visitors", "99999999999999999999"], ["--visitors", "-1"],
        ["--visitors", "0"], ["--visitors", "100000000"], ["--duration", "9223372036854775807h"],
        ["--duration", "0s"], ["--duration", "1e300s"], ["--concurrency", "9223372036854775807"],
        ["--concurrency", "0"], ["--seed", "-1"], ["--seed", "18446744073709551616"],
    ])
    func extremeOverridesAreRefusedOrRun(override: [String]) throws {
        let folder = try Self.corpusFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = "\(folder)/override.yaml"
        try Data(ScenarioCorpus.filled([:]).utf8).write(to: URL(fileURLWithPath: path))
        var arguments = ["run", path, "--clock", "virtual", "--out", "\(folder)/out", "--quiet"]
        if override.first != "--duration" { arguments += ["--duration", "2s"] }
        let result = Self.outcome(arguments + override, allowed: [0, 1, 2])
        #expect(result.failure == nil, "run \(override.joined(separator: " ")): \(result.failure ?? "")")
        if result.status == 2 { #expect(!result.stderr.isEmpty, "exit 2 without a word") }
    }

    // MARK: Children

    static func validate(_ path: String) -> Outcome {
        var result = outcome(["validate", "--quiet", path], allowed: [0, 2])
        guard result.failure == nil, result.status == 2 else { return result }
        let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: true)
        if lines.isEmpty { result.failure = "exit 2 without a message" }
        if let stray = lines.first(where: { !isPositioned($0, file: path) }) {
            result.failure = "exit 2 with a line not of the form FILE:LINE:COL: message: \(stray.prefix(300))"
        }
        return result
    }

    /// `FILE:LINE:COL: message` with LINE and COL at least 1.
    static func isPositioned(_ line: Substring, file: String) -> Bool {
        guard line.hasPrefix(file + ":") else { return false }
        let parts = line.dropFirst(file.count + 1).split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, let row = Int(parts[0]), let column = Int(parts[1]), row >= 1, column >= 1 else {
            return false
        }
        return parts[2].hasPrefix(" ") && parts[2].count > 1
    }

    /// Runs queuesim under the memory and time bounds; a status outside `allowed` (a signal
    /// shows as 128 + its number, a timeout as 124) is a failure.
    static func outcome(_ arguments: [String], allowed: Set<Int32>) -> Outcome {
        let executable: String
        do {
            executable = try QueueSimProcess.executable()
        } catch {
            return Outcome(status: -1, stderr: "", failure: "\(error)")
        }
        // Not `exec`: the shell reports a child killed by a signal as 128 + its number.
        // No symbolicated backtrace: a crash's own message is what the failure needs, quickly.
        let variables = ScenarioCorpus.environment.merging(["SWIFT_BACKTRACE": "enable=no"]) { $1 }
        let environment = variables.map { "export \($0.key)='\($0.value)'; " }.sorted().joined()
        let script = "\(environment)ulimit -v \(addressSpaceKiB); timeout -k 2 \(childSeconds) \"$0\" \"$@\"; exit $?"
        let result: QueueSimProcess.Result
        do {
            result = try QueueSimProcess.run(
                ["-c", script, executable] + arguments, limit: .seconds(childSeconds + 10), program: "/bin/sh")
        } catch {
            return Outcome(status: -1, stderr: "", failure: "\(error)")
        }
        var outcome = Outcome(status: result.status, stderr: result.stderr)
        if !allowed.contains(result.status) {
            let kind =
                switch result.status {
                case 124: "hang: still running after \(childSeconds) s"
                case 129...: "crash: exit \(result.status) (signal \(result.status - 128))"
                default: "exit \(result.status)"
                }
            outcome.failure = "\(kind); stderr: \(Self.gist(result.stderr))"
        }
        return outcome
    }

    /// The lines that say what happened (a fatal error's message), not a register dump.
    static func gist(_ stderr: String) -> String {
        let lines = stderr.split(separator: "\n")
        let telling = lines.filter { $0.contains("Fatal error") || $0.contains("crashed") || $0.contains("error:") }
        return (telling.isEmpty ? Array(lines.prefix(3)) : Array(telling.prefix(3))).joined(separator: " | ")
            .prefix(600).description
    }

    // MARK: Files

    static func shippedScenarios() throws -> [(name: String, text: String)] {
        let folder = QueueSimProcess.repositoryRoot + "/scenarios"
        return try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".yaml") }.sorted()
            .map { (String($0.dropLast(5)), try String(contentsOfFile: "\(folder)/\($0)", encoding: .utf8)) }
    }

    /// A fresh folder holding the feeders the corpus names: the shipped `data/keys.csv`, an
    /// empty file, a header-only file and one without a `key` column.
    static func corpusFolder(keep: Bool = false) throws -> String {
        let kept = keep ? ProcessInfo.processInfo.environment["QUEUESIM_CORPUS_DIR"] : nil
        let folder =
            kept ?? FileManager.default.temporaryDirectory.appendingPathComponent("queuesim-corpus-\(UUID())").path
        let data = folder + "/data"
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        let shipped = QueueSimProcess.repositoryRoot + "/scenarios/data/keys.csv"
        let keys = try Data(contentsOf: URL(fileURLWithPath: shipped))
        try keys.write(to: URL(fileURLWithPath: data + "/keys.csv"))
        try Data().write(to: URL(fileURLWithPath: data + "/empty.csv"))
        try Data("key\n".utf8).write(to: URL(fileURLWithPath: data + "/header-only.csv"))
        try Data("name\nx\n".utf8).write(to: URL(fileURLWithPath: data + "/other-column.csv"))
        return folder
    }
}
