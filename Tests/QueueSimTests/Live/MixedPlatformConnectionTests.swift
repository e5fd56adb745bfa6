import Foundation
import StandInServers
import Testing

@testable import QueueSim

/// A group that mixes platforms on the wall clock (issue 29, item 6): each visitor's requests
/// ride connections the way its own platform's SDK opens them, not its group's.
@Suite("a mixed group's connections on the wall clock", .serialized, .timeLimit(.minutes(1)))
struct MixedPlatformConnectionTests {
    @Test("three enqueue attempts: an Android visitor opens three connections, an iOS visitor keeps one")
    func eachVisitorConnectsAsItsPlatform() async throws {
        let counter = StandInEndpointTests.CallCounter()
        let (requests, reports) = try await ScriptedQueueItServer.with(script: StandInEndpointTests.script(counter)) {
            server in
            let yaml = """
                version: 1
                name: mixed-connections
                seed: 3
                target: { customerId: acme, waitingRoomId: launch, endpoint: "http://127.0.0.1:\(server.port)" }
                client: { pollInterval: 200ms, maxWait: 30s, requestTimeout: 5s, connections: device }
                arrivals: { phases: [ { burst: 8 } ] }
                visitors: [ { name: app, enqueueKey: flaky, platform: { ios: 50%, android: 50% } } ]
                """
            let reports = try await RunFixture.wall(yaml)
            return (server.received.filter { $0.path != "/" }, reports)
        }
        #expect(reports.outcomes == ["passed": 8])
        let platforms = Set(reports.visitors.column("platform"))
        #expect(platforms == ["ios", "android"], "seed 3 draws both platforms")
        // Android's user ids are 16 hex digits (ANDROID_ID), iOS's are UUIDs.
        let attempts = Dictionary(grouping: requests.filter { $0.method == "POST" }) { $0.bodyField("userId") ?? "" }
        #expect(attempts.count == 8)
        for (userId, own) in attempts {
            #expect(own.count == 3, "two 503s, then the pass")
            let ports = Set(own.map(\.clientPort)).count
            #expect(ports == (userId.count == 16 ? 3 : 1), "\(userId): \(ports) connection(s)")
        }
    }
}
