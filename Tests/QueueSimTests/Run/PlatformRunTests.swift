import Testing

@testable import QueueSim

/// iOS and Android groups in one scenario, against the embedded room in virtual time: the
/// platforms' queue page failure policies and timeouts change the outcomes users read (issue 15).
@Suite("virtual run: iOS and Android visitors", .timeLimit(.minutes(1)))
struct PlatformRunTests {
    /// Both platforms and the lenient choice, against a room whose queue page resets every
    /// connection for the first 20 s.
    static let outage = """
        version: 1
        name: platforms
        target: { customerId: acme, waitingRoomId: launch }
        client: { pollInterval: 1s, maxWait: 5m }
        arrivals: { phases: [ { burst: 30 } ] }
        visitors:
          - { name: iphone }
          - { name: pixel, platform: android }
        waitingRoom:
          mode: queue
          outflow: 600/min
          faults:
            - { from: 0s, to: 20s, endpoint: queuePage, reset: true }
        """

    @Test("a queue page outage: iOS visitors end `error` at once, Android's reloads ride out 20 s")
    func queuePageOutage() throws {
        let reports = try RunFixture.virtual(Self.outage)
        reports.expectContract(arrivals: 30)
        for row in reports.visitors.rows {
            switch row["group"] {
            case "iphone":
                #expect(row["outcome"] == "error", "\(row)")
                #expect(row["polls"] == "1")
                #expect(row["error"]?.contains("iOS does not retry") == true)
            case "pixel":
                // Reloads after 1, 2, 4, 8 s fail; the one after 16 more (31 s in) loads.
                #expect(row["outcome"] == "passed", "\(row)")
                #expect(row.int("polls")! >= 6, "\(row)")
            default:
                Issue.record("unexpected group in \(row)")
            }
        }
    }

    @Test("`queuePageRetry: poll` keeps the lenient behaviour for every group")
    func pollRidesItOut() throws {
        let reports = try RunFixture.virtual(
            Self.outage.replacingOccurrences(
                of: "client: { pollInterval: 1s, maxWait: 5m }",
                with: "client: { pollInterval: 1s, maxWait: 5m, queuePageRetry: poll }"))
        #expect(reports.outcomes == ["passed": 30])
    }

    @Test("a 15 s enqueue answer: iOS waits for it (60 s), Android times out at 10 s and retries")
    func enqueueLatency() throws {
        let reports = try RunFixture.virtual(
            """
            version: 1
            name: slow
            target: { customerId: acme, waitingRoomId: launch }
            arrivals: { phases: [ { burst: 10 } ] }
            visitors:
              - { name: iphone }
              - { name: pixel, platform: android }
            waitingRoom:
              mode: safetynet
              faults:
                - { from: 0s, to: 5s, endpoint: enqueue, latency: 15s }
            """)
        for row in reports.visitors.rows {
            #expect(row["outcome"] == "passed", "\(row)")
            #expect(row["attempts"] == (row["group"] == "iphone" ? "1" : "2"), "\(row)")
        }
    }

    @Test("disabled room, hybrid flow: the visitor presents the token to the API and passes as `disabled`")
    func hybridInDisabledMode() throws {
        let reports = try RunFixture.virtual(
            """
            version: 1
            name: hybrid-disabled
            target: { customerId: acme, waitingRoomId: launch }
            arrivals: { phases: [ { burst: 4 } ] }
            visitors: [ { name: api, flow: protectedApi, platform: android } ]
            waitingRoom: { mode: disabled }
            """)
        #expect(reports.outcomes == ["passed": 4])
        for row in reports.visitors.rows {
            #expect(row["redirect_type"] == "disabled", "\(row)")
            #expect(row["polls"] == "0")
            // The API three times (queue redirect, token → 302, cookie → 200) and the enqueue.
            #expect(row["requests"] == "4", "\(row)")
        }
    }

    @Test("an Android invite code reaches the invite-only room on the queue URL and gates entry")
    func inviteCodes() throws {
        let reports = try RunFixture.virtual(
            """
            version: 1
            name: invites
            target: { customerId: acme, waitingRoomId: launch }
            client: { pollInterval: 1s }
            arrivals: { phases: [ { burst: 6 } ] }
            visitors:
              - { name: invited, platform: android, inviteCode: VIP-1 }
              - { name: stale, platform: android, inviteCode: VIP-0 }
            waitingRoom: { inviteOnly: true, inviteCodes: [VIP-1], outflow: 600/min }
            """)
        for row in reports.visitors.rows {
            if row["group"] == "invited" {
                #expect(row["outcome"] == "passed" && row["redirect_type"] == "queue", "\(row)")
            } else {
                #expect(row["outcome"] == "error" && row["http_status"] == "403", "\(row)")
                #expect(row["polls"] == "1", "\(row)")
            }
        }
        #expect(reports.visitors.rows.contains { $0["group"] == "invited" })
        #expect(reports.visitors.rows.contains { $0["group"] == "stale" })
    }
}
