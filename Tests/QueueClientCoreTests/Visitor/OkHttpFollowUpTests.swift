import HTTPTypes
import Testing

@testable import QueueClientCore

/// OkHttp 4.9.2's silent follow-ups inside one Android enqueue attempt
/// (`RetryAndFollowUpInterceptor.followUpRequest`).
@Suite("Android's OkHttp follow-ups")
struct OkHttpFollowUpTests {
    /// The enqueue call answers `first` in turn, then safetynet.
    static func enqueue(answering first: [IncomingResponse]) -> (SentRequest) -> Result<
        IncomingResponse, TransportError
    > {
        var answered = 0
        return { _ in
            answered += 1
            return .success(
                answered <= first.count ? first[answered - 1] : Reply.enqueue(token: TokenVectors.safetynet))
        }
    }

    static let timeout408 = Reply.json(#"{"error":"timeout"}"#, status: 408)

    @Test("a 408 to an Android enqueue is sent again at once and the visitor passes; on iOS it is an error")
    func resent408() {
        let (android, sent) = simulate(
            configuration(platform: .android), respond: Self.enqueue(answering: [Self.timeout408]))
        #expect(android.outcome == .passed)
        #expect(android.requests == 2)
        #expect(android.attempts == 1)
        // The same request again, the moment the 408 arrived (20 ms per exchange).
        #expect(sent.map(\.at) == [.origin, .seconds(0.02)])
        #expect(sent[0].request == sent[1].request)

        let (ios, iosSent) = simulate(
            configuration(platform: .ios), respond: Self.enqueue(answering: [Self.timeout408]))
        #expect(ios.outcome == .error)
        #expect(ios.lastHTTPStatus == 408)
        #expect(iosSent.count == 1)
    }

    @Test("OkHttp re-sends a 408 once: a second 408 in a row reaches the SDK, a 4xx error")
    func twice408() {
        let (result, sent) = simulate(
            configuration(platform: .android), respond: Self.enqueue(answering: [Self.timeout408, Self.timeout408]))
        #expect(result.outcome == .error)
        #expect(sent.count == 2)
    }

    @Test("a 408 with Retry-After above 0 is not re-sent; Retry-After: 0 is")
    func retryAfterOn408() {
        let later = Reply.json("{}", status: 408, headers: [("Retry-After", "5")])
        let (result, sent) = simulate(configuration(platform: .android), respond: Self.enqueue(answering: [later]))
        #expect(result.outcome == .error)
        #expect(sent.count == 1)
        let now = Reply.json("{}", status: 408, headers: [("Retry-After", "0")])
        #expect(
            simulate(configuration(platform: .android), respond: Self.enqueue(answering: [now])).result.outcome
                == .passed)
    }

    @Test("a 503 with Retry-After: 0 is re-sent once within the attempt; other 503s go to the SDK's back-off")
    func resent503() {
        let now503 = Reply.json("{}", status: 503, headers: [("Retry-After", "0")])
        let (once, onceSent) = simulate(configuration(platform: .android), respond: Self.enqueue(answering: [now503]))
        #expect(once.outcome == .passed)
        #expect(once.attempts == 1 && once.requests == 2)
        #expect(onceSent.map(\.at) == [.origin, .seconds(0.02)])

        // Twice in a row: the second reaches the SDK, which retries after 1 s.
        let (twice, twiceSent) = simulate(
            configuration(platform: .android), respond: Self.enqueue(answering: [now503, now503]))
        #expect(twice.outcome == .passed)
        #expect(twice.attempts == 2 && twice.requests == 3)
        #expect(twiceSent.map(\.at) == [.origin, .seconds(0.02), .seconds(1.04)])

        // No Retry-After, or one that is not 0: the SDK's back-off, no silent re-send.
        for headers in [[], [("Retry-After", "1")], [("Retry-After", "soon")]] {
            let plain = Reply.json("{}", status: 503, headers: headers)
            let (result, sent) = simulate(configuration(platform: .android), respond: Self.enqueue(answering: [plain]))
            #expect(result.attempts == 2 && sent.count == 2)
            #expect(sent[1].at == .seconds(1.02))
        }
        // iOS never re-sends silently.
        let (ios, _) = simulate(configuration(platform: .ios), respond: Self.enqueue(answering: [now503]))
        #expect(ios.attempts == 2 && ios.requests == 2)
    }

    @Test("a 408 after a 503 re-send is re-sent again (OkHttp looks at the answer just before)")
    func alternating() {
        let now503 = Reply.json("{}", status: 503, headers: [("Retry-After", "0")])
        let (result, sent) = simulate(
            configuration(platform: .android), respond: Self.enqueue(answering: [now503, Self.timeout408, now503]))
        #expect(result.outcome == .passed)
        #expect(result.attempts == 1)
        #expect(sent.count == 4)
    }
}
