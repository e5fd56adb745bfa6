import Foundation
import StandInServers
import Testing

@testable import QueueSim

/// `client.connections` against a stand-in that logs which connection (client port) carried
/// each request: in `device` mode a visitor's requests never share a connection with another
/// visitor's, as on phones; in `shared` mode keep-alive connections serve many visitors.
@Suite("connections per visitor on the wall clock", .serialized, .timeLimit(.minutes(1)))
struct DeviceConnectionTests {
    /// Runs `visitors` against the stand-in's script and returns the requests it received
    /// (the reachability check's left out) and the report.
    static func run(
        enqueueKey: String, platform: String = "ios", connections: String, arrivals: String,
        concurrency: Int = 100, clientExtra: String = "",
        script: (@Sendable (StandInRequest) -> StandInAnswer)? = nil
    ) async throws -> (requests: [StandInRequest], reports: RunReports) {
        let script = script ?? StandInEndpointTests.script(StandInEndpointTests.CallCounter())
        return try await ScriptedQueueItServer.with(script: script) { server in
            let yaml = """
                version: 1
                name: connections
                seed: 3
                target: { customerId: acme, waitingRoomId: launch, endpoint: "http://127.0.0.1:\(server.port)" }
                client: { platform: \(platform), pollInterval: 200ms, maxWait: 30s, requestTimeout: 5s, connections: \(connections)\(clientExtra) }
                arrivals: \(arrivals)
                visitors: [ { name: app, enqueueKey: \(enqueueKey) } ]
                run: { concurrency: \(concurrency) }
                """
            let reports = try await RunFixture.wall(yaml)
            return (server.received.filter { $0.path != "/" }, reports)
        }
    }

    /// The visitor a request belongs to: its user id on the enqueue call, its queue id on a
    /// queue page (the stand-in derives the queue id from the user id).
    static func visitor(of request: StandInRequest) -> String {
        if let userId = request.bodyField("userId") {
            return "q" + userId.replacingOccurrences(of: "-", with: "").prefix(12).lowercased()
        }
        return request.uri.components(separatedBy: "q=").last ?? "?"
    }

    @Test("device, iOS: every connection carries one visitor; its enqueue call and its WebView each have their own")
    func iosVisitorsOwnTheirConnections() async throws {
        let (requests, reports) = try await Self.run(
            enqueueKey: "queue", connections: "device", arrivals: "{ phases: [ { burst: 12 } ] }")
        #expect(reports.outcomes == ["passed": 12])
        #expect(requests.count == 12 * 3, "an enqueue call and two polls each")
        let visitorsByPort = Dictionary(grouping: requests, by: \.clientPort).mapValues { Set($0.map(Self.visitor)) }
        #expect(visitorsByPort.values.allSatisfy { $0.count == 1 }, "a connection carried two visitors")
        for (_, own) in Dictionary(grouping: requests, by: Self.visitor) {
            let enqueuePorts = Set(own.filter { $0.method == "POST" }.map(\.clientPort))
            let pagePorts = Set(own.filter { $0.method == "GET" }.map(\.clientPort))
            #expect(enqueuePorts.count == 1)
            #expect(pagePorts.count == 1, "the WebView keeps its connection between polls")
            #expect(enqueuePorts.isDisjoint(with: pagePorts), "URLSession's connection is not the WebView's")
        }
        #expect(Set(requests.map(\.clientPort)).count == 24)
    }

    @Test("device, Android: three enqueue attempts use three connections")
    func androidEnqueueAttemptsEachConnect() async throws {
        let (requests, reports) = try await Self.run(
            enqueueKey: "flaky", platform: "android", connections: "device",
            arrivals: "{ phases: [ { burst: 3 } ] }")
        #expect(reports.outcomes == ["passed": 3])
        for (_, own) in Dictionary(grouping: requests, by: Self.visitor) {
            #expect(own.count == 3)
            #expect(Set(own.map(\.clientPort)).count == 3, "the SDK builds a new OkHttpClient per call")
        }
        let visitorsByPort = Dictionary(grouping: requests, by: \.clientPort).mapValues { Set($0.map(Self.visitor)) }
        #expect(visitorsByPort.values.allSatisfy { $0.count == 1 })
    }

    @Test("shared: visitors one after another ride one keep-alive connection")
    func sharedConnectionsAreReused() async throws {
        let (requests, reports) = try await Self.run(
            enqueueKey: "queue", connections: "shared", arrivals: "{ phases: [ { duration: 2s, rate: 5 } ] }",
            concurrency: 1)
        #expect(reports.outcomes == ["passed": 10])
        #expect(Set(requests.map(\.clientPort)).count == 1, "one connection served every visitor")
    }

    /// A visitor's own connection starts with a small receive buffer (its answers from the
    /// room are about 300 bytes): a real queue page tens of times larger still arrives whole.
    @Test("device: a queue page of 21 kB, far larger than a connection's first receive buffer, arrives whole")
    func aLargeQueuePageArrivesWhole() async throws {
        let standard = StandInEndpointTests.script(StandInEndpointTests.CallCounter())
        let page = "<html><body>" + String(repeating: "<p>You are in line.</p>", count: 900) + "</body></html>"
        let (requests, reports) = try await Self.run(
            enqueueKey: "queue", connections: "device", arrivals: "{ phases: [ { burst: 4 } ] }",
            script: { request in
                var answer = standard(request)
                if request.method == "GET", answer.status == 200 { answer.body = page }
                return answer
            })
        #expect(page.utf8.count > 20_000)
        #expect(reports.outcomes == ["passed": 4], "each read the long page and polled again")
        #expect(requests.count == 4 * 3, "an enqueue call and two polls each")
        #expect(Set(requests.map(\.clientPort)).count == 8)
    }

    @Test("device: the first request's handshake is in visitors.csv")
    func handshakeTimed() async throws {
        let (_, reports) = try await Self.run(
            enqueueKey: "safetynet", connections: "device", arrivals: "{ phases: [ { burst: 5 } ] }")
        for row in reports.visitors.rows {
            let connect = try #require(row.int("connect_ms"), "\(row)")
            #expect(connect >= 0 && connect < 1000)
            #expect(row["tls_ms"] == "", "plain HTTP has no TLS handshake")
        }
    }

    @Test("client.sourceAddresses: visitors connect from the loopback addresses in turn, each from one")
    func sourceAddresses() async throws {
        let (requests, reports) = try await Self.run(
            enqueueKey: "queue", connections: "device", arrivals: "{ phases: [ { burst: 6 } ] }",
            clientExtra: ", sourceAddresses: 127.0.0.2-127.0.0.4")
        #expect(reports.outcomes == ["passed": 6])
        #expect(Set(requests.map(\.clientAddress)) == ["127.0.0.2", "127.0.0.3", "127.0.0.4"])
        for (_, own) in Dictionary(grouping: requests, by: Self.visitor) {
            #expect(Set(own.map(\.clientAddress)).count == 1, "a visitor's connections leave from one address")
        }
    }
}
