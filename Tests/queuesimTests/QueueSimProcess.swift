import Foundation
import Synchronization

/// Runs the built `queuesim` executable as a child process, with a time bound.
struct QueueSimProcess {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        var elapsed: Duration
        /// From the start to the SIGINT, when one was sent.
        var signalledAfter: Duration?
    }

    enum Failure: Error, CustomStringConvertible {
        case executableNotFound([String])
        case timedOut(Duration)

        var description: String {
            switch self {
            case .executableNotFound(let looked):
                return "queuesim executable not found; looked in: \(looked.joined(separator: ", "))"
            case .timedOut(let limit): return "queuesim did not finish within \(limit)"
            }
        }
    }

    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path

    /// The products folder holds both the test bundle and the executable, whatever the scratch
    /// path: walk up from the test bundle (or the test runner) until a `queuesim` file shows up.
    static func executable() throws -> String {
        if let override = ProcessInfo.processInfo.environment["QUEUESIM_BINARY"] { return override }
        var starts = Bundle.allBundles.map(\.bundlePath).filter { $0.hasSuffix(".xctest") }
        starts += [Bundle.main.bundlePath, CommandLine.arguments.first ?? ""]
        var looked: [String] = []
        for start in starts where !start.isEmpty {
            var folder = URL(fileURLWithPath: start)
            for _ in 0..<5 {
                folder.deleteLastPathComponent()
                let candidate = folder.appendingPathComponent("queuesim").path
                looked.append(candidate)
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: candidate, isDirectory: &isDirectory), !isDirectory.boolValue,
                    FileManager.default.isExecutableFile(atPath: candidate)
                {
                    return candidate
                }
            }
        }
        throw Failure.executableNotFound(looked)
    }

    /// `run` on a Dispatch queue, for async tests: a test that waits minutes for a child (a
    /// sweep) must not hold one of the few threads of Swift's cooperative pool, or every other
    /// async test — the wall-clock ones with their time limits — waits behind it.
    static func runOffPool(
        _ arguments: [String], limit: Duration = .seconds(10), interruptAfter: Duration? = nil,
        signal: Int32 = SIGINT, environment: [String: String] = [:], currentDirectory: String? = nil
    ) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(
                    with: Swift.Result {
                        try run(
                            arguments, limit: limit, interruptAfter: interruptAfter, signal: signal,
                            environment: environment, currentDirectory: currentDirectory)
                    })
            }
        }
    }

    /// Runs to the end, or kills the child at `limit` and throws. With `interruptAfter`, the
    /// child gets a SIGINT that long after its start.
    /// `program`: another executable to run instead (a shell that sets limits, then execs queuesim).
    /// `environment`: variables set for the child on top of the test's own.
    static func run(
        _ arguments: [String], limit: Duration = .seconds(10), interruptAfter: Duration? = nil,
        program: String? = nil, signal: Int32 = SIGINT, environment: [String: String] = [:],
        currentDirectory: String? = nil
    ) throws -> Result {
        let process = Process()
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        process.executableURL = URL(fileURLWithPath: try program ?? executable())
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: currentDirectory ?? repositoryRoot)
        // Output goes to files, so a chatty child can never block on a full pipe.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("queuesim-cli-\(UUID().uuidString)")
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
        let exit = ChildExit(process)
        let start = ContinuousClock.now
        try process.run()
        var signalledAfter: Duration?
        if let interruptAfter, interruptAfter < limit, !exit.wait(interruptAfter) {
            kill(process.processIdentifier, signal)
            signalledAfter = ContinuousClock.now - start
        }
        guard exit.wait(limit - (ContinuousClock.now - start)) else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw Failure.timedOut(limit)
        }
        process.waitUntilExit()
        let elapsed = ContinuousClock.now - start
        try outHandle.close()
        try errHandle.close()
        return Result(
            status: process.terminationStatus,
            stdout: (try? String(contentsOf: out, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOf: err, encoding: .utf8)) ?? "",
            elapsed: elapsed, signalledAfter: signalledAfter)
    }
}

/// The child's end, signalled by its termination handler: waiting for it needs no polling.
/// Create it before `Process.run()` (it sets the handler).
final class ChildExit: Sendable {
    private let exited = DispatchSemaphore(value: 0)

    init(_ process: Process) {
        process.terminationHandler = { [exited] _ in exited.signal() }
    }

    /// True when the child has ended, waiting at most `limit` for it.
    func wait(_ limit: Duration) -> Bool {
        let (seconds, attoseconds) = max(limit, .zero).components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        guard exited.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .success else { return false }
        exited.signal()  // Stays signalled for later waits.
        return true
    }
}

/// Everything a child wrote to one of its pipes, kept (and copied into `file`) as it arrives,
/// with a wake-up for whoever waits on a pattern: no polling of the file.
final class ChildOutput: Sendable {
    private let state = Mutex((text: "", ended: false))
    private let arrived = DispatchSemaphore(value: 0)
    let pipe = Pipe()

    init(copyingTo file: URL) throws {
        let handle = try FileHandle(forWritingTo: file)
        // Holds `self` until the child closes its end (the handler is dropped then).
        pipe.fileHandleForReading.readabilityHandler = { [self] reader in
            let data = reader.availableData
            guard !data.isEmpty else {
                reader.readabilityHandler = nil
                try? handle.close()
                self.state.withLock { $0.ended = true }
                arrived.signal()
                return
            }
            handle.write(data)
            self.state.withLock { $0.text += String(decoding: data, as: UTF8.self) }
            arrived.signal()
        }
    }

    /// The whole output once the child has closed its end, waiting at most `limit` for that.
    func all(within limit: Duration) -> String {
        first(within: limit) { text, ended in ended ? text : nil } ?? state.withLock { $0.text }
    }

    /// The first value `extract` finds in the output, waiting at most `limit` for it to arrive.
    func first<Value>(within limit: Duration, _ extract: (_ text: String, _ ended: Bool) -> Value?) -> Value? {
        let deadline = ContinuousClock.now + limit
        while true {
            if let value = state.withLock({ extract($0.text, $0.ended) }) { return value }
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return nil }
            let (seconds, attoseconds) = left.components
            let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
            _ = arrived.wait(timeout: .now() + .nanoseconds(nanoseconds))
        }
    }
}
