import Foundation
import StandInServers
import Testing

@testable import QueueSim

/// A whole wall-clock run says how many connections it held open idle at the peak: Android's
/// enqueue connections, left open after their answers as OkHttp leaves them.
@Suite("idle connections held in a run", .serialized, .timeLimit(.minutes(1)))
struct HeldConnectionRunTests {
    static func run(platform: String) async throws -> RunReports {
        try await ScriptedQueueItServer.with(script: StandInEndpointTests.script(StandInEndpointTests.CallCounter())) {
            server in
            try await RunFixture.wall(
                """
                version: 1
                name: held
                seed: 3
                target: { customerId: acme, waitingRoomId: launch, endpoint: "http://127.0.0.1:\(server.port)" }
                client: { platform: \(platform), pollInterval: 200ms, maxWait: 30s, requestTimeout: 5s }
                arrivals: { phases: [ { burst: 4 } ] }
                visitors: [ { name: app, enqueueKey: queue } ]
                """)
        }
    }

    @Test("Android: run.json and report.html (the end screen's line too) count the enqueue connections held")
    func androidHeldCounted() async throws {
        let reports = try await Self.run(platform: "android")
        #expect(reports.outcomes == ["passed": 4])
        let generator = try #require(reports.manifest["generator"] as? [String: Any])
        #expect(generator["idle_connections_peak"] as? Int == 4, "\(generator)")
        let page = try String(contentsOfFile: reports.directory + "/report.html", encoding: .utf8)
        #expect(page.contains("8 opened, 4 held open idle at the peak (Android enqueue connections)"))
    }

    @Test("iOS: nothing is held for nobody, and run.json has no idle_connections_peak")
    func iosHoldsNothing() async throws {
        let reports = try await Self.run(platform: "ios")
        #expect(reports.outcomes == ["passed": 4])
        let generator = try #require(reports.manifest["generator"] as? [String: Any])
        #expect(generator["idle_connections_peak"] == nil)
        #expect(generator["connections_opened"] as? Int == 8)
    }
}
