import Foundation
import Testing

@testable import QueueSim

/// `/metrics` shares the process's descriptors with `serve`'s room (issue 51): a bad request
/// is answered and closed, a silent connection is closed, and connections are capped.
@Suite("Metrics: the /metrics listener's bounds")
struct MetricsListenerBoundsTests {
    static func server(_ limits: MetricsServer.Limits = .init()) throws -> MetricsServer {
        try MetricsServer(host: "127.0.0.1", port: 0, limits: limits) {
            var snapshot = MetricsSnapshot(identity: .init(runId: "bounds", scenario: "s", shard: "0/1"))
            snapshot.set(MetricCatalog.inFlight, [], 3)
            return MetricsExposition.prometheus(snapshot)
        }
    }

    static let scrape = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"

    @Test(arguments: [
        "\u{16}\u{03}\u{01}\u{02}\u{00}garbage that is no request line\r\n\r\n",
        "GET /metrics HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
        "GET /metrics HTTP/1.1\r\nHost: x\r\na header line without its colon\r\n\r\n",
    ])
    func aMalformedRequestGets400AndTheConnectionCloses(request: String) throws {
        let server = try Self.server()
        defer { server.stop() }
        let socket = try LoopbackSocket(port: server.port)
        try socket.send(request)
        let answer = try #require(socket.readUntilClosed(within: .seconds(5)), "the connection was left open")
        let text = String(decoding: answer, as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 400 Bad Request\r\n"), "\(text)")
        #expect(text.lowercased().contains("connection: close"), "\(text)")
    }

    @Test func aSilentConnectionIsClosedAfterTheIdleBound() throws {
        let server = try Self.server(.init(idleTimeout: .milliseconds(200)))
        defer { server.stop() }
        let silent = try LoopbackSocket(port: server.port)
        let halfRequest = try LoopbackSocket(port: server.port)
        try halfRequest.send("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        let start = ContinuousClock.now
        #expect(silent.readUntilClosed(within: .seconds(5)) == [])
        #expect(halfRequest.readUntilClosed(within: .seconds(5)) == [])
        let elapsed = ContinuousClock.now - start
        #expect(elapsed >= .milliseconds(150) && elapsed < .seconds(3), "closed after \(elapsed)")
    }

    @Test func aKeptAliveScraperGetsTheBoundAgainAfterEachRequest() throws {
        let server = try Self.server(.init(idleTimeout: .milliseconds(400)))
        defer { server.stop() }
        let scraper = try LoopbackSocket(port: server.port)
        for _ in 0..<3 {
            // Each scrape completes within the bound, so the connection stays.
            try scraper.send("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            guard case .bytes(let bytes) = scraper.receive(within: .seconds(5)) else {
                Issue.record("no answer to a scrape on a kept-alive connection")
                return
            }
            #expect(String(decoding: bytes, as: UTF8.self).hasPrefix("HTTP/1.1 200 OK"))
            // Open for more than half the bound, three times over: longer than the bound in all.
            #expect(scraper.receive(within: .milliseconds(250)) == .silent)
        }
        #expect(scraper.readUntilClosed(within: .seconds(5)) == [])
    }

    @Test func connectionsBeyondTheCapCloseTheOldestAndAScrapeStillAnswers() throws {
        let cap = 4
        let extra = 3
        let server = try Self.server(.init(idleTimeout: .seconds(60), maxConnections: cap))
        defer { server.stop() }
        let held = try (0..<cap + extra).map { _ in try LoopbackSocket(port: server.port) }
        // The oldest `extra` are closed by the server; the newest `cap` stay open.
        for socket in held.prefix(extra) {
            #expect(socket.readUntilClosed(within: .seconds(5)) == [], "a connection beyond the cap stayed open")
        }
        for socket in held.suffix(cap) {
            #expect(socket.receive(within: .milliseconds(100)) == .silent)
        }
        #expect(server.openConnections <= cap)

        // While the cap's worth are held, a scrape gets through.
        let scraper = try LoopbackSocket(port: server.port)
        try scraper.send(Self.scrape)
        let answer = String(decoding: try #require(scraper.readUntilClosed(within: .seconds(5))), as: UTF8.self)
        #expect(answer.hasPrefix("HTTP/1.1 200 OK"), "\(answer)")
        #expect(answer.contains(#"queuesim_in_flight{run_id="bounds",scenario="s",shard="0/1"} 3"#))
        #expect(server.openConnections <= cap)
    }
}
