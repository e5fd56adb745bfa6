import NIOCore
import StandInServers
import Testing

@testable import QueueSim

/// A server frame that breaks h2's rules, end to end on loopback: the client's own frame layer
/// (`H2FrameCodec`) answers it with GOAWAY and its code, the request fails in words and is not
/// sent again (the server may have processed it), and the connection closes.
@Suite("HTTP/2 client: a server's broken frame", .serialized, .timeLimit(.minutes(1)))
struct H2BrokenFrameTests {
    @Test("a DATA frame over SETTINGS_MAX_FRAME_SIZE: GOAWAY FRAME_SIZE_ERROR, the request fails once, in words")
    func frameOverMaxFrameSize() async throws {
        var options = H2StandInServer.Options()
        // A DATA frame of 20,000 bytes on stream 1: CFNetwork's MAX_FRAME_SIZE is 16,384.
        options.rawBytesInsteadOfAnswer =
            [0x00, 0x4E, 0x20, 0x00, 0x01, 0, 0, 0, 1] + [UInt8](repeating: 0, count: 20_000)
        try await H2StandInServer.with(options) { server in
            let completions = try await H2ClientFixture.send([H2ClientFixture.get("/a")], to: server)
            guard case .failure(let error) = completions.first?.result else {
                Issue.record("expected a failure, got \(String(describing: completions.first))")
                return
            }
            #expect(
                error.description.contains(
                    "HTTP/2: a frame of 20000 bytes, over SETTINGS_MAX_FRAME_SIZE 16384 (FRAME_SIZE_ERROR)"),
                "\(error)")
            #expect(server.requests.map(\.path) == ["/a"], "not sent again")
            // The GOAWAY reaches the server's loop a moment after the client's failure: bounded.
            for _ in 0..<200 where server.connections.first?.receivedGoAway == nil {
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(server.connections.first?.receivedGoAway == 6, "GOAWAY FRAME_SIZE_ERROR")
        }
    }

    @Test("a PUSH_PROMISE after ENABLE_PUSH 0: GOAWAY PROTOCOL_ERROR, the request fails in words")
    func pushAfterPushDisabled() async throws {
        var options = H2StandInServer.Options()
        // PUSH_PROMISE on stream 1 promising stream 2, END_HEADERS, its block `:method GET`.
        options.rawBytesInsteadOfAnswer = [0x00, 0x00, 0x05, 0x05, 0x04, 0, 0, 0, 1, 0, 0, 0, 2, 0x82]
        try await H2StandInServer.with(options) { server in
            let completions = try await H2ClientFixture.send([H2ClientFixture.get("/a")], to: server)
            guard case .failure(let error) = completions.first?.result else {
                Issue.record("expected a failure, got \(String(describing: completions.first))")
                return
            }
            #expect(
                error.description.contains("HTTP/2: PUSH_PROMISE after SETTINGS_ENABLE_PUSH 0 (PROTOCOL_ERROR)"),
                "\(error)")
            for _ in 0..<200 where server.connections.first?.receivedGoAway == nil {
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(server.connections.first?.receivedGoAway == 1, "GOAWAY PROTOCOL_ERROR")
        }
    }
}
