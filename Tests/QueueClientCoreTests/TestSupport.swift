import Foundation
import HTTPTypes
import Synchronization

@testable import QueueClientCore

/// Canned answers for the scripted transport and the virtual-time driver.
enum Reply {
    static func json(_ text: String, status: Int = 200, headers: [(String, String)] = []) -> IncomingResponse {
        response(status: status, body: text, headers: [("Content-Type", "application/json")] + headers)
    }

    static func enqueue(
        token: String?, queueUrl: String? = "https://acme.queue-it.net/?c=acme&e=spring",
        target: String? = "https://shop.example.com/checkout"
    ) -> IncomingResponse {
        func member(_ value: String?) -> String { value.map { "\"\($0)\"" } ?? "null" }
        return json(
            "{\"QueueId\":\"q-1\",\"QueueUrl\":\(member(queueUrl)),\"EventTargetUrl\":\(member(target)),\"QueueitToken\":\(member(token)),\"QueueUrlTTLInMinutes\":0}"
        )
    }

    static func redirect(_ location: String, status: Int = 302, headers: [(String, String)] = []) -> IncomingResponse {
        response(status: status, body: "", headers: [("Location", location)] + headers)
    }

    static func response(status: Int, body: String = "", headers: [(String, String)] = []) -> IncomingResponse {
        var fields = HTTPFields()
        for (name, value) in headers { fields.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
        return IncomingResponse(
            head: HTTPResponse(status: .init(code: status), headerFields: fields), body: Array(body.utf8))
    }
}

/// One request as a test saw it.
struct SentRequest: Sendable {
    var at: RunInstant
    var request: OutgoingRequest
    var method: String { request.head.method.rawValue }
    var authority: String { request.head.authority ?? "" }
    var path: String { request.head.path ?? "" }
    var bodyText: String { String(decoding: request.body ?? [], as: UTF8.self) }
    func header(_ name: String) -> String? { request.head.headerFields[HTTPField.Name(name)!] }
}

typealias Responder = @Sendable (OutgoingRequest, RunInstant) -> Result<IncomingResponse, TransportError>

/// A transport that answers from a script and records what it was asked.
final class ScriptedTransport: HTTPTransport {
    private struct State {
        var script: [Result<IncomingResponse, TransportError>]
        var sent: [SentRequest] = []
    }
    private let state: Mutex<State>
    private let fallback: Responder?
    private let clock: TestClock?

    init(_ script: [Result<IncomingResponse, TransportError>] = [], clock: TestClock? = nil, fallback: Responder? = nil)
    {
        self.state = Mutex(State(script: script))
        self.clock = clock
        self.fallback = fallback
    }

    var sent: [SentRequest] { state.withLock { $0.sent } }

    func execute(_ request: OutgoingRequest, timeout: Duration) async -> Result<IncomingResponse, TransportError> {
        let now = clock?.now ?? .origin
        let scripted: Result<IncomingResponse, TransportError>? = state.withLock {
            $0.sent.append(SentRequest(at: now, request: request))
            return $0.script.isEmpty ? nil : $0.script.removeFirst()
        }
        if let scripted { return scripted }
        if let fallback { return fallback(request, now) }
        return .failure(.other("script exhausted"))
    }
}

/// A virtual clock for the async drivers: `sleep(until:)` returns at once after moving `now`
/// to the deadline, and records every deadline asked for.
final class TestClock: RunClock {
    private struct State {
        var now: RunInstant = .origin
        var sleeps: [RunInstant] = []
    }
    private let state = Mutex(State())

    var now: RunInstant { state.withLock { $0.now } }
    var sleeps: [RunInstant] { state.withLock { $0.sleeps } }

    func advance(by duration: Duration) { state.withLock { $0.now = $0.now + duration } }

    func sleep(until deadline: RunInstant) async throws {
        try Task.checkCancellation()
        state.withLock {
            $0.sleeps.append(deadline)
            if deadline > $0.now { $0.now = deadline }
        }
    }
}

/// Drives a `VisitorMachine` in virtual time, synchronously: each request takes `latency` (or
/// what `latencyOf` says for it), each wait jumps to its deadline. An answer that takes as long
/// as the request's timeout or longer is a `.timedOut` failure at the timeout, as the runners
/// do it. Bounded so a bug cannot hang the test run.
func simulate(
    _ configuration: VisitorConfiguration, latency: Duration = .milliseconds(20), start: RunInstant = .origin,
    stopAt: RunInstant? = nil, latencyOf: ((SentRequest) -> Duration)? = nil,
    respond: (SentRequest) -> Result<IncomingResponse, TransportError>
) -> (result: VisitorResult, sent: [SentRequest]) {
    var machine = VisitorMachine(configuration: configuration)
    var now = start
    var sent: [SentRequest] = []
    var action = machine.start(at: now)
    for _ in 0..<10_000 {
        switch action {
        case .finish(let result):
            return (result, sent)
        case .send(let request, let requestTimeout):
            let record = SentRequest(at: now, request: request)
            sent.append(record)
            // Answers arrive whole here, as on the virtual clock.
            let timeout = requestTimeout.answerBound(sentAt: now)
            let taken = latencyOf?(record) ?? latency
            now = now + min(taken, timeout)
            if let stopAt, now >= stopAt { return (machine.stop(at: stopAt, reason: .runEnded), sent) }
            if taken >= timeout {
                action = machine.failed(.timedOut, at: now)
                continue
            }
            switch respond(record) {
            case .success(let response): action = machine.received(response, at: now)
            case .failure(let error): action = machine.failed(error, at: now)
            }
        case .wait(let deadline):
            if let stopAt, deadline >= stopAt { return (machine.stop(at: stopAt, reason: .runEnded), sent) }
            now = deadline
            action = machine.waited(at: now)
        }
    }
    fatalError("visitor did not finish in 10000 steps")
}

func configuration(
    flow: VisitorFlowKind = .run, domain: String? = nil, prefix: String? = nil, enqueueKey: String? = nil,
    enqueueToken: String? = nil, maxRestarts: Int = 1, maxWait: Duration = .seconds(60), protectedApi: String? = nil,
    platform: ClientPlatform = .ios, queuePageRetry: QueuePageRetry? = .poll, requestTimeout: Duration? = .seconds(10),
    inviteCode: String? = nil
) -> VisitorConfiguration {
    VisitorConfiguration(
        group: VisitorGroupSettings(
            customerId: "acme", waitingRoomId: "spring", waitingRoomDomain: domain, queuePathPrefix: prefix,
            userAgent: "queuesim/1 (test)", sdkVersion: "iOS-3.5.2",
            requestTimeout: requestTimeout ?? platform.defaultRequestTimeout, pollInterval: .seconds(2),
            maxWait: maxWait, maxRestarts: maxRestarts, flow: flow, protectedApiURL: protectedApi, platform: platform,
            queuePageRetry: queuePageRetry),
        userId: "visitor-1", enqueueKey: enqueueKey, enqueueToken: enqueueToken, inviteCode: inviteCode)
}

extension RunInstant {
    static func seconds(_ value: Double) -> RunInstant {
        RunInstant(sinceOrigin: .milliseconds(Int64((value * 1000).rounded())))
    }
}

/// Published and computed token vectors (shared/reference/queueit-server.md §1.4).
enum TokenVectors {
    static let queue =
        "e_e1~q_6cf23f10-aca7-4fa2-840e-e10f56aecb44~ts_1797033600~ce_true~rt_queue~h_b5b7085a3139e4d42f87e67d0748efa71e532a9e8609428cb9b073b8168c350b"
    static let safetynet =
        "e_e1~q_6cf23f10-aca7-4fa2-840e-e10f56aecb44~ts_1797033600~ce_false~cv_3~rt_safetynet~h_ab9f96e080469d3a0508556b7121f9d11a39e83c256b6cc68671b609d96cefcb"
    /// The vendor's HashHelperTest message with its hash appended.
    static let vendorDisabled =
        "ts_1480593661~cv_10~ce_false~q_944c1f44-60dd-4e37-aabc-f3e4bb1c8895~c_customerid~e_eventid~rt_disabled~h_286a17fb82009d8556465b2f0880a8e5e9565b42490669f4b8f1b93b7d6ddd51"
    static func with(rt: String) -> String { "e_e1~q_abc~ts_1797033600~ce_true~rt_\(rt)~h_00" }
}
