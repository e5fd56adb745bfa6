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
