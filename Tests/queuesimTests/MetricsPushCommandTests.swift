import Foundation
import StandInServers
import Synchronization
import Testing

/// Issue 51, `run --metrics-push`: a URL that cannot work is exit 2 before anything runs (port
/// 99999 once trapped at the end of the run), a hostile receiver costs a run at most
/// `--metrics-push-timeout`, a signal cancels the push and the end screen survives, and a
/// URL's credentials reach no file and no terminal.
@Suite("queuesim run: --metrics-push against hostile receivers", .serialized)
struct MetricsPushCommandTests {
    static let scenario = """
        version: 1
        name: metrics-push
        seed: 5
        clock: virtual
        target: { customerId: acme, waitingRoomId: launch, endpoint: embedded }
        client: { pollInterval: 5s, maxWait: 4m }
        arrivals:
          phases:
            - { burst: 50 }
        visitors:
          - { name: app }
        waitingRoom:
          outflow: 60/min
        """

    static func scenarioFile() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("push-\(UUID().uuidString).yaml").path
        try scenario.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func portOutOfRangeIsAUsageErrorBeforeTheRun() throws {
        let out = RunCommandProcess.reportDirectory()
        let result = try QueueSimProcess.run(
            ["run", try Self.scenarioFile(), "--out", out, "--metrics-push", "http://127.0.0.1:99999/api/v1/write"])
        #expect(result.status == 2, "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "\"http://127.0.0.1:99999/api/v1/write\" has a port that is not a number from 1 to 65535 (99999)"),
            "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test func badPushURLsAndTimeoutsAreUsageErrors() throws {
        let file = try Self.scenarioFile()
        for (option, value, says) in [
            ("--metrics-push", "http://host/../admin", "has a . or .. path segment"),
            ("--metrics-push", "http://host/write#x", "has a fragment"),
            ("--metrics-push", "http://a:TOKEN@b@host/w", "\"http://<redacted>@host/w\" has an @"),
            ("--metrics-push-timeout", "0s", "--metrics-push-timeout takes a duration from 1s to 10m"),
            ("--metrics-push-timeout", "11m", "--metrics-push-timeout takes a duration from 1s to 10m"),
        ] {
            let result = try QueueSimProcess.run(["run", file, option, value])
            #expect(result.status == 2, "\(option) \(value)")
            #expect(result.stderr.contains(says), "\(result.stderr)")
            #expect(!result.stderr.contains("TOKEN"), "\(result.stderr)")
        }
    }

    /// The credentials of a hosted receiver's URL are in no report file, not on stderr and
    /// not on stdout; the warning names the receiver with `<redacted>` for them.
    @Test func aURLsCredentialsAreNeverWritten() async throws {
        try await RawHTTPServer.with(reply: { _ in .bytes(RawHTTPServer.answer(status: "401 Unauthorized", body: "no"))
        }) { server in
            let out = RunCommandProcess.reportDirectory()
            let url = "http://tenant:TOKEN-s3cret@127.0.0.1:\(server.port)/api/v1/write?token=QTOKEN"
            let result = try await QueueSimProcess.runOffPool(
                ["run", try Self.scenarioFile(), "--out", out, "--metrics-push", url], limit: .seconds(60))
            #expect(result.status == 0, "\(result.stderr)")
            let redacted = "http://<redacted>@127.0.0.1:\(server.port)/api/v1/write?token=<redacted>"
            #expect(result.stderr.contains("the receiver at \(redacted) answered 401: no"), "\(result.stderr)")
            for secret in ["TOKEN-s3cret", "QTOKEN"] {
                #expect(!result.stderr.contains(secret), "\(result.stderr)")
                #expect(!result.stdout.contains(secret))
            }
            let folder = try FileManager.default.destinationOfSymbolicLink(atPath: out)
            let resolved = folder.hasPrefix("/") ? folder : (out as NSString).deletingLastPathComponent + "/" + folder
            let files = try FileManager.default.contentsOfDirectory(atPath: resolved)
            #expect(files.contains("run.json"))
            for name in files {
                let data = try Data(contentsOf: URL(fileURLWithPath: resolved + "/" + name))
                let text = String(decoding: data, as: UTF8.self)
                #expect(!text.contains("TOKEN-s3cret") && !text.contains("QTOKEN"), "\(name) holds the secret")
            }
            let manifest = try String(contentsOfFile: resolved + "/run.json", encoding: .utf8)
            #expect(manifest.contains("http://<redacted>@127.0.0.1"), "run.json's command_line keeps the URL's shape")
        }
    }

    /// A receiver that never answers costs a virtual run `--metrics-push-timeout`, not forever,
    /// and the warning says what happened; the exit code is the run's.
    @Test func aStallingReceiverCostsAtMostThePushTimeout() async throws {
        try await RawHTTPServer.with(reply: { _ in .stall("HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n") }) {
            server in
            let file = try Self.scenarioFile()
            let url = "http://127.0.0.1:\(server.port)/api/v1/write"
            // The same run without a push: what the run itself takes here.
            let plain = try await QueueSimProcess.runOffPool(
                ["run", file, "--out", RunCommandProcess.reportDirectory(), "--quiet"], limit: .seconds(60))
            let result = try await QueueSimProcess.runOffPool(
                [
                    "run", file, "--out", RunCommandProcess.reportDirectory(), "--quiet", "--metrics-push", url,
                    "--metrics-push-timeout", "2s",
                ], limit: .seconds(60))
            #expect(result.status == 0, "\(result.stderr)")
            #expect(
                result.stderr.contains("the receiver at \(url) sent its headers and then nothing for 2s"),
                "\(result.stderr)")
            #expect(result.elapsed < plain.elapsed + .seconds(2) + .milliseconds(1500), "took \(result.elapsed)")
            #expect(server.requestsReceived >= 1)
        }
    }

    /// On the wall clock too: the final push to a receiver that never answers costs the run
    /// `--metrics-push-timeout`, and the warning says so.
    @Test func aWallClockRunsFinalPushIsBoundedToo() async throws {
        let wall = Self.scenario.replacingOccurrences(of: "clock: virtual", with: "clock: wall")
            .replacingOccurrences(of: "- { burst: 50 }", with: "- { duration: 1s, rate: 10 }")
            .replacingOccurrences(of: "pollInterval: 5s", with: "pollInterval: 1s")
            .replacingOccurrences(of: "outflow: 60/min", with: "outflow: 6000/min")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("push-\(UUID().uuidString).yaml").path
        try wall.write(toFile: file, atomically: true, encoding: .utf8)
        try await RawHTTPServer.with(reply: { _ in .stall("") }) { server in
            let url = "http://127.0.0.1:\(server.port)/api/v1/write"
            let plain = try await QueueSimProcess.runOffPool(
                ["run", file, "--out", RunCommandProcess.reportDirectory(), "--quiet"], limit: .seconds(60))
            let result = try await QueueSimProcess.runOffPool(
                [
                    "run", file, "--out", RunCommandProcess.reportDirectory(), "--quiet", "--metrics-push", url,
                    "--metrics-push-timeout", "2s",
                ], limit: .seconds(60))
            #expect(result.status == plain.status, "\(result.stderr)")
            #expect(
                result.stderr.contains("the final metrics push failed: no answer from \(url) within 2s"),
                "\(result.stderr)")
            #expect(result.elapsed < plain.elapsed + .seconds(2) + .milliseconds(1500), "took \(result.elapsed)")
        }
    }

    /// SIGINT or SIGTERM while the end-of-run push hangs: the push ends within a second, the
    /// end screen was printed, and the exit is 130 or 143 with a last line that says why.
    @Test(arguments: [SIGINT, SIGTERM])
    func aSignalCancelsThePushAndTheEndScreenSurvives(_ signal: Int32) async throws {
        let child = Mutex<(pid: Int32?, signalledAt: ContinuousClock.Instant?)>((nil, nil))
        try await RawHTTPServer.with(reply: { _ in
            // The push has arrived: interrupt the child that sent it.
            child.withLock { child in
                guard let pid = child.pid, child.signalledAt == nil else { return }
                child.signalledAt = .now
                kill(pid, signal)
            }
            return .stall("")
        }) { server in
            let url = "http://127.0.0.1:\(server.port)/api/v1/write"
            let result = try await SignalledChild.run(
                [
                    "run", try Self.scenarioFile(), "--out", RunCommandProcess.reportDirectory(), "--metrics-push", url,
                    "--metrics-push-timeout", "5m",
                ],
                publish: { pid in child.withLock { $0.pid = pid } }, limit: .seconds(60))
            #expect(result.status == 128 + signal, "\(result.stderr)")
            #expect(result.stdout.contains("exit 0:"), "the end screen: \(result.stdout)")
            #expect(
                result.stderr.contains(
                    "(exit \(128 + signal)): \(signal == SIGTERM ? "SIGTERM" : "SIGINT") cancelled the metrics push after the run had finished"
                ),
                "\(result.stderr)")
            #expect(result.stderr.contains("pushing metrics.prom was cancelled"), "\(result.stderr)")
            let signalledAt = try #require(child.withLock { $0.signalledAt })
            #expect(
                result.endedAt - signalledAt < .seconds(1), "ended \(result.endedAt - signalledAt) after the signal")
        }
    }
}

/// Runs queuesim with its pid published (for a test server to signal it), off Swift's
/// cooperative pool, and says when it ended.
enum SignalledChild {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        var endedAt: ContinuousClock.Instant
    }

    static func run(
        _ arguments: [String], publish: @escaping @Sendable (Int32) -> Void, limit: Duration
    ) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Swift.Result { try runBlocking(arguments, publish: publish, limit: limit) })
            }
        }
    }

    private static func runBlocking(
        _ arguments: [String], publish: (Int32) -> Void, limit: Duration
    ) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try QueueSimProcess.executable())
        process.arguments = arguments
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("push-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("stdout")
        let err = folder.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        process.standardInput = FileHandle.nullDevice
        let exit = ChildExit(process)
        try process.run()
        publish(process.processIdentifier)
        guard exit.wait(limit) else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw QueueSimProcess.Failure.timedOut(limit)
        }
        let endedAt = ContinuousClock.now
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus,
            stdout: (try? String(contentsOf: out, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOf: err, encoding: .utf8)) ?? "",
            endedAt: endedAt)
    }
}
