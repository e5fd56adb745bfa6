/// How one enqueue run ended.
package enum EnqueueResult: Sendable, Hashable {
    /// A 2xx with a JSON object: the engine's decision follows from `tryPass.redirectType`.
    case decided(tryPass: QueueTryPassResult, queueId: String?)
    /// A 4xx: no retry. `message` is the body's message (or `HTTP {status}`).
    case error(status: Int, message: String)
    /// Five requests failed (5xx, other non-2xx, transport errors, bodies that are not JSON
    /// objects). `lastStatus` is the last HTTP status seen, `reason` the last failure.
    case unavailable(lastStatus: Int?, reason: String)
}

/// The SDK provider's enqueue call with its retries, as a pure state machine.
///
/// Backoff (both SDKs): 1 s, doubled after each failure while below 10 s; so requests go out
/// at t, t+1, t+3, t+7, t+15 and the fifth failure reports unavailable. The SDK keeps the delay
/// on the provider and resets it only when giving up; a machine lives for one run, so every
/// run (and every restart) starts again at 1 s, which is what an app creating a fresh engine
/// per run sees. Success is the platform's: iOS insists on exactly 200, Android takes any 2xx;
/// another 2xx is a failure and retried.
///
/// Redirects: both SDKs' HTTP stacks (NSURLConnection, OkHttp) follow a 3xx with `Location`
/// themselves, so the app never sees it: the machine follows up to
/// `ClientPlatform.enqueueRedirectLimit` of them within one attempt, with the same headers —
/// 307 and 308 keep the POST and its body, 301, 302 and 303 turn it into a GET without a body
/// (OkHttp's `followUpRequest`, CFNetwork's browser rule). One more redirect, or a 3xx without a
/// `Location`, fails the attempt like any other failure.
///
/// OkHttp's other silent follow-ups (Android only, `RetryAndFollowUpInterceptor.followUpRequest`):
/// a 408 is sent again unless its `Retry-After` is above 0 or the answer before it in the
/// attempt was a 408 too; a 503 is sent again only with `Retry-After: 0` (digits reading 0),
/// and not after a 503. They count toward the same 20 follow-ups, as requests but not as the
/// SDK's attempts. NSURLConnection re-sends neither: on iOS a 408 is a 4xx, an error.
package struct EnqueueMachine: Sendable {
    package static let initialRetryDelay = Duration.seconds(1)
    /// Retry while the next delay is below this (the SDKs' `MAX_RETRY_SEC`).
    package static let maxRetryDelay = Duration.seconds(10)

    package enum Action: Sendable, Equatable {
        case send(OutgoingRequest)
        case wait(until: RunInstant)
        case finish(EnqueueResult)
    }

    private enum State: Sendable {
        case idle
        case requesting
        case backingOff
        case finished
    }

    package let parameters: EnqueueParameters
    package let platform: ClientPlatform
    /// The group's prebuilt enqueue head, when the visitor has one (see `EnqueueRequest.make`).
    private let sharedHead: EnqueueHeaderTemplate?
    private var state: State = .idle
    /// Follow-ups (redirects, OkHttp's re-sends) in the current attempt, and where the last
    /// redirect led (boxed: rare).
    private var followUps = 0
    private var redirectedTo: Boxed<RedirectedRequest>?
    /// The status of the last answer in this attempt: the next answer's `priorResponse` for
    /// OkHttp, which does not re-send a 408 after a 408, nor a 503 after a 503.
    private var priorStatusInAttempt: Int?

    private struct RedirectedRequest: Sendable {
        var url: SimpleURL
        var asGet: Bool
    }
    private var nextRetryDelay = EnqueueMachine.initialRetryDelay
    /// Enqueue requests sent so far (attempts; a followed redirect is not one).
    package private(set) var attempts = 0
    /// Whether the last request sent is a follow-up within its attempt (a redirect followed, or
    /// OkHttp's re-send): a request, not an attempt of the SDK.
    package var lastSendIsFollowUp: Bool { followUps > 0 }
    package private(set) var lastHTTPStatus: Int?

    package init(parameters: EnqueueParameters, platform: ClientPlatform = .ios) {
        self.init(parameters: parameters, platform: platform, sharedHead: nil)
    }

    package init(parameters: EnqueueParameters, platform: ClientPlatform, sharedHead: EnqueueHeaderTemplate?) {
        self.parameters = parameters
        self.platform = platform
        self.sharedHead = sharedHead
    }

    package mutating func start(at now: RunInstant) -> Action {
        switch state {
        case .idle:
            return sendRequest()
        case .requesting, .backingOff, .finished:
            preconditionFailure("EnqueueMachine.start called twice")
        }
    }

    package mutating func received(_ response: IncomingResponse, at now: RunInstant) -> Action {
        switch state {
        case .requesting:
            let status = response.status.code
            lastHTTPStatus = status
            let prior = priorStatusInAttempt
            priorStatusInAttempt = status
            if (300..<400).contains(status), let location = response.head.headerFields.value(of: .location) {
                return follow(location, status: status, at: now)
            }
            if platform.resendsSilently(
                status: status, prior: prior, retryAfter: response.head.headerFields.value(of: .retryAfter))
            {
                return resend(at: now)
            }
            switch status {
            case 200..<300 where platform.acceptsEnqueueStatus(status):
                guard var parsed = EnqueueResponse.read(jsonBody: response.body) else {
                    return retryOrGiveUp("Server did not return a JSON object (HTTP \(status))", at: now)
                }
                state = .finished
                let queueId = parsed.queueId.take()
                return .finish(.decided(tryPass: QueueTryPassResult(response: consume parsed), queueId: queueId))
            case 400..<500:
                state = .finished
                let message = JSONObject.message(from: response.body) ?? "HTTP \(status)"
                return .finish(.error(status: status, message: message))
            default:
                let reason = JSONObject.parse(response.body)?["error"] as? String
                return retryOrGiveUp(reason ?? "Unexpected response code: \(status)", at: now)
            }
        case .idle, .backingOff, .finished:
            preconditionFailure("EnqueueMachine received a response with no request in flight")
        }
    }

    package mutating func failed(_ error: TransportError, at now: RunInstant) -> Action {
        switch state {
        case .requesting:
            return retryOrGiveUp(error.description, at: now)
        case .idle, .backingOff, .finished:
            preconditionFailure("EnqueueMachine got a transport error with no request in flight")
        }
    }

    package mutating func waited(at now: RunInstant) -> Action {
        switch state {
        case .backingOff:
            return sendRequest()
        case .idle, .requesting, .finished:
            preconditionFailure("EnqueueMachine.waited called while not backing off")
        }
    }

    private mutating func sendRequest() -> Action {
        state = .requesting
        attempts += 1
        followUps = 0
        redirectedTo = nil
        priorStatusInAttempt = nil
        return .send(EnqueueRequest.make(parameters, sharedHead: sharedHead))
    }

    /// The HTTP stack follows a redirect within the attempt (see the type's comment).
    private mutating func follow(_ location: String, status: Int, at now: RunInstant) -> Action {
        let original = EnqueueRequest.make(parameters)
        let base =
            redirectedTo?.value.url
            ?? SimpleURL(
                "\(original.head.scheme ?? "https")://\(original.head.authority ?? "")\(original.head.path ?? "/")")
        guard followUps < ClientPlatform.enqueueRedirectLimit else {
            return retryOrGiveUp("Too many follow-up requests: \(followUps + 1)", at: now)
        }
        guard let next = base?.resolving(location), next.scheme == "http" || next.scheme == "https" else {
            return retryOrGiveUp("Unexpected response code: \(status) (a Location that cannot be followed)", at: now)
        }
        followUps += 1
        let asGet = (redirectedTo?.value.asGet ?? false) || !(status == 307 || status == 308)
        redirectedTo = Boxed(RedirectedRequest(url: next, asGet: asGet))
        return .send(currentRequest())
    }

    /// OkHttp sends the request just answered again, unchanged (a 408, a 503 `Retry-After: 0`).
    private mutating func resend(at now: RunInstant) -> Action {
        guard followUps < ClientPlatform.enqueueRedirectLimit else {
            return retryOrGiveUp("Too many follow-up requests: \(followUps + 1)", at: now)
        }
        followUps += 1
        return .send(currentRequest())
    }

    /// The request of this attempt as it stands: the enqueue call, or where redirects led it.
    private func currentRequest() -> OutgoingRequest {
        guard let redirected = redirectedTo?.value else {
            return EnqueueRequest.make(parameters, sharedHead: sharedHead)
        }
        var request = EnqueueRequest.make(parameters)
        request.head.scheme = redirected.url.scheme
        request.head.authority = redirected.url.authority
        request.head.path = redirected.url.pathAndQuery
        if redirected.asGet {
            request.head.method = .get
            request.head.headerFields[.contentType] = nil
            request.body = nil
        }
        return request
    }

    private mutating func retryOrGiveUp(_ reason: String, at now: RunInstant) -> Action {
        if nextRetryDelay < Self.maxRetryDelay {
            let delay = nextRetryDelay
            nextRetryDelay = delay * 2
            state = .backingOff
            return .wait(until: now + delay)
        }
        nextRetryDelay = Self.initialRetryDelay
        state = .finished
        return .finish(.unavailable(lastStatus: lastHTTPStatus, reason: reason))
    }
}
