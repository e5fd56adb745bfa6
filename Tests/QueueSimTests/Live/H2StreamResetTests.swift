import QueueClientCore
import StandInServers
import Testing

@testable import QueueSim

/// A server that resets each stream with `NO_ERROR` once it has answered it (nginx does after
/// it answers a POST before reading its body; RFC 9113 §8.1): the answer stands, and the
/// connection keeps carrying requests however many such resets come (issue 55: NIOHTTP2's
/// rapid-reset limit of 200 resets per 30 s closed the connection every ~202 requests, and
/// the request in flight was sent again on a new one).
@Suite("HTTP/2 client: streams reset after their answer", .serialized, .timeLimit(.minutes(1)))
struct H2StreamResetTests {
    @Test("250 POSTs each reset with NO_ERROR after the answer: one connection, none sent again")
    func resetAfterEveryAnswer() async throws {
        var options = H2StandInServer.Options()
        options.resetAnsweredStreams = true
        let android = PlatformRequestBytesTests.configuration(.android, userId: "0123456789abcdef")
        let enqueue = EnqueueRequest.make(android.enqueueParameters, sharedHead: android.sharedEnqueueHead)
        let count = 250
        try await H2StandInServer.with(options) { server in
            let completions = try await H2ClientFixture.send(
                Array(repeating: enqueue, count: count), to: server, bound: .seconds(30))
            let statuses = completions.map { completion in
                (try? completion.result.get().status.code) ?? -1
            }
            #expect(statuses == Array(repeating: 200, count: count))
            #expect(server.requests.count == count, "no request is sent again")
            #expect(server.connections.count == 1, "no new connection")
            #expect(server.requests.map(\.streamID) == Array(stride(from: 1, to: 2 * count, by: 2)))
        }
    }
}

/// A group's enqueues on one h2 connection (issue 55, item 8: the speed of the h2 path).
@Suite("HTTP/2 client: a group's requests on one connection", .serialized, .timeLimit(.minutes(1)))
struct H2SharedHeadTests {
    /// A group's enqueues share one head (`EnqueueHeaderTemplate`), whose HEADERS block a
    /// connection makes once per body length: each visitor's still says its own body's length.
    @Test("one group's enqueues on one connection: each HEADERS block has its own body's length")
    func sharedHeadBlocks() async throws {
        let ios = PlatformRequestBytesTests.configuration(.ios, userId: "A")
        let requests = ["A", "BB", "CCCC", "DD", "EEEE"].map { userId in
            var parameters = ios.enqueueParameters
            parameters.userId = userId
            return EnqueueRequest.make(parameters, sharedHead: ios.sharedEnqueueHead)
        }
        try await H2StandInServer.with { server in
            let completions = try await H2ClientFixture.send(requests, to: server)
            #expect(completions.allSatisfy { (try? $0.result.get().status.code) == 200 })
            #expect(server.connections.count == 1)
            let received = server.requests
            #expect(received.map(\.body) == requests.map { $0.body ?? [] })
            #expect(
                received.map { request in request.headers.first { $0.name == "content-length" }?.value }
                    == requests.map { String($0.body?.count ?? 0) })
            let others = received.map { request in request.headers.filter { $0.name != "content-length" } }
            #expect(others.allSatisfy { $0 == others.first }, "every other field the group's")
            #expect(Set(received.map(\.pseudoHeaderNames)) == [[":method", ":scheme", ":path", ":authority"]])
        }
    }

    /// NIOSSL seals each buffer it is given as a record of its own; the frame codec writes a
    /// POST's HEADERS and DATA into one buffer, so a request is one record, as over HTTP/1.1.
    @Test("each POST on an h2 connection is one TLS record")
    func oneRecordPerRequest() async throws {
        let ios = PlatformRequestBytesTests.configuration(.ios, userId: "6F9619FF-8B86-D011-B42D-00C04FC964FF")
        let enqueue = EnqueueRequest.make(ios.enqueueParameters, sharedHead: ios.sharedEnqueueHead)
        let count = 40
        try await H2StandInServer.with { server in
            let completions = try await H2ClientFixture.send(Array(repeating: enqueue, count: count), to: server)
            #expect(completions.allSatisfy { (try? $0.result.get().status.code) == 200 })
            let connection = try #require(server.connections.first)
            #expect(server.connections.count == 1)
            // The handshake's records (ClientHello, and TLS 1.3's ChangeCipherSpec and
            // Finished), the first flush (preface, SETTINGS, WINDOW_UPDATE and the first
            // request), SETTINGS' ACK and close_notify: a few besides one a request.
            #expect(connection.tlsRecords >= count && connection.tlsRecords <= count + 8, "\(connection.tlsRecords)")
        }
    }
}
