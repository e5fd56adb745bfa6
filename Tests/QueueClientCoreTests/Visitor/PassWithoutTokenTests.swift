import Testing

@testable import QueueClientCore

/// Android 3.0.0 delivers a pass through `PendingPassStore`, which drops a null token.
@Suite("Passes without a token")
struct PassWithoutTokenTests {
    @Test("the target reached without a queueittoken: Android ends `error` with the cause, iOS passes")
    func passWithoutToken() {
        let respond: (SentRequest) -> Result<IncomingResponse, TransportError> = { sent in
            if sent.path.contains("/enqueue") { return .success(Reply.enqueue(token: nil)) }
            return .success(Reply.redirect(PlatformBehaviourTests.target))
        }
        let (android, _) = simulate(configuration(platform: .android), respond: respond)
        #expect(android.outcome == .error)
        #expect(android.errorMessage == VisitorMachine.passWithoutTokenMessage)
        let (ios, _) = simulate(configuration(platform: .ios), respond: respond)
        #expect(ios.outcome == .passed)

        // An empty token is a token: Android stores "" and delivers it.
        let empty: (SentRequest) -> Result<IncomingResponse, TransportError> = { sent in
            if sent.path.contains("/enqueue") { return .success(Reply.enqueue(token: nil)) }
            return .success(Reply.redirect(PlatformBehaviourTests.target + "?queueittoken="))
        }
        #expect(simulate(configuration(platform: .android), respond: empty).result.outcome == .passed)
    }
}
