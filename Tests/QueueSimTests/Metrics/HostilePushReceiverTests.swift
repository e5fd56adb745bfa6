import Foundation
import NIOCore
import NIOPosix
import StandInServers
import Testing

@testable import QueueSim

/// Issue 51: a push receiver that refuses, hangs, stalls after its headers, trickles, resets,
/// answers too much or not in HTTP costs the push at most its one deadline, and the failure is
/// said in words (never "CancellationError", "invalid constant string", "NIOTooManyBytesError").
/// All on loopback; every wait is bounded by the push's own deadline plus a margin.
@Suite("Metrics: a hostile push receiver")
struct HostilePushReceiverTests {
    static let deadline = Duration.seconds(1)
    /// What a push may take beyond its deadline on a loaded test machine.
    static let margin = Duration.milliseconds(900)
    static let body = RemoteWriteRequest.body([
        .init(labels: [(name: "__name__", value: "queuesim_test")], samples: [(value: 1, milliseconds: 1000)])
    ])

    /// Pushes to `url` and returns the failure and how long the push took.
    static func push(to url: String, timeout: Duration = deadline) async -> (failure: PushFailure?, took: Duration) {
        let start = ContinuousClock.now
        do {
            try await RemoteWritePush.send(body, to: url, timeout: timeout)
            return (nil, ContinuousClock.now - start)
        } catch {
            return (error, ContinuousClock.now - start)
        }
    }

    static func push(
        replying reply: RawHTTPServer.Reply
    ) async throws -> (failure: PushFailure?, took: Duration, url: String) {
        try await RawHTTPServer.with(reply: { _ in reply }) { server in
            let url = "http://127.0.0.1:\(server.port)/api/v1/write"
            let (failure, took) = await push(to: url)
            return (failure, took, url)
        }
    }

    static func expectWords(_ failure: PushFailure?, _ words: String, took: Duration) {
        let text = failure.map(String.init(describing:)) ?? "no failure"
        #expect(text.contains(words), "\(text)")
        #expect(took < deadline + margin, "the push took \(took)")
        for dump in ["Error", "invalid constant", "NIOTooManyBytes", "Cancellation"] {
            #expect(!text.contains(dump), "\(text)")
        }
    }

    @Test func nothingListeningIsARefusedConnection() async throws {
        // A port that was just free: bind a server, note its port, close it.
        let port = try await RawHTTPServer.with(reply: { _ in .bytes("") }) { $0.port }
        let url = "http://127.0.0.1:\(port)/api/v1/write"
        let (failure, took) = await Self.push(to: url)
        Self.expectWords(failure, "the receiver at \(url) refused the connection", took: took)
        #expect(took < .milliseconds(500), "a refused connection is not retried until the deadline: \(took)")
    }

    @Test func aReceiverThatNeverAnswersCostsTheDeadline() async throws {
        let (failure, took, url) = try await Self.push(replying: .stall(""))
        Self.expectWords(failure, "no answer from \(url) within 1s", took: took)
        #expect(took >= Self.deadline - .milliseconds(50))
    }

    @Test func headersThenNothingCostsTheDeadline() async throws {
        let head = "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n"
        let (failure, took, url) = try await Self.push(replying: .stall(head))
        Self.expectWords(failure, "the receiver at \(url) sent its headers and then nothing for 1s", took: took)
    }

    @Test func aBodyTrickledAByteAtATimeCostsTheDeadline() async throws {
        let head = "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n"
        let (failure, took, url) = try await Self.push(
            replying: .trickle(head: head, interval: .milliseconds(200), count: 1000))
        Self.expectWords(
            failure, "the receiver at \(url) sent its headers and then its answer too slowly", took: took)
    }

    @Test func aBodyThatNeverEndsCostsTheDeadline() async throws {
        // Chunked, and no last chunk ever comes.
        let head = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n"
        let (failure, took, url) = try await Self.push(replying: .stall(head))
        Self.expectWords(failure, "the receiver at \(url) sent its headers and then its answer too slowly", took: took)
    }

    @Test func aResetBeforeTheAnswerIsSaid() async throws {
        let (failure, took, url) = try await Self.push(replying: .bytes("", close: true))
        Self.expectWords(failure, "the receiver at \(url) closed the connection without answering", took: took)
    }

    @Test func anAnswerOver64KiBIsRefused() async throws {
        let huge = String(repeating: "x", count: 100 * 1024)
        let (failure, took, url) = try await Self.push(
            replying: .bytes(RawHTTPServer.answer(status: "400 Bad Request", body: huge)))
        Self.expectWords(failure, "the answer from \(url) was larger than 64 KiB", took: took)
    }

    @Test func anAnswerOver64KiBWithoutALengthIsRefused() async throws {
        let chunk = String(repeating: "y", count: 16 * 1024)
        let chunked = (0..<6).map { _ in "4000\r\n\(chunk)\r\n" }.joined() + "0\r\n\r\n"
        let (failure, took, url) = try await Self.push(
            replying: .bytes("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked))
        Self.expectWords(failure, "the answer from \(url) was larger than 64 KiB", took: took)
    }

    @Test func garbageIsNotHTTP() async throws {
        let (failure, took, url) = try await Self.push(replying: .bytes("SSH-2.0-OpenSSH_9.6\r\n\r\n", close: true))
        Self.expectWords(failure, "the receiver at \(url) did not answer in HTTP", took: took)
    }

    /// An https:// URL whose receiver speaks plain HTTP: the handshake fails, said as TLS.
    @Test func httpsToAPlainReceiverIsATLSFailureInWords() async throws {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                // Answers the ClientHello's first bytes with a plain HTTP answer and closes.
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(PlainAnswerOnConnect())
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let url = "https://127.0.0.1:\(channel.localAddress?.port ?? 0)/api/v1/write"
        let (failure, took) = await Self.push(to: url)
        try? await channel.close()
        Self.expectWords(failure, "the receiver at \(url) could not be reached: TLS failed", took: took)
    }

    @Test func aRefusalSaysTheFirstLineOfTheReasonRedacted() async throws {
        let reason = "out of order sample for token=abc123\nsecond line"
        let (failure, took, url) = try await Self.push(
            replying: .bytes(RawHTTPServer.answer(status: "400 Bad Request", body: reason)))
        Self.expectWords(
            failure, "the receiver at \(url) answered 400: out of order sample for token=<redacted>", took: took)
        #expect(!"\(failure!)".contains("second line"))
    }

    @Test func anAcceptedPushIsNoFailure() async throws {
        let (failure, _, _) = try await Self.push(replying: .bytes("HTTP/1.1 204 No Content\r\n\r\n"))
        #expect(failure == nil)
    }

    /// The user info goes as Basic authentication, never in the request line, and the failure
    /// names the receiver without it.
    @Test func userInfoIsSentAsBasicAuthenticationAndNeverSaid() async throws {
        try await RawHTTPServer.with(reply: { _ in .stall("") }) { server in
            let url = "http://tenant:s3cr%40t@127.0.0.1:\(server.port)/api/v1/write"
            let (failure, _) = await Self.push(to: url)
            let text = "\(failure.map(String.init(describing:)) ?? "")"
            #expect(text.contains("no answer from http://<redacted>@127.0.0.1:\(server.port)/api/v1/write"), "\(text)")
            #expect(!text.contains("s3cr"))
            let head = try #require(server.requestHeads.first)
            #expect(head.hasPrefix("POST /api/v1/write HTTP/1.1\r\n"), "\(head)")
            // base64("tenant:s3cr@t")
            #expect(head.lowercased().contains("authorization: basic "), "\(head)")
            #expect(head.contains(" dGVuYW50OnMzY3JAdA=="), "\(head)")
        }
    }

    /// Cancelling the pushing task (a signal at the end of a run) ends a stalled push at once.
    @Test func cancellingThePushEndsItAtOnce() async throws {
        try await RawHTTPServer.with(reply: { _ in .stall("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n") }) {
            server in
            let url = "http://127.0.0.1:\(server.port)/api/v1/write"
            let start = ContinuousClock.now
            let pushing = Task { await Self.push(to: url, timeout: .seconds(30)) }
            try await Task.sleep(for: .milliseconds(300))
            pushing.cancel()
            let (failure, _) = await pushing.value
            #expect(failure?.reason == .cancelled)
            #expect(ContinuousClock.now - start < .seconds(2))
        }
    }

    /// A virtual run's batches share one deadline, several in flight at once: eight batches to a
    /// receiver that stalls every request end within the deadline, not eight deadlines.
    @Test func batchesShareOneDeadline() async throws {
        try await RawHTTPServer.with(reply: { _ in .stall("") }) { server in
            let url = try PushURL.parse("http://127.0.0.1:\(server.port)/api/v1/write").get()
            let batches = Array(repeating: [RemoteWriteRequest.TimeSeries](), count: 8)
            let start = ContinuousClock.now
            let (landed, failure) = await MetricsSession.pushInParallel(
                batches, to: url, deadline: start + Self.deadline, parallelism: 4)
            #expect(landed == 0)
            #expect(failure?.reason == .noAnswer)
            #expect(ContinuousClock.now - start < Self.deadline + Self.margin)
            #expect(server.connectionsAccepted <= 4, "no batch starts after the first failure")
        }
    }
}

/// Writes a plain HTTP answer as soon as a connection opens, then closes it.
private final class PlainAnswerOnConnect: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer

    func channelActive(context: ChannelHandlerContext) {
        let channel = context.channel
        channel.writeAndFlush(ByteBuffer(string: "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"))
            .whenComplete { _ in channel.close(promise: nil) }
    }
}
