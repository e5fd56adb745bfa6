import Testing

@testable import QueueSim

/// `flow: protectedApi` with `endpoint: embedded` and no `protectedApi` URL: the visitors call
/// the embedded room's own `/api/protected`, as `validate` and docs/scenarios.md promise
/// (before, every visitor ended `error` with no request sent).
@Suite("virtual run: the embedded room's protected API", .timeLimit(.minutes(1)))
struct EmbeddedProtectedApiRunTests {
    @Test("with no URL the hybrid flow reaches /api/protected, queues, and passes")
    func builtInProtectedAPI() throws {
        let reports = try RunFixture.virtual(
            """
            version: 1
            name: hybrid
            target: { customerId: acme, waitingRoomId: launch }
            client: { pollInterval: 1s }
            arrivals: { phases: [ { burst: 5 } ] }
            visitors: [ { name: api, flow: protectedApi } ]
            waitingRoom: { mode: queue, outflow: 600/min }
            """)
        reports.expectContract(arrivals: 5)
        #expect(reports.outcomes == ["passed": 5])
        for row in reports.visitors.rows {
            #expect(row["flow"] == "protectedApi")
            #expect(row["error"] == "")
            #expect(row["redirect_type"] == "queue")
            // Three API calls, as against the real connector: redirected to the queue; with the
            // token (a 302 to the URL without it, setting the cookie); with the cookie. Plus the
            // enqueue and the polls.
            #expect(row.int("polls")! >= 1, "\(row)")
            #expect(row.int("requests")! == 3 + 1 + row.int("polls")!, "\(row)")
        }
    }

    @Test("the built-in URL is for the embedded room only")
    func builtInURLIsADefaultForTheEmbeddedRoomOnly() throws {
        let folder = try RunFixture.makeFolder()
        let embedded = try RunFixture.scenario(
            """
            version: 1
            target: { customerId: acme, waitingRoomId: launch }
            arrivals: { phases: [ { burst: 1 } ] }
            visitors: [ { name: api, flow: protectedApi } ]
            """, folder: folder)
        #expect(RoomSetup.builtInProtectedAPIURL(for: embedded) == "https://acme.example/api/protected")
        var remote = embedded
        remote.target.endpoint = .baseURL(scheme: "http", host: "127.0.0.1", port: 8080)
        #expect(RoomSetup.builtInProtectedAPIURL(for: remote) == nil)
    }
}
