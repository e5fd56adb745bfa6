import Foundation
import HTTPTypes
import QueueClientCore
import QueueSim
import Testing
import VisitorDriver

/// `queuesim serve` as a user runs it: a real process on 127.0.0.1, driven by the client core
/// over HTTP, stopped with SIGINT.
@Suite("queuesim serve", .serialized)
struct ServeCommandTests {
    static let scenario = """
        version: 1
        name: serve-test
        target:
          customerId: acme
          waitingRoomId: spring-launch
          waitingRoomDomain: shop.example.com
          queuePathPrefix: /queue/
        arrivals: { phases: [ { burst: 1 } ] }
        waitingRoom:
          mode: queue
          outflow: 6000/min
          secretKey: serve-test-secret
          tokenValidity: 3m
        """

    @Test(.timeLimit(.minutes(1)))
    func servesTheRoomToTheClientCoreAndStopsOnSIGINT() async throws {
        let file = try TemporaryScenario(bytes: Array(Self.scenario.utf8))
        let server = try ServeProcess(arguments: ["serve", file.path, "--port", "0"])
        defer { server.kill() }
        let port = try server.waitForPort()
        let transport = AsyncHTTPTransport(connectTo: ConnectTarget(scheme: "http", host: "127.0.0.1", port: port))

        // The SDK's whole journey: enqueue through the proxy domain and prefix, poll the queue
        // page, reach the target with a token the room signed.
        let configuration = VisitorConfiguration(
            group: VisitorGroupSettings(
                customerId: "acme", waitingRoomId: "spring-launch", waitingRoomDomain: "shop.example.com",
                queuePathPrefix: "/queue/", userAgent: "queuesim tests", sdkVersion: "iOS-3.5.2",
                requestTimeout: .seconds(5), pollInterval: .milliseconds(200), maxWait: .seconds(20)),
            userId: "serve-test-visitor")
        let result = await runVisitor(configuration: configuration, transport: transport, clock: WallClock())
        #expect(result.outcome == .passed)
        #expect(result.redirectType == "queue")
        // No `#require` and no early return before the transport is shut down: a client
        // released without `shutdown()` traps in AsyncHTTPClient and takes every other test with it.
        if let token = result.queueitToken {
            let validator = KnownUserTokenValidator(secretKey: "serve-test-secret", eventId: "spring-launch")
            let now = Int64(Date().timeIntervalSince1970)
            if case .success(let parsed) = validator.validate(token, nowUnixSeconds: now) {
                #expect(parsed.queueId == result.queueId)
                #expect((parsed.expiryUnixSeconds ?? 0) > now)
            } else {
                Issue.record("the room's token does not validate: \(validator.validate(token, nowUnixSeconds: now))")
            }
        } else {
            Issue.record("the visitor passed without a token: \(result)")
        }

        // A misconfigured proxy: the wrong host, or the right host without the prefix.
        for (host, path) in [
            ("evil.example", "/queue/api/mobileapp/queue/acme/spring-launch/enqueue"),
            ("shop.example.com", "/api/mobileapp/queue/acme/spring-launch/enqueue"),
        ] {
            let head = HTTPRequest(method: .post, scheme: "https", authority: host, path: path)
            let body = Array(#"{"userId":"u","userAgent":"t","sdkVersion":"iOS-3.5.2"}"#.utf8)
            let answer = await transport.execute(OutgoingRequest(head: head, body: body), timeout: .seconds(5))
            #expect((try? answer.get().status.code) == 404, "\(host)\(path)")
        }
        try await transport.shutdown()

        let exit = try server.interruptAndWait(limit: .seconds(10))
        #expect(exit.status == 0)
        #expect(exit.stderr.contains("queuesim serve: stopped"))
    }

    @Test func aNonLoopbackHostIsWarnedAboutTheMissingAuthentication() throws {
        let file = try TemporaryScenario(bytes: Array(Self.scenario.utf8))
        let open = try ServeProcess(arguments: ["serve", file.path, "--host", "0.0.0.0", "--port", "0"])
        defer { open.kill() }
        _ = try open.waitForPort(host: "0.0.0.0")
        let warned = try open.interruptAndWait(limit: .seconds(10))
        #expect(warned.status == 0)
        #expect(
            warned.stderr.contains(
                "queuesim serve: warning: --host 0.0.0.0 is not a loopback address, so other machines may reach this room; it has no authentication"
            ), "\(warned.stderr)")

        let local = try ServeProcess(arguments: ["serve", file.path, "--port", "0"])
        defer { local.kill() }
        _ = try local.waitForPort()
        let quiet = try local.interruptAndWait(limit: .seconds(10))
        #expect(quiet.status == 0)
        #expect(!quiet.stderr.contains("warning"), "\(quiet.stderr)")
    }

    @Test func aPortInUseIsExitThree() throws {
        let file = try TemporaryScenario(bytes: Array(Self.scenario.utf8))
        let first = try ServeProcess(arguments: ["serve", file.path, "--port", "0"])
        defer { first.kill() }
        let port = try first.waitForPort()
        let second = try QueueSimProcess.run(["serve", file.path, "--port", String(port)])
        #expect(second.status == 3, "\(second.stderr)")
        #expect(second.stderr.contains("could not serve"), "\(second.stderr)")
        #expect(
            second.stderr.contains(
                "could not serve on 127.0.0.1:\(port): Address already in use (errno 98); choose another --port or stop the program using it"
            ), "\(second.stderr)")
    }
}

/// A long-running `queuesim serve` child whose output goes to files.
final class ServeProcess {
    let process = Process()
    let stdout: URL
    let stderr: URL
    private let output: ChildOutput
    private let exit: ChildExit

    /// `environment`: added to this process's own (`JOB_COMPLETION_INDEX` for a shard).
    init(arguments: [String], environment: [String: String] = [:]) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "queuesim-serve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        stdout = folder.appendingPathComponent("stdout")
        stderr = folder.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: stdout.path, contents: nil)
        _ = FileManager.default.createFile(atPath: stderr.path, contents: nil)
        process.executableURL = URL(fileURLWithPath: try QueueSimProcess.executable())
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: QueueSimProcess.repositoryRoot)
        output = try ChildOutput(copyingTo: stdout)
        process.standardOutput = output.pipe
        process.standardError = try FileHandle(forWritingTo: stderr)
        process.standardInput = FileHandle.nullDevice
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        exit = ChildExit(process)
        try process.run()
    }

    /// Waits for the child to end on its own, killing it (and throwing) after `limit`.
    func wait(limit: Duration) throws -> (status: Int32, stdout: String, stderr: String) {
        guard exit.wait(limit) else {
            kill()
            throw QueueSimProcess.Failure.timedOut(limit)
        }
        process.waitUntilExit()
        return (
            process.terminationStatus, output.all(within: .seconds(5)),
            (try? String(contentsOf: stderr, encoding: .utf8)) ?? ""
        )
    }

    /// The port from the banner (`listening on http://127.0.0.1:PORT`; `https` over TLS), within
    /// 20 s: woken by each write of the child, not by a timer.
    func waitForPort(host: String = "127.0.0.1", scheme: String = "http") throws -> Int {
        let port = output.first(within: .seconds(20)) { text, ended -> Int?? in
            if let range = text.range(of: "listening on \(scheme)://\(host):") {
                let digits = text[range.upperBound...].prefix { $0.isNumber }
                if let port = Int(digits) { return .some(port) }
            }
            // The child closed its output without a banner: no point waiting on.
            return ended ? .some(nil) : nil
        }
        guard let port = port ?? nil else { throw QueueSimProcess.Failure.timedOut(.seconds(20)) }
        return port
    }

    func interruptAndWait(limit: Duration) throws -> (status: Int32, stderr: String) {
        process.interrupt()
        guard exit.wait(limit) else {
            kill()
            throw QueueSimProcess.Failure.timedOut(limit)
        }
        process.waitUntilExit()
        return (process.terminationStatus, (try? String(contentsOf: stderr, encoding: .utf8)) ?? "")
    }

    func kill() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }
}
