import QueueClientCore
import Testing

@testable import QueueSim

/// Routing by the host a request's URL names: the room's hosts to the room, a protected API to
/// its own place, `target.hosts` entries to theirs, and nothing for a host no one named.
@Suite("live routes: by host, as a phone's DNS")
struct LiveRoutesTests {
    static let room = ConnectTarget(scheme: "https", host: "staging.example", port: 8443)

    static func routes(_ yaml: String, embedded: Bool = false) throws -> LiveRoutes {
        let scenario = try ScenarioTestSupport.load(yaml)
        return LiveRoutes(
            scenario: scenario, room: room, embedded: embedded,
            builtInAPI: RoomSetup.builtInProtectedAPIURL(for: scenario))
    }

    @Test("the room's host first; the API by its own URL; target.hosts by theirs; an unknown host has no route")
    func byHost() throws {
        let routes = try Self.routes(
            """
            version: 1
            target:
              customerId: acme
              waitingRoomId: launch
              protectedApi: https://api.shop.example/v1/cart
              hosts: { challenge.example.com: "https://127.0.0.1:9443" }
            arrivals: { phases: [ { burst: 1 } ] }
            visitors: [ { name: app, flow: protectedApi }, { name: beta, customerId: beta } ]
            """)
        #expect(
            routes.destinations.map { "\($0.target.origin) \($0.host)" } == [
                "https://staging.example:8443 acme.queue-it.net",
                "https://api.shop.example api.shop.example",
                "https://staging.example:8443 beta.queue-it.net",
                "https://127.0.0.1:9443 challenge.example.com",
            ])
        #expect(routes.endpoint(forAuthority: "acme.queue-it.net") == 0)
        #expect(routes.endpoint(forAuthority: "ACME.queue-it.net:443") == 0)
        #expect(routes.endpoint(forAuthority: "api.shop.example") == 1)
        #expect(routes.endpoint(forAuthority: "beta.queue-it.net") == 2)
        #expect(routes.endpoint(forAuthority: "challenge.example.com") == 3)
        #expect(routes.endpoint(forAuthority: "elsewhere.example") == nil)
        #expect(routes.groups.map(\.roomEndpoint) == [0, 2])
        // A WebView may have been sent to a target.hosts entry: its connections close too.
        #expect(
            routes.ownersOfVisitor(7, group: 1).map { "\($0.role) \($0.endpoint)" } == [
                "enqueue 2", "webView 2", "protectedApi 1", "webView 3",
            ])
        let unrouted = routes.owner(
            visitor: 0, group: 0, kind: .queuePage, authority: "elsewhere.example:8443", platform: .ios)
        #expect(unrouted == nil)
        #expect(
            LiveRoutes.unroutedError(authority: "elsewhere.example:8443")
                == .connectFailed(
                    "no route to the host name elsewhere.example: its URL is not http(s), or this run resolves no host met mid-run; add elsewhere.example to target.hosts"
                ))
    }

    @Test("a target.hosts entry wins for the room's and the API's hosts; a staging API keeps its host's name")
    func entriesWin() throws {
        let routes = try Self.routes(
            """
            version: 1
            target:
              customerId: acme
              waitingRoomId: launch
              protectedApi: https://api.shop.example/v1/cart
              protectedApiEndpoint: http://127.0.0.1:8081
              hosts: { acme.queue-it.net: "http://127.0.0.1:8080" }
            arrivals: { phases: [ { burst: 1 } ] }
            visitors: [ { name: app, flow: protectedApi } ]
            """)
        #expect(
            routes.destinations.map { "\($0.target.origin) \($0.host)" } == [
                "http://127.0.0.1:8080 acme.queue-it.net", "http://127.0.0.1:8081 api.shop.example",
            ])
    }

    @Test("the embedded room serves its built-in API's host; its certificate's name is not checked")
    func embedded() throws {
        let routes = try Self.routes(
            """
            version: 1
            target: { customerId: acme, waitingRoomId: launch }
            arrivals: { phases: [ { burst: 1 } ] }
            visitors: [ { name: app, flow: protectedApi } ]
            """, embedded: true)
        #expect(routes.destinations.map(\.host) == ["acme.queue-it.net", "acme.example"])
        #expect(routes.destinations.allSatisfy { $0.isEmbeddedRoom && $0.target == Self.room })
    }

    @Test("an endpoint names the URL's host: SNI and the default Host, not the connect target's")
    func endpointNames() throws {
        let endpoint = try LiveEndpoint.resolve(
            ConnectTarget(scheme: "https", host: "127.0.0.1", port: 8443), serverName: "acme.queue-it.net")
        #expect(endpoint.serverHostname == "acme.queue-it.net")
        #expect(endpoint.authority == "acme.queue-it.net")
        let literal = try LiveEndpoint.resolve(
            ConnectTarget(scheme: "https", host: "127.0.0.1", port: 8443), serverName: "127.0.0.2")
        #expect(literal.serverHostname == nil)
    }
}
