import Testing

@testable import QueueSim

/// `client.connections`, a group's `connections`, `client.sourceAddresses`,
/// `target.protectedApiEndpoint`, `target.caFile`, and the descriptor budget they lead to.
@Suite("connection keys")
struct ConnectionKeysTests {
    static let base = """
        version: 1
        target: { customerId: acme, waitingRoomId: launch }
        arrivals: { phases: [ { burst: 10 } ] }
        """

    @Test("device is the default; shared by client or by group")
    func models() throws {
        let scenario = try ScenarioTestSupport.load(
            Self.base + """

                client: { connections: shared }
                visitors: [ { name: a }, { name: b, connections: device } ]
                """)
        #expect(scenario.client.connections == .shared)
        #expect(scenario.groups.map(\.connections) == [nil, .device])
        #expect(try ScenarioTestSupport.load(Self.base).client.connections == .device)
    }

    @Test("bad values are refused at their positions, with a suggestion")
    func refusals() {
        let problems = ScenarioTestSupport.problems(
            Self.base + """

                client: { connections: shraed, sourceAddresses: 10.0.0.1-10.0.0.9 }
                """)
        #expect(
            problems == [
                "4:24: `client.connections` must be one of device, shared, found `shraed`; did you mean `shared`?",
                "4:49: `client.sourceAddresses` must be loopback addresses (127.x.x.x), found \"10.0.0.1-10.0.0.9\"; to spread visitors over real addresses, shard the run over machines (docs/distributed.md)",
            ])
        #expect(
            ScenarioTestSupport.problems(Self.base + "\nclient: { sourceAddresses: 127.0.0.9-127.0.0.2 }")
                == [
                    "4:28: `client.sourceAddresses` must be an IPv4 address or a range such as 127.0.0.2-127.0.0.200, found \"127.0.0.9-127.0.0.2\""
                ])
        let target = ScenarioTestSupport.problems(
            """
            version: 1
            target: { customerId: acme, waitingRoomId: launch, protectedApiEndpoint: "https://x/api", caFile: nope.pem }
            arrivals: { phases: [ { burst: 10 } ] }
            """)
        #expect(target.count == 2)
        #expect(target.first?.hasPrefix("2:74: `target.protectedApiEndpoint` must be a base URL") == true)
        #expect(target.last == "2:99: `target.caFile`: cannot read nope.pem")
    }

    @Test("source address ranges")
    func ranges() throws {
        let range = try #require(SourceAddressRange.parse("127.0.0.2-127.0.1.1"))
        #expect(range.count == 256)
        #expect(range.addresses.first == "127.0.0.2")
        #expect(range.addresses.last == "127.0.1.1")
        #expect(SourceAddressRange.parse("127.0.0.1")?.count == 1)
        for bad in ["127.0.0", "127.0.0.256", "127.0.0.1-", "a.b.c.d", "127.0.0.01x"] {
            #expect(SourceAddressRange.parse(bad) == nil, "\(bad)")
        }
    }

    @Test("the descriptor budget: device visitors in flight × their connections × both ends, against the limit")
    func descriptorBudget() throws {
        let scenario = try ScenarioTestSupport.load(
            """
            version: 1
            target: { customerId: acme, waitingRoomId: launch }
            arrivals: { phases: [ { burst: 6000 } ] }
            visitors: [ { name: app }, { name: api, flow: protectedApi } ]
            run: { concurrency: 5000 }
            """)
        let budget = DescriptorBudget(scenario: scenario, peakInFlight: 5000, limit: 20_000)
        #expect(budget.connectionsPerVisitor == 3)
        #expect(budget.descriptorsPerConnection == 2)
        #expect(budget.needed == 5000 * 3 * 2 + DescriptorBudget.reserve)
        #expect(!budget.fits)
        #expect(budget.limitedByConcurrency)
        #expect(
            budget.refusal.hasPrefix(
                "run.concurrency allows 5000 visitors in flight at once, whose own connections (3 each, `client.connections: device`) (both ends in this process, with the embedded room) need 30256 file descriptors, but this process may open 20000"
            ), "\(budget.refusal)")
        var shared = scenario
        shared.client.connections = .shared
        let sharedBudget = DescriptorBudget(scenario: shared, peakInFlight: 5000, limit: 20_000)
        #expect(sharedBudget.fits, "shared connections are capped by the pool: \(sharedBudget.needed)")
        // Android in flight holds one WebView connection (two with the protected API); a mix
        // counts its largest platform. Its enqueue connections are held apart from them, open
        // after their answers (OkHttp's pool): the burst's 6,000 within the room's 60 s.
        var android = scenario
        android.client.platform = .android
        #expect(DescriptorBudget(scenario: android, peakInFlight: 5000, limit: 20_000).connectionsPerVisitor == 2)
        android.groups.removeLast()
        let androidRun = DescriptorBudget(scenario: android, peakInFlight: 9000, limit: 20_000)
        #expect(androidRun.connectionsPerVisitor == 1)
        #expect(androidRun.heldConnections == 6000)
        #expect(androidRun.needed == (9000 + 6000) * 2 + DescriptorBudget.reserve)
        #expect(!androidRun.fits)
        android.groups[0].platformMix = PlatformMix(shares: [.init(.android, 0.5), .init(.ios, 0.5)])
        #expect(DescriptorBudget(scenario: android, peakInFlight: 9000, limit: 20_000).connectionsPerVisitor == 2)
    }

    @Test("the descriptor budget counts a WebView connection per target.hosts host other than the room's and the API's")
    func descriptorBudgetCountsPageHosts() throws {
        let scenario = try ScenarioTestSupport.load(
            """
            version: 1
            target:
              customerId: acme
              waitingRoomId: launch
              endpoint: "http://127.0.0.1:9"
              protectedApi: "https://api.acme.example/orders"
              hosts:
                challenge.example: "http://127.0.0.1:9"
                queue.acme.example: "http://127.0.0.1:9"
                acme.queue-it.net: "http://127.0.0.1:9"
                api.acme.example: "http://127.0.0.1:9"
            arrivals: { phases: [ { burst: 10 } ] }
            visitors: [ { name: app, platform: ios } ]
            """)
        // The room's host and the API's are routed by their entries, not extra hosts.
        let budget = DescriptorBudget(scenario: scenario, peakInFlight: 10, limit: 20)
        #expect(budget.pageHostConnections == 2)
        #expect(budget.connectionsPerVisitor == 4)
        #expect(
            budget.refusal.contains(
                "(4 each, 2 of them for `target.hosts` hosts a page may be sent to, `client.connections: device`)"),
            "\(budget.refusal)")
        var withoutHosts = scenario
        withoutHosts.target.hosts = []
        #expect(DescriptorBudget(scenario: withoutHosts, peakInFlight: 10, limit: 20).connectionsPerVisitor == 2)
    }
}
