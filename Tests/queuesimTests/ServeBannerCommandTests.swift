import Foundation
import Testing

/// `queuesim serve`'s banner and its log at the default level (issue 29, item 7): the event
/// start, a recipe that reaches the queue page from this machine, a line per second.
@Suite("queuesim serve: banner and per-second log", .serialized)
struct ServeBannerCommandTests {
    static let scenario = ServeCommandTests.scenario + "\n  eventStart: 30s\n"

    @Test(.timeLimit(.minutes(1)))
    func theBannersRecipeReachesTheQueuePageAndEachSecondIsLogged() throws {
        let file = try TemporaryScenario(bytes: Array(Self.scenario.utf8))
        let server = try ServeProcess(arguments: [
            "serve", file.path, "--port", "0", "--start-at", "2026-01-01T00:00:00Z",
        ])
        defer { server.kill() }
        let port = try server.waitForPort()
        let banner = try String(contentsOf: server.stdout, encoding: .utf8)
        #expect(
            banner.contains(
                "  event start:     2026-01-01T00:00:30.000Z, 30s into the timeline (until then enqueues wait in the pre-queue, shuffled at the event start)"
            ), "\(banner)")
        let commands = banner.split(separator: "\n").map(String.init).filter { $0.hasPrefix("    curl ") }
        try #require(commands.count == 2, "\(banner)")
        #expect(
            commands[0].hasSuffix(
                "--connect-to ::127.0.0.1:\(port) -H 'Content-Type: application/json' -d '{\"userId\":\"u1\",\"userAgent\":\"curl\",\"sdkVersion\":\"iOS-3.5.2\"}' http://shop.example.com/queue/api/mobileapp/queue/acme/spring-launch/enqueue"
            ), "\(commands[0])")

        // The recipe as a user pastes it: the enqueue answer names the queue page to load.
        let enqueue = try Self.shell(commands[0])
        let answer = try #require(
            try JSONSerialization.jsonObject(with: Data(enqueue.utf8)) as? [String: Any], "\(enqueue)")
        let queueId = try #require(answer["QueueId"] as? String, "\(enqueue)")
        let page = try Self.shell(commands[1].replacingOccurrences(of: "QUEUE_ID", with: queueId))
        #expect(page.hasPrefix("HTTP/1.1 200") || page.hasPrefix("HTTP/1.1 302"), "\(page)")

        // Within a second or two, the room's summary lines on stderr.
        let deadline = ContinuousClock.now + .seconds(5)
        var log = ""
        while ContinuousClock.now < deadline {
            log = (try? String(contentsOf: server.stderr, encoding: .utf8)) ?? ""
            if log.contains("queue page 1") { break }
            Thread.sleep(forTimeInterval: 0.1)
        }
        #expect(log.contains("enqueue 1"), "\(log)")
        #expect(log.contains("queue page 1"), "\(log)")
        #expect(log.contains("1 enqueued so far"), "\(log)")
        #expect(try server.interruptAndWait(limit: .seconds(10)).status == 0)
    }

    /// Runs `command` with /bin/sh, as a terminal would; its standard output.
    static func shell(_ command: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
