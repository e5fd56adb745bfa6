import Foundation
import StandInServers
import Testing

@testable import QueueSim

/// The platform's request behaviour on the wall clock, over real sockets: OkHttp's silent 408
/// re-send, and Chromium's page loads that no 10 s timeout cuts short.
@Suite("platform behaviour on the wall clock", .serialized, .timeLimit(.minutes(1)))
struct PlatformWallTests {
    @Test("a 408 to an Android enqueue is re-sent at once on the same call and the visitor passes; iOS ends `error`")
    func okHttpResends408() async throws {
        for platform in ["android", "ios"] {
            let counter = StandInEndpointTests.CallCounter()
            let (posts, reports) = try await ScriptedQueueItServer.with(script: { request in
                guard request.method == "POST" else { return StandInAnswer(status: 200) }
                let userId = request.bodyField("userId") ?? "?"
                guard counter.next(userId) > 1 else {
                    return StandInAnswer(status: 408, body: "{\"error\":\"request timeout\"}")
                }
                return StandInEndpointTests.enqueueAnswer(
                    queueId: "q1", token: StandInEndpointTests.token(queueId: "q1", type: "safetynet"))
            }) { server in
                let yaml = """
                    version: 1
                    name: resend-408
                    seed: 3
                    target: { customerId: acme, waitingRoomId: launch, endpoint: "http://127.0.0.1:\(server.port)" }
                    client: { platform: \(platform), maxWait: 30s }
                    arrivals: { phases: [ { burst: 2 } ] }
                    visitors: [ { name: app } ]
                    """
                let reports = try await RunFixture.wall(yaml)
                return (server.received.filter { $0.method == "POST" }, reports)
            }
            if platform == "android" {
                #expect(reports.outcomes == ["passed": 2])
                #expect(posts.count == 4)
                #expect(reports.visitors.column("requests") == ["2", "2"])
                #expect(reports.visitors.column("attempts") == ["1", "1"])
            } else {
                #expect(reports.outcomes == ["error": 2])
                #expect(posts.count == 2)
                #expect(reports.visitors.column("http_status") == ["408", "408"])
            }
        }
    }

    @Test(
        "Android queue pages answered after 11 s pass: Chromium sets no read timeout (OkHttp's 10 s is the enqueue's)")
    func slowQueuePageOnAndroid() async throws {
        let reports = try await RunFixture.wall(
            """
            version: 1
            name: slow-page
            seed: 3
            target: { customerId: acme, waitingRoomId: launch }
            client: { platform: android, pollInterval: 1s, maxWait: 45s }
            arrivals: { phases: [ { burst: 2 } ] }
            visitors: [ { name: app } ]
            waitingRoom: { outflow: 600/min, latency: { queuePage: 11s, jitter: 0ms } }
            """)
        #expect(reports.outcomes == ["passed": 2])
        #expect(reports.visitors.column("wait_ms").allSatisfy { (Int($0) ?? 0) >= 11_000 })
    }
}
