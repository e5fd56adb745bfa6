import StandInServers
import Testing

@testable import QueueSim

/// A group's `apiUserAgent`: the app's own `User-Agent` on its protected-API calls.
@Suite("group apiUserAgent key", .serialized, .timeLimit(.minutes(1)))
struct ApiUserAgentKeyTests {
    static func yaml(_ group: String, endpoint: String = "embedded", api: String = "https://api.shop.example/cart")
        -> String
    {
        """
        version: 1
        name: ua
        target: { customerId: acme, waitingRoomId: launch, endpoint: "\(endpoint)", protectedApi: "\(api)" }
        arrivals: { phases: [ { burst: 2 } ] }
        visitors: [ \(group) ]
        """
    }

    @Test("read per group; absent: the stack's own")
    func values() throws {
        let scenario = try ScenarioTestSupport.load(
            Self.yaml(#"{ name: app, flow: protectedApi, apiUserAgent: "Shop/5.2 (iPhone)" }, { name: web }"#))
        #expect(scenario.groups.map(\.apiUserAgent) == ["Shop/5.2 (iPhone)", nil])
    }

    @Test("empty or with a control character: refused at its position")
    func refusals() {
        #expect(
            ScenarioTestSupport.problems(Self.yaml(#"{ name: app, apiUserAgent: "" }"#)) == [
                "5:40: `visitors[0].apiUserAgent` must not be empty (leave it out for the stack's own user agent)"
            ])
        #expect(
            ScenarioTestSupport.problems(Self.yaml(#"{ name: app, apiUserAgent: "Shop\r\nX-Evil: 1" }"#)) == [
                "5:40: `visitors[0].apiUserAgent` is sent as the `User-Agent` header, which cannot hold a control character (U+000D)"
            ])
    }

    @Test("the protected API hears the group's own user agent")
    func sent() async throws {
        try await ScriptedQueueItServer.with(script: { _ in StandInAnswer(status: 200, body: "{}") }) { api in
            try await ScriptedQueueItServer.with(script: { _ in StandInAnswer(status: 404) }) { room in
                _ = try await RunFixture.wall(
                    Self.yaml(
                        #"{ name: app, flow: protectedApi, platform: android, apiUserAgent: "Shop/5.2 (Pixel 8)" }"#,
                        endpoint: "http://127.0.0.1:\(room.port)", api: "http://127.0.0.1:\(api.port)/cart"))
                #expect(api.received.count == 2)
                #expect(api.received.allSatisfy { $0.header("User-Agent") == "Shop/5.2 (Pixel 8)" })
            }
        }
    }
}
