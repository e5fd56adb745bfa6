import QueueClientCore
import StandInServers
import Testing

@testable import QueueSim

/// OkHttp's one silent re-send on h2 (issue 55, item 1): a stream the server refused
/// (`RST_STREAM REFUSED_STREAM`) or left above GOAWAY's last stream id was never processed, so
/// it is sent again once, on a new connection; a second refusal fails the request in words.
@Suite("HTTP/2 client: refused streams and GOAWAY", .serialized, .timeLimit(.minutes(1)))
struct H2ResendTests {
    @Test("a refused first stream is sent again once on a new connection and answered")
    func refusedFirstStream() async throws {
        var options = H2StandInServer.Options()
        options.refusedRequests = [1]
        try await H2StandInServer.with(options) { server in
            let completions = try await H2ClientFixture.send([H2ClientFixture.get("/a")], to: server)
            #expect(try completions.map { try $0.result.get().status.code } == [200])
            #expect(server.requests.map(\.refused) == [true, false])
            #expect(server.requests.map(\.connection) == [0, 1], "the re-send goes on a new connection")
            #expect(server.requests.map(\.path) == ["/a", "/a"])
        }
    }

    @Test("a refused stream on a connection that served before is sent again once on a new one")
    func refusedLaterStream() async throws {
        var options = H2StandInServer.Options()
        options.refusedRequests = [2]
        try await H2StandInServer.with(options) { server in
            let completions = try await H2ClientFixture.send(["/a", "/b"].map(H2ClientFixture.get), to: server)
            #expect(try completions.map { try $0.result.get().status.code } == [200, 200])
            #expect(server.requests.map(\.path) == ["/a", "/b", "/b"])
            #expect(server.requests.map(\.connection) == [0, 0, 1])
        }
    }

    @Test("a stream refused twice fails, saying the server refused it")
    func refusedTwice() async throws {
        var options = H2StandInServer.Options()
        options.refusedRequests = [1, 2]
        try await H2StandInServer.with(options) { server in
            let completions = try await H2ClientFixture.send([H2ClientFixture.get("/a")], to: server)
            guard case .failure(let error) = completions.first?.result else {
                Issue.record("expected a failure, got \(String(describing: completions.first))")
                return
            }
            #expect(error.description == "the server refused the request's HTTP/2 stream (REFUSED_STREAM)")
            #expect(server.requests.count == 2, "sent once, and again once: never a third time")
        }
    }

    @Test("after GOAWAY the next request goes on a new connection and is answered")
    func goAway() async throws {
        var options = H2StandInServer.Options()
        options.goAwayAfterStreams = 1
        try await H2StandInServer.with(options) { server in
            let completions = try await H2ClientFixture.send(
                ["/a", "/b", "/c"].map(H2ClientFixture.get), to: server)
            #expect(try completions.map { try $0.result.get().status.code } == [200, 200, 200])
            // Whether the second request went out before the GOAWAY arrived (sent again) or
            // after it (never sent on the old connection), each connection answers one stream.
            #expect(server.requests.map(\.path) == ["/a", "/b", "/c"])
            #expect(server.requests.map(\.connection) == [0, 1, 2])
            #expect(server.connections.map(\.sentGoAway) == [true, true, true])
        }
    }
}
