import Foundation
import NIOCore
import NIOPosix
import QueueClientCore
import StandInServers
import Testing

@testable import QueueSim

/// An `https` host met mid-run by a run whose own endpoints are all plain HTTP (issue 55, item
/// 6: "an off-host redirect reaches its own host"). On Linux such a run's visitors are on
/// queuesim's plain transport, which carries no TLS; their exchanges to the host go to a side
/// pool on one of SwiftNIO's loops (`TLSSidePool`) and reach it as a phone's would: TLS with
/// the URL's host as SNI and certificate name, h2 by ALPN, timed out by the request's bound.
@Suite("https hosts met mid-run on a plain-HTTP run", .serialized, .timeLimit(.minutes(1)))
struct PlainRunTLSHostsTests {
    static let caFile = HostRoutingRunTests.fixtures + "/routes-ca.cert.pem"

    /// A room on plain HTTP whose queue pages are on `https://challenge.example.com:<port>`,
    /// which the run's resolver names as 127.0.0.1.
    static func scenario(roomPort: Int, client: String, run: String = "{}") -> String {
        """
        version: 1
        name: plain-run-tls-host
        run: \(run)
        target:
          customerId: acme
          waitingRoomId: launch
          endpoint: "http://127.0.0.1:\(roomPort)"
          caFile: "\(caFile)"
        client: \(client)
        arrivals: { phases: [ { burst: 4 } ] }
        visitors:
          - { name: ios, weight: 1, platform: ios }
          - { name: android, weight: 1, platform: android }
        """
    }

    static let loopback = MidRunHosts.Policy(resolver: MidRunHostsTests.StandInResolver(.address("127.0.0.1")))

    @Test(
        "the queue page on an https host nobody routed is reached over TLS and h2; every visitor passes",
        arguments: ["device", "shared"])
    func httpsHostReachedFromAPlainRun(connections: String) async throws {
        #if os(Linux)
            #expect(
                LiveTransport.usesPlainTransport(
                    embeddedRoom: false,
                    endpoints: [try LiveEndpoint.resolve(ConnectTarget(scheme: "http", host: "127.0.0.1", port: 1))],
                    environment: [:]))
        #endif
        var options = H2StandInServer.Options()
        options.certificatePath = HostRoutingRunTests.fixtures + "/routes-server.cert.pem"
        options.keyPath = HostRoutingRunTests.fixtures + "/routes-server.key.pem"
        let pass = "\(MidRunHostsTests.targetURL)?queueittoken=\(HostRoutingRunTests.token(queueId: "q1"))"
        options.respond = { _ in H2StandInResponse(status: 302, headers: [.init(name: "location", value: pass)]) }
        try await H2StandInServer.with(options) { page in
            let origin = "https://challenge.example.com:\(page.port)"
            try await ScriptedQueueItServer.with(script: MidRunHostsTests.room(queueOrigin: origin)) { room in
                let reports = try await MidRunHostsTests.wall(
                    Self.scenario(
                        roomPort: room.port,
                        client: "{ pollInterval: 200ms, maxWait: 20s, connections: \(connections) }"),
                    policy: Self.loopback)
                #expect(reports.outcomes == ["passed": 4], "\(reports.visitors.rows)")
                let pages = page.requests
                #expect(pages.count == 4, "\(pages)")
                // The certificate names challenge.example.com, not 127.0.0.1: the handshake
                // checked the URL's host.
                #expect(pages.allSatisfy { $0.alpn == "h2" }, "\(pages)")
                #expect(
                    pages.allSatisfy { $0.pseudoHeaders[":authority"] == "challenge.example.com:\(page.port)" },
                    "\(pages)")
                #expect(!room.received.contains { $0.path.hasPrefix("/queue/") })
                let generator = MidRunHostsTests.generator(reports)
                #expect(generator["resolved_hosts"] as? [String] == ["challenge.example.com:\(page.port)"])
                let endpoints = (generator["protocols_by_endpoint"] as? [[String: Any]] ?? []).compactMap {
                    $0["endpoint"] as? String
                }
                #expect(endpoints == [origin], "\(generator)")
                // A phone's own connection per visitor, or the run's shared ones reused.
                if connections == "device" {
                    #expect(page.connections.count == 4)
                } else {
                    #expect(page.connections.count >= 1 && page.connections.count <= 4)
                }
                // The side pool's connections count with the run's: the room's and the pages'.
                let opened = generator["connections_opened"] as? Int ?? 0
                #expect(opened >= page.connections.count + 1, "\(generator)")
            }
        }
    }

    /// A run against a room whose queue pages are on an https host that never answers; the
    /// SNI of every handshake it saw, and the run's reports and wall time.
    static func runAgainstSilentPages(client: String, run: String = "{}") async throws
        -> (reports: RunReports, serverNames: [String], pageRequests: Int, elapsed: Duration)
    {
        let names = HostRoutingRunTests.ServerNames()
        let tls = try HostRoutingRunTests.recordingTLS(
            certificate: "routes-server.cert.pem", key: "routes-server.key.pem", names: names)
        return try await RawHTTPServer.with(tls: tls, reply: { _ in .stall("") }) { page in
            let origin = "https://challenge.example.com:\(page.port)"
            return try await ScriptedQueueItServer.with(script: MidRunHostsTests.room(queueOrigin: origin)) { room in
                let started = ContinuousClock.now
                let reports = try await MidRunHostsTests.wall(
                    Self.scenario(roomPort: room.port, client: client, run: run), policy: Self.loopback)
                return (reports, names.all, page.requestsReceived, ContinuousClock.now - started)
            }
        }
    }

    @Test("a queue page that never answers times out on the request's bound, not at maxWait")
    func silentHTTPSHostTimesOut() async throws {
        let (reports, names, pageRequests, elapsed) = try await Self.runAgainstSilentPages(
            client: "{ pollInterval: 200ms, maxWait: 5s, requestTimeout: 1s }")
        #expect(reports.visitors.rows.count == 4)
        #expect(reports.visitors.rows.contains { $0["group"] == "ios" })
        #expect(pageRequests >= 4)
        #expect(!names.isEmpty && names.allSatisfy { $0 == "challenge.example.com" }, "\(names)")
        for row in reports.visitors.rows where row["group"] == "ios" {
            // iOS ends on a failed first queue page load (no didFail handler in its SDK).
            #expect(row["outcome"] == "error", "\(row)")
            #expect(row["error"]?.contains("timed out") == true, "\(row)")
        }
        // Android reloads on its schedule, each load bounded by 1 s, until maxWait.
        for row in reports.visitors.rows where row["group"] == "android" {
            #expect(row["outcome"] != "passed", "\(row)")
        }
        #expect(elapsed < .seconds(20), "\(elapsed)")
    }

    @Test("run.duration ends while pages are out on the side pool: a row each, and the run ends at once")
    func runEndsWhileSideExchangesWait() async throws {
        let (reports, _, pageRequests, elapsed) = try await Self.runAgainstSilentPages(
            client: "{ pollInterval: 200ms, maxWait: 60s }", run: "{ duration: 1500ms }")
        #expect(pageRequests >= 4)
        #expect(reports.visitors.rows.count == 4)
        #expect(reports.outcomes == ["queued": 4], "\(reports.visitors.rows)")
        #expect(elapsed < .seconds(10), "\(elapsed)")
    }

    /// Without the side loop's probe the run's loops (plain ones, not blocked here) saw no lag.
    @Test("a side loop that stalls shows in the generator's loop lag: it is probed like a run loop")
    func stalledSideLoopShowsInTheVerdict() async throws {
        let blocker = Task {
            try await Task.sleep(for: .milliseconds(700))
            // Every SwiftNIO loop (the side pools' among them) busy for 300 ms.
            for loop in MultiThreadedEventLoopGroup.singleton.makeIterator() { loop.execute { usleep(300_000) } }
        }
        let (reports, _, _, _) = try await Self.runAgainstSilentPages(
            client: "{ pollInterval: 200ms, maxWait: 60s }", run: "{ duration: 1500ms }")
        try await blocker.value
        let generator = MidRunHostsTests.generator(reports)
        let maxLag = generator["loop_lag_max_ms"] as? Double ?? 0
        #expect(maxLag >= 200, "\(generator)")
    }
}
