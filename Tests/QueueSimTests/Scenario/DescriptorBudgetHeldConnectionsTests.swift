import Testing

@testable import QueueSim

/// The descriptor preflight counts Android's enqueue connections held open after their answers:
/// Android attempts per second × the lesser of OkHttp's 5 minutes and the server's idle timeout
/// (the embedded room's 60 s; 5 minutes assumed for a server whose timeout is not known).
@Suite("descriptor budget: held Android connections")
struct DescriptorBudgetHeldConnectionsTests {
    static func scenario(
        platform: String, endpoint: String = "", connections: String = "device",
        arrivals: String = "{ phases: [ { duration: 10m, rate: 100 } ] }"
    ) throws -> Scenario {
        try ScenarioTestSupport.load(
            """
            version: 1
            target: { customerId: acme, waitingRoomId: launch\(endpoint) }
            client: { platform: \(platform), connections: \(connections) }
            arrivals: \(arrivals)
            visitors: [ { name: app } ]
            run: { concurrency: 1000 }
            """)
    }

    @Test("the stacks' figures: OkHttp keeps 5 minutes; the embedded room closes idle connections after 60 s")
    func figures() {
        #expect(DescriptorBudget.okHttpKeepAlive == .seconds(300))
        #expect(IdleLifetime.okHttpKeepAlive == DescriptorBudget.okHttpKeepAlive)
        #expect(WaitingRoomServer.defaultIdleTimeout == DescriptorBudget.embeddedRoomIdleTimeout)
    }

    @Test("embedded room: 100 Android attempts a second × its 60 s idle timeout, both ends in this process")
    func embeddedRoom() throws {
        let budget = DescriptorBudget(
            scenario: try Self.scenario(platform: "android"), peakInFlight: 1000, limit: 100_000)
        #expect(budget.serverIdleTimeoutKnown)
        #expect(budget.heldFor == .seconds(60))
        #expect(budget.heldConnections == 6000)
        #expect(budget.needed == (1000 * 1 + 6000) * 2 + DescriptorBudget.reserve)
        #expect(budget.fits)
    }

    @Test("a real endpoint: 5 minutes assumed (its idle timeout is not known ahead), and the refusal says so")
    func realEndpointRefused() throws {
        let scenario = try Self.scenario(platform: "android", endpoint: ", endpoint: \"https://room.example\"")
        let budget = DescriptorBudget(scenario: scenario, peakInFlight: 1000, limit: 20_000)
        #expect(!budget.serverIdleTimeoutKnown)
        #expect(budget.heldFor == .seconds(300))
        #expect(budget.heldConnections == 30_000)
        #expect(budget.needed == 1000 + 30_000 + DescriptorBudget.reserve)
        #expect(!budget.fits)
        #expect(
            budget.refusal
                == "run.concurrency allows 1000 visitors in flight at once, whose own connections (1 each, `client.connections: device`), and about 30000 Android enqueue connections held open idle after their answers (OkHttp keeps each until the server closes it or 5 minutes pass; the server's idle timeout is not known ahead, so OkHttp's 5 minutes are assumed: the Android arrivals of the busiest 300 s) need 31256 file descriptors, but this process may open 20000 (ulimit -n's hard limit); lower the Android arrival rate, raise the limit, shard the run over processes (docs/distributed.md), or use `connections: shared`",
            "\(budget.refusal)")
    }

    @Test("held connections follow the Android share, the busiest span's bursts, --visitors and shards")
    func shares() throws {
        let mixed = try ScenarioTestSupport.load(
            """
            version: 1
            target: { customerId: acme, waitingRoomId: launch }
            arrivals: { phases: [ { duration: 10m, rate: 100 } ] }
            visitors: [ { name: app, platform: { ios: 50%, android: 50% } } ]
            """)
        #expect(DescriptorBudget(scenario: mixed, peakInFlight: 10, limit: 100_000).heldConnections == 3000)
        let burst = try Self.scenario(
            platform: "android", arrivals: "{ phases: [ { duration: 30s, rate: 10 }, { burst: 2000 } ] }")
        #expect(DescriptorBudget(scenario: burst, peakInFlight: 10, limit: 100_000).heldConnections == 2300)
        let android = try Self.scenario(platform: "android")
        #expect(
            DescriptorBudget(scenario: android, peakInFlight: 10, limit: 100_000, arrivalScale: 0.5, shards: 3)
                .heldConnections == 1000)
    }

    @Test("nothing held for iOS (URLSession keeps its connection its own) or for shared connections")
    func noneHeld() throws {
        #expect(
            DescriptorBudget(scenario: try Self.scenario(platform: "ios"), peakInFlight: 10, limit: 100_000)
                .heldConnections == 0)
        let shared = try Self.scenario(platform: "android", connections: "shared")
        #expect(DescriptorBudget(scenario: shared, peakInFlight: 10, limit: 100_000).heldConnections == 0)
    }
}
