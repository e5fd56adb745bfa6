import Foundation

/// `queuesim run` as a child process that may be sent SIGINT part-way, always bounded: a child
/// still running at the limit is killed and the test fails.
struct RunCommandProcess {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        /// From the start to the signal, when one was sent.
        var signalledAfter: Duration?
    }

    static func run(
        _ arguments: [String], interruptAfter: Duration? = nil, limit: Duration = .seconds(60)
    ) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try QueueSimProcess.executable())
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: QueueSimProcess.repositoryRoot)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("queuesim-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("stdout")
        let err = folder.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        let outHandle = try FileHandle(forWritingTo: out)
        let errHandle = try FileHandle(forWritingTo: err)
        process.standardOutput = outHandle
        process.standardError = errHandle
        process.standardInput = FileHandle.nullDevice
        let start = ContinuousClock.now
        try process.run()
        var signalledAfter: Duration?
        while process.isRunning {
            let elapsed = ContinuousClock.now - start
            if let interruptAfter, signalledAfter == nil, elapsed >= interruptAfter {
                kill(process.processIdentifier, SIGINT)
                signalledAfter = elapsed
            }
            if elapsed > limit {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                throw QueueSimProcess.Failure.timedOut(limit)
            }
            Thread.sleep(forTimeInterval: 0.01)
        }
        process.waitUntilExit()
        try outHandle.close()
        try errHandle.close()
        return Result(
            status: process.terminationStatus,
            stdout: (try? String(contentsOf: out, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOf: err, encoding: .utf8)) ?? "",
            signalledAfter: signalledAfter)
    }

    /// A fresh, not yet existing report directory under the temporary folder.
    static func reportDirectory() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("queuesim-out-\(UUID().uuidString)").path
    }

    /// The rows of a CSV report without its header, split on commas (the columns read here
    /// never hold quoted text).
    static func rows(_ directory: String, _ file: String) throws -> (header: [String], rows: [[String]]) {
        let text = try String(contentsOfFile: directory + "/" + file, encoding: .utf8)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: true).map {
            $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
        let header = lines.isEmpty ? [] : lines.removeFirst()
        return (header, lines)
    }
}
