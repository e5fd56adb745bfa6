import Testing

@testable import QueueSim

/// `target.hosts: { host: base URL }`: where to connect for a host a visitor meets.
@Suite("target.hosts key")
struct TargetHostsKeyTests {
    static func yaml(_ hosts: String) -> String {
        """
        version: 1
        target:
          customerId: acme
          waitingRoomId: launch
          hosts: \(hosts)
        arrivals: { phases: [ { burst: 10 } ] }
        """
    }

    @Test("entries are read in order, hosts lowercased")
    func entries() throws {
        let scenario = try ScenarioTestSupport.load(
            Self.yaml(#"{ Challenge.Example.com: "https://127.0.0.1:8443", queue.shop.example: "http://10.0.0.5" }"#))
        #expect(
            scenario.target.hosts == [
                HostRoute(
                    host: "challenge.example.com", endpoint: .baseURL(scheme: "https", host: "127.0.0.1", port: 8443)),
                HostRoute(host: "queue.shop.example", endpoint: .baseURL(scheme: "http", host: "10.0.0.5", port: nil)),
            ])
        #expect(try ScenarioTestSupport.load(Self.yaml("{}")).target.hosts.isEmpty)
    }

    @Test("bad hosts and URLs are refused at their positions")
    func refusals() {
        #expect(
            ScenarioTestSupport.problems(Self.yaml(#"[ "https://x" ]"#)) == [
                #"5:10: `target.hosts` must be a mapping of host names to base URLs, such as { challenge.example.com: "https://127.0.0.1:8443" }, found a list"#
            ])
        #expect(
            ScenarioTestSupport.problems(Self.yaml(#"{ "https://a.example": "https://127.0.0.1" }"#)) == [
                #"5:12: `target.hosts`: "https://a.example" is not a host name; write the host alone (no scheme, port or path), such as challenge.example.com"#
            ])
        #expect(
            ScenarioTestSupport.problems(Self.yaml(#"{ a.example: "https://127.0.0.1/path" }"#)) == [
                #"5:23: `target.hosts.a.example` must be a base URL such as https://staging.example or http://127.0.0.1:8443 (scheme, host and port only); a path is not allowed, found "https://127.0.0.1/path""#
            ])
        #expect(
            ScenarioTestSupport.problems(
                Self.yaml(#"{ a.example: "https://127.0.0.1", A.example: "http://127.0.0.1" }"#))
                == ["5:44: `target.hosts` names A.example twice"])
        #expect(
            ScenarioTestSupport.problems(Self.yaml("{ a.example: { url: x } }")) == [
                "5:23: `target.hosts.a.example` must be a base URL such as https://127.0.0.1:8443, found a mapping"
            ])
    }
}
