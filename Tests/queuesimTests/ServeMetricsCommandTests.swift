import Foundation
import StandInServers
import Testing

/// `queuesim serve --metrics-listen`: the room's queue on `/metrics`, beside the room.
@Suite("queuesim serve: metrics", .serialized)
struct ServeMetricsCommandTests {
    static let scenario = """
        version: 1
        name: serve-metrics
        target: { customerId: acme, waitingRoomId: spring-launch }
        arrivals: { phases: [ { burst: 1 } ] }
        waitingRoom:
          mode: queue
          outflow: 1/min
        """

    @Test(.timeLimit(.minutes(1)))
    func theRoomsQueueIsOnMetrics() throws {
        let file = try TemporaryScenario(bytes: Array(Self.scenario.utf8))
        let metricsPort = try PrometheusProcess.freePort()
        let server = try ServeProcess(arguments: [
            "serve", file.path, "--port", "0", "--metrics-listen", "127.0.0.1:\(metricsPort)",
        ])
        defer { server.kill() }
        let port = try server.waitForPort()
        for visitor in 0..<3 {
            let answer = PrometheusTools.curl([
                "-X", "POST", "-H", "Content-Type: application/json",
                "--data", #"{"userId":"visitor-\#(visitor)","sdkVersion":"iOS-3.5.2"}"#,
                "http://127.0.0.1:\(port)/api/mobileapp/queue/acme/spring-launch/enqueue",
            ])
            #expect(answer.contains("QueueId"), "\(answer)")
        }
        let scrape = PrometheusTools.curl(["http://127.0.0.1:\(metricsPort)/metrics"])
        let queueLength = Self.value(scrape, "queuesim_room_queue_length")
        let released = Self.value(scrape, "queuesim_room_released_total")
        // 1/min: the first ticket's turn comes at once, the others wait a minute each.
        #expect(queueLength == 2, "\(scrape)")
        #expect(released == 1, "\(scrape)")
        #expect(scrape.contains(#"scenario="serve-metrics""#))
        let exit = try server.interruptAndWait(limit: .seconds(10))
        #expect(exit.status == 0)
        #expect(exit.stderr.contains("queuesim serve: metrics at http://127.0.0.1:\(metricsPort)/metrics"))
    }

    private static func value(_ scrape: String, _ name: String) -> Double? {
        scrape.split(separator: "\n").first { $0.hasPrefix(name + "{") }
            .flatMap { $0.split(separator: " ").last }.flatMap { Double($0) }
    }
}
