import Testing

@testable import QueueSim

/// `client.http: auto | h1 | h2`: which HTTP version a wall-clock run's connections speak.
@Suite("client.http key")
struct HTTPVersionKeyTests {
    static let base = """
        version: 1
        target: { customerId: acme, waitingRoomId: launch }
        arrivals: { phases: [ { burst: 10 } ] }
        """

    @Test("auto is the default; h1 and h2 are read")
    func values() throws {
        #expect(try ScenarioTestSupport.load(Self.base).client.http == .auto)
        #expect(try ScenarioTestSupport.load(Self.base + "\nclient: { http: h1 }").client.http == .h1)
        #expect(try ScenarioTestSupport.load(Self.base + "\nclient: { http: h2 }").client.http == .h2)
    }

    @Test("a bad value is refused at its position, with the words it may be")
    func refusal() {
        #expect(
            ScenarioTestSupport.problems(Self.base + "\nclient: { http: http2 }")
                == ["4:17: `client.http` must be one of auto, h1, h2, found `http2`"])
        #expect(
            ScenarioTestSupport.problems(Self.base + "\nclient: { http: H2x }")
                == ["4:17: `client.http` must be one of auto, h1, h2, found `H2x`; did you mean `h2`?"])
    }
}
