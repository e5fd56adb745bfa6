import Testing

@testable import QueueClientCore

@Suite("EnqueueMachine: decisions, errors, retries")
struct EnqueueMachineTests {
    let parameters = configuration().enqueueParameters

    /// Runs the machine against fixed answers, each taking 100 ms; returns the send times.
    func run(
        platform: ClientPlatform = .ios, _ answers: [Result<IncomingResponse, TransportError>]
    ) -> (EnqueueResult, [RunInstant], EnqueueMachine) {
        var machine = EnqueueMachine(parameters: parameters, platform: platform)
        var now = RunInstant.origin
        var answers = answers[...]
        var sends: [RunInstant] = []
        var action = machine.start(at: now)
        while true {
            switch action {
            case .send:
                sends.append(now)
                now = now + .milliseconds(100)
                switch answers.popFirst() ?? .failure(.other("no more answers")) {
                case .success(let response): action = machine.received(response, at: now)
                case .failure(let error): action = machine.failed(error, at: now)
                }
            case .wait(let deadline):
                now = deadline
                action = machine.waited(at: now)
            case .finish(let result):
                return (result, sends, machine)
            }
        }
    }

    @Test("a 2xx JSON object is decided on its token (Android: any 2xx counts)", arguments: [200, 201, 204])
    func success(status: Int) {
        let (result, sends, _) = run(
            platform: .android,
            [
                .success(Reply.json(#"{"QueueitToken":"\#(TokenVectors.safetynet)"}"#, status: status))
            ])
        guard case .decided(let tryPass, _) = result else {
            Issue.record("expected a decision, got \(result)")
            return
        }
        #expect(tryPass.redirectType == .safetynet)
        #expect(tryPass.isPassedThrough)
        #expect(sends.count == 1)
    }

    @Test("4xx → error after one request, with status and the body's message", arguments: [400, 401, 404, 499])
    func clientError(status: Int) {
        let (result, sends, _) = run([.success(Reply.json(#"{"error":"Unknown waiting room"}"#, status: status))])
        #expect(result == .error(status: status, message: "Unknown waiting room"))
        #expect(sends.count == 1)
    }

    @Test("a 4xx with a plain body reports the body text")
    func clientErrorPlainBody() {
        let (result, _, _) = run([.success(Reply.response(status: 400, body: "Bad customer"))])
        #expect(result == .error(status: 400, message: "Bad customer"))
    }

    @Test(
        "retryable failures: five requests spaced 1, 2, 4, 8 s, then unavailable",
        arguments: [
            Result<IncomingResponse, TransportError>.success(Reply.response(status: 503)),
            .success(Reply.response(status: 500, body: #"{"error":"boom"}"#)),
            // A redirect without a `Location` cannot be followed (one with it is: PlatformBehaviourTests).
            .success(Reply.response(status: 302)),
            // iOS takes only exactly 200.
            .success(Reply.json(#"{"QueueitToken":"\#(TokenVectors.safetynet)"}"#, status: 201)),
            .success(Reply.response(status: 200, body: "<html>not json</html>")),
            .success(Reply.json("[]")),
            .failure(.timedOut), .failure(.connectionReset), .failure(.connectFailed("refused")),
            .failure(.tls("bad cert")),
        ])
    func retriesThenUnavailable(failure: Result<IncomingResponse, TransportError>) {
        let (result, sends, machine) = run(Array(repeating: failure, count: 6))
        guard case .unavailable = result else {
            Issue.record("expected unavailable, got \(result)")
            return
        }
        #expect(sends.count == 5)
        #expect(machine.attempts == 5)
        // Each wait starts when the failed answer arrives (100 ms after its send).
        let gaps = zip(sends.dropFirst(), sends).map { $0 - $1 - .milliseconds(100) }
        #expect(gaps == [.seconds(1), .seconds(2), .seconds(4), .seconds(8)])
    }

    @Test("unavailable keeps the last status and reason")
    func unavailableDetails() {
        let (result, _, _) = run(
            Array(repeating: .success(Reply.response(status: 503, body: #"{"error":"overloaded"}"#)), count: 5))
        #expect(result == .unavailable(lastStatus: 503, reason: "overloaded"))
        let (plain, _, _) = run(Array(repeating: .success(Reply.response(status: 502)), count: 5))
        #expect(plain == .unavailable(lastStatus: 502, reason: "Unexpected response code: 502"))
    }

    @Test("two 503s then success → decided after three requests")
    func recovers() {
        let (result, sends, _) = run([
            .success(Reply.response(status: 503)), .success(Reply.response(status: 503)),
            .success(Reply.enqueue(token: TokenVectors.queue)),
        ])
        guard case .decided(let tryPass, let queueId) = result else {
            Issue.record("expected a decision, got \(result)")
            return
        }
        #expect(tryPass.redirectType == .queue)
        #expect(queueId == "q-1")
        #expect(sends == [.origin, .seconds(1.1), .seconds(3.2)])
    }

    @Test("a 4xx after retries still ends as an error, not unavailable")
    func errorAfterRetry() {
        let (result, sends, _) = run([.failure(.timedOut), .success(Reply.response(status: 403, body: "forbidden"))])
        #expect(result == .error(status: 403, message: "forbidden"))
        #expect(sends.count == 2)
    }
}
