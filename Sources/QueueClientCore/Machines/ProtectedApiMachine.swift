import HTTPTypes

/// How the protected API part of the hybrid flow ended.
package enum ProtectedApiEnding: Sendable, Hashable {
    /// The API answered without `x-queueit-redirect` (2xx).
    case reached(status: Int)
    /// The API answered with a non-2xx status and no redirect header, or could not be reached,
    /// or kept redirecting to the queue after the token was presented.
    case failed(status: Int?, message: String)
}

/// The app side of the hybrid KnownUser flow (both SDK READMEs, the Android protected-API demo).
///
/// Call the API with `x-queueit-ajaxpageurl` (the API URL, URL-encoded; connectors decode it)
/// and the stored cookies. `x-queueit-redirect` → clear the API cookies and ask the caller to run
/// the waiting room. After a pass, call again with `?queueittoken=` appended and keep the
/// `QueueITAccepted-SDFrts345E-V3_{e}` cookie. A 3xx with `Location` (the connector's redirect
/// that strips the token from the URL) is followed here, at most five times, with the cookies.
package struct ProtectedApiMachine: Sendable {
    package enum Action: Sendable, Equatable {
        case send(OutgoingRequest)
        /// Run the waiting room, then call `queuePassed(token:at:)`.
        case runWaitingRoom(QueueRedirectInstruction)
        case finish(ProtectedApiEnding)
    }

    private enum State: Sendable {
        case idle
        case calling(presentedToken: Bool, redirectsFollowed: Int)
        case inWaitingRoom
        case finished
    }

    static let maxRedirects = 5
    static let ajaxPageURLHeader = PlatformHeaders.ajaxPageURLField
    static let queueRedirectHeader = IncomingResponse.queueRedirectField

    package let apiURL: SimpleURL
    /// The stack the app calls its API with (URLSession on iOS, OkHttp on Android): the head's
    /// fields and their order (`PlatformHeaders.protectedApi`).
    package let platform: ClientPlatform
    /// The app's own `User-Agent` on these calls; nil: the stack's own (CFNetwork's, OkHttp's).
    package let appUserAgent: String?
    package private(set) var cookies: CookieJar
    package private(set) var lastHTTPStatus: Int?
    package private(set) var requests = 0
    private var state: State = .idle
    private var currentURL: SimpleURL

    /// Nil when `apiURL` is not an http(s) URL. `platform` and `appUserAgent` choose the head
    /// (the app's HTTP stack, not the WebView: `PlatformHeaders.protectedApi`).
    package init?(
        apiURL: String, platform: ClientPlatform, appUserAgent: String? = nil, cookies: CookieJar = CookieJar()
    ) {
        guard let url = SimpleURL(apiURL), url.scheme == "http" || url.scheme == "https" else { return nil }
        self.apiURL = url
        self.currentURL = url
        self.platform = platform
        self.appUserAgent = appUserAgent
        self.cookies = cookies
    }

    /// The calls of a group's visitors: its platform's stack and the app's user agent.
    package init?(apiURL: String, group: VisitorGroupSettings, cookies: CookieJar = CookieJar()) {
        self.init(apiURL: apiURL, platform: group.platform, appUserAgent: group.apiUserAgent, cookies: cookies)
    }

    /// The head of iOS's URLSession with CFNetwork's user agent, whatever `userAgent` says (the
    /// WebView's, which the app's own stack does not send): for callers that do not know the
    /// visitor's platform yet. Prefer `init(apiURL:group:cookies:)`.
    package init?(apiURL: String, userAgent: String, cookies: CookieJar = CookieJar()) {
        self.init(apiURL: apiURL, platform: .ios, appUserAgent: nil, cookies: cookies)
    }

    package mutating func start(at now: RunInstant) -> Action {
        switch state {
        case .idle:
            return call(apiURL, presentedToken: false, redirectsFollowed: 0)
        case .calling, .inWaitingRoom, .finished:
            preconditionFailure("ProtectedApiMachine.start called twice")
        }
    }

    package mutating func received(_ response: IncomingResponse, at now: RunInstant) -> Action {
        switch state {
        case .calling(let presentedToken, let redirectsFollowed):
            let status = response.status.code
            lastHTTPStatus = status
            cookies.store(response.head.headerFields, from: currentURL.host)
            if let redirect = response.head.headerFields[Self.queueRedirectHeader], !redirect.isEmpty {
                guard !presentedToken else {
                    state = .finished
                    return .finish(
                        .failed(status: status, message: "the API still redirects to the queue after the queueittoken"))
                }
                guard let instruction = QueueRedirectInstruction(headerValue: redirect) else {
                    state = .finished
                    return .finish(.failed(status: status, message: "x-queueit-redirect without c and e"))
                }
                cookies.removeAll(for: apiURL.host)
                state = .inWaitingRoom
                return .runWaitingRoom(instruction)
            }
            if (300..<400).contains(status), let location = response.head.headerFields.value(of: .location),
                let next = currentURL.resolving(location), redirectsFollowed < Self.maxRedirects
            {
                return call(next, presentedToken: presentedToken, redirectsFollowed: redirectsFollowed + 1)
            }
            state = .finished
            if (200..<300).contains(status) { return .finish(.reached(status: status)) }
            return .finish(.failed(status: status, message: "the protected API answered HTTP \(status)"))
        case .idle, .inWaitingRoom, .finished:
            preconditionFailure("ProtectedApiMachine received a response with no call in flight")
        }
    }

    package mutating func failed(_ error: TransportError, at now: RunInstant) -> Action {
        switch state {
        case .calling:
            state = .finished
            return .finish(.failed(status: nil, message: "protected API: \(error.description)"))
        case .idle, .inWaitingRoom, .finished:
            preconditionFailure("ProtectedApiMachine got a transport error with no call in flight")
        }
    }

    /// The waiting room let the visitor through: repeat the call with the token (if any).
    package mutating func queuePassed(token: String?, at now: RunInstant) -> Action {
        switch state {
        case .inWaitingRoom:
            guard let token, !token.isEmpty else {
                return call(apiURL, presentedToken: true, redirectsFollowed: 0)
            }
            return call(apiURL.appendingQuery("queueittoken", token), presentedToken: true, redirectsFollowed: 0)
        case .idle, .calling, .finished:
            preconditionFailure("ProtectedApiMachine.queuePassed called outside the waiting room")
        }
    }

    /// After the visitor passed, the app calls the API once more (a visitor going on shopping):
    /// with `?queueittoken=` when it has a token the connector has not seen from it yet, so the
    /// connector sets its cookie, and with the cookies kept since. Allowed before any call and
    /// after the last one finished.
    package mutating func callAfterPass(presenting token: String?, at now: RunInstant) -> Action {
        switch state {
        case .idle, .finished:
            guard let token, !token.isEmpty else { return call(apiURL, presentedToken: true, redirectsFollowed: 0) }
            return call(apiURL.appendingQuery("queueittoken", token), presentedToken: true, redirectsFollowed: 0)
        case .calling, .inWaitingRoom:
            preconditionFailure("ProtectedApiMachine.callAfterPass called with a call in flight")
        }
    }

    private mutating func call(_ url: SimpleURL, presentedToken: Bool, redirectsFollowed: Int) -> Action {
        state = .calling(presentedToken: presentedToken, redirectsFollowed: redirectsFollowed)
        currentURL = url
        requests += 1
        let (fields, layout) = PlatformHeaders.protectedApi(
            platform: platform, appUserAgent: appUserAgent,
            ajaxPageURL: PercentEncoding.queryComponent(apiURL.description), cookie: cookies.header(for: url.host))
        let head = HTTPRequest(
            method: .get, scheme: url.scheme, authority: url.authority, path: url.pathAndQuery, headerFields: fields)
        var request = OutgoingRequest(head: head)
        request.layout = layout
        return .send(request)
    }
}
