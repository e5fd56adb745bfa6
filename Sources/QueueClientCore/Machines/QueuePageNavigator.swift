import HTTPTypes

/// How a visit to the queue page ended.
package enum QueuePageEnding: Sendable, Hashable {
    /// The page sent the visitor to the target; the `queueittoken` query value, if any.
    case passed(queueitToken: String?)
    case closed
    case restartSession
    /// Still waiting when `maxWait` (from queue entry) ran out.
    case queued
    /// Still on a page that advances by its own script (Queue-it's real queue page, which
    /// queuesim does not run) when `maxWait` ran out: loaded once, never reloaded.
    case queuedOnScriptPage
    /// The server's certificate was refused loading the page (the SDK's `SSL_ERROR`).
    case sslError(String)
    /// A page load failed and the platform's WebView does not recover (`QueuePageRetry`).
    case loadFailed(String)
}

/// The virtual WebView: the HTTP-only queue page protocol of docs/contract.md.
///
/// GET the current queue URL with the visitor's cookies, never following redirects itself.
/// Each `Location` goes through the `NavigationPolicy`. A 2xx means "still waiting": poll again
/// after `Retry-After` (whole seconds ≥ 1) or the poll interval.
///
/// Page loads and polls: the first load, each navigation to another queue URL and each reload
/// are the WebView's own page loads, and a failed one (a transport error, or an answer neither
/// 2xx nor 3xx) is handled as the platform's WebView handles it (`QueuePageRetry`; iOS keeps a
/// page it showed). The GETs after a 2xx stand for the page's own script polling, which the SDK
/// does not see: a failed poll or a `blocked` redirect (and on Android an `external` one) keep
/// the visitor on its page and poll again after the poll interval. Twenty redirects in a row
/// without a page also wait one poll interval, so a redirect loop cannot spin at one instant.
/// The navigator's files, by concern: this one holds its state and the events a driver feeds
/// it; `+WebView` what the WebView does with a navigation, a failed load and a page that runs
/// its own script; `+DriverShortcuts` the answers a virtual-time driver accounts for without
/// sending them; `+URLs` Android's URL rewrites; `+SharedSettings` what a room's visitors share.
package struct QueuePageNavigator: Sendable {
    package struct Settings: Sendable, Hashable {
        package var pollInterval: Duration
        package var maxWait: Duration
        /// Sent as `User-Agent` (the WebView's user agent).
        package var userAgent: String
        package var platform: ClientPlatform
        /// What a failed page load does.
        package var retry: QueuePageRetry

        /// `retry` nil: the platform's.
        package init(
            pollInterval: Duration, maxWait: Duration, userAgent: String, platform: ClientPlatform = .ios,
            retry: QueuePageRetry? = nil
        ) {
            self.pollInterval = pollInterval
            self.maxWait = maxWait
            self.userAgent = userAgent
            self.platform = platform
            self.retry = retry ?? platform.queuePageRetry
        }
    }

    package enum Action: Sendable, Equatable {
        /// Load a page. `queueUrlChanged`: the load is the SDK's `onQueueUrlChanged` for
        /// `currentURL` — a flag, not the URL: only the facade reports it, and a simulated
        /// visitor should not copy a URL per page load that nobody reads.
        case send(OutgoingRequest, queueUrlChanged: Bool)
        case wait(until: RunInstant)
        case finish(QueuePageEnding)
    }

    enum State: Sendable {
        case idle
        case loading
        case waitingToPoll
        case waitingOutMaxWait
        /// On a page that advances by its own script (`isScriptPage`): nothing more is sent;
        /// `maxWait` ends the visit.
        case waitingOnScriptPage
        case finished
    }

    static let redirectsBeforePause: UInt8 = 20

    /// The group's settings and the room's policy, shared by the visitors of a room
    /// (`SharedSettings.sharing`): one reference for both.
    let shared: SharedPolicy
    package var policy: NavigationPolicy { shared.policy }
    var sharedSettings: SharedSettings { shared.settings }
    package var settings: Settings { sharedSettings.settings }
    package internal(set) var currentURL: SimpleURL {
        get { packedURL.url }
        set { packedURL = sharedSettings.packing(newValue) }
    }
    package private(set) var enteredAt: RunInstant = .origin
    /// Queue page GETs sent.
    package internal(set) var polls: Int {
        get { Int(storedPolls) }
        set { storedPolls = UInt32(clamping: newValue) }
    }
    package internal(set) var lastHTTPStatus: Int? {
        get { storedHTTPStatus < 0 ? nil : Int(storedHTTPStatus) }
        set { storedHTTPStatus = newValue.map { Int16(clamping: max(0, $0)) } ?? -1 }
    }
    /// The WebView's cookies (in `rare`: most rooms' queue pages set none).
    package internal(set) var cookies: CookieJar {
        get { rare?.value.cookies ?? CookieJar() }
        set {
            guard rare != nil || !newValue.isEmpty else { return }
            rare = .updating(rare, empty: Rare(), isEmpty: \.isEmpty) { $0.cookies = newValue }
        }
    }
    // The stored fields below are declared small to large: Swift lays them out in this order.
    private var storedPolls: UInt32 = 0
    private var storedHTTPStatus: Int16 = -1
    var state: State = .idle
    /// Small counters side by side: a virtual run keeps a million navigators.
    var redirectsInRow: UInt8 = 0
    /// Whether the load in flight (or the next one) is a page load rather than a poll.
    var pageLoad = true
    /// Page loads failed in a row (Android's `reloadAttempts`).
    var failedPageLoads: UInt8 = 0
    /// What only some visitors have, in one box: most visitors pay one word for both.
    private var rare: Boxed<Rare>?
    private struct Rare: Sendable {
        /// The id Android writes into queue URLs; nil on iOS.
        var userIdInURLs: String?
        /// Android (`.reload`): the first queue URL, which it reloads. iOS: the page the
        /// WebView shows while a navigation away from it is under way, which it keeps if that
        /// navigation fails.
        var savedURL: SimpleURL?
        var cookies = CookieJar()
        var isEmpty: Bool { userIdInURLs == nil && savedURL == nil && cookies.isEmpty }
    }
    var userIdInURLs: String? { rare?.value.userIdInURLs }
    var savedURL: SimpleURL? {
        get { rare?.value.savedURL }
        set { rare = .updating(rare, empty: Rare(), isEmpty: \.isEmpty) { $0.savedURL = newValue } }
    }
    /// The page loaded or shown, packed: a waiting visitor keeps one.
    var packedURL: PackedURL

    /// Nil when the queue or target URL is missing or unparsable (the SDK's "Failed to load
    /// the queue" error).
    /// `userId` and `inviteCode` are the visitor's, written into queue URLs on Android.
    package init?(
        tryPass: QueueTryPassResult, queuePathPrefix: String?, settings: Settings, cookies: CookieJar = CookieJar(),
        userId: String? = nil, inviteCode: String? = nil
    ) {
        self.init(
            tryPass: tryPass, queuePathPrefix: queuePathPrefix, sharedSettings: SharedSettings(settings),
            cookies: cookies, userId: userId, inviteCode: inviteCode)
    }

    init?(
        tryPass: QueueTryPassResult, queuePathPrefix: String?, sharedSettings: SharedSettings,
        cookies: CookieJar = CookieJar(), userId: String? = nil, inviteCode: String? = nil
    ) {
        // The queue URL is parsed once: the policy's queue host shares the start URL's host
        // string, so a visitor in the queue holds one copy of it, not two.
        guard let queueUrl = tryPass.queueUrl, let targetUrl = tryPass.targetUrl,
            let start = sharedSettings.queueURL(queueUrl), let target = sharedSettings.targetURL(targetUrl),
            !start.host.isEmpty,
            !target.host.isEmpty
        else { return nil }
        // A target URL written without a path has the empty path on both SDKs (`Uri.getPath`,
        // `NSURL.path`), which no navigation (always `/` at least) matches.
        self.shared = sharedSettings.sharing(
            NavigationPolicy(
                queueHost: start.host, queuePathPrefix: queuePathPrefix, targetHost: target.host,
                targetPath: SimpleURL.hasEmptyPath(targetUrl) ? "" : target.path))
        let settings = sharedSettings.settings
        // Boxed: only Android visitors pay for it.
        let androidUserId = settings.platform.sendsUserIdInURLs ? userId ?? "" : nil
        let first =
            androidUserId.map { Self.androidFirstQueueURL(start, userId: $0, inviteCode: inviteCode) } ?? start
        packedURL = sharedSettings.packing(first)
        let rare = Rare(
            userIdInURLs: androidUserId, savedURL: settings.retry == .reload ? first : nil, cookies: cookies)
        self.rare = rare.isEmpty ? nil : Boxed(rare)
    }

    var deadline: RunInstant { enteredAt + settings.maxWait }

    package mutating func start(at now: RunInstant) -> Action {
        switch state {
        case .idle:
            enteredAt = now
            pageLoad = true
            return load(queueUrlChanged: settings.platform.reportsFirstQueueURL)
        case .loading, .waitingToPoll, .waitingOutMaxWait, .waitingOnScriptPage, .finished:
            preconditionFailure("QueuePageNavigator.start called twice")
        }
    }

    package mutating func received(_ response: IncomingResponse, at now: RunInstant) -> Action {
        switch state {
        case .loading:
            let status = response.status.code
            lastHTTPStatus = status
            // Only an answer that sets a cookie changes the jar (and its box).
            if response.head.headerFields[.setCookie] != nil {
                cookies.store(response.head.headerFields, from: packedURL.base.host)
            }
            if (300..<400).contains(status), let location = response.head.headerFields.value(of: .location),
                let next = sharedSettings.redirectURL(location, against: currentURL)
            {
                return navigate(to: next, at: now)
            }
            redirectsInRow = 0
            guard (200..<300).contains(status) else {
                return pageLoadFailed(
                    "the queue page answered HTTP \(status); the WebView stays on that page", httpError: true, at: now)
            }
            failedPageLoads = 0
            if let retryAfter = Self.retryAfter(response.head.headerFields) {
                return schedulePoll(after: retryAfter, at: now)
            }
            if Self.isScriptPage(response) { return waitOnScriptPage(at: now) }
            return schedulePoll(after: settings.pollInterval, at: now)
        case .idle, .waitingToPoll, .waitingOutMaxWait, .waitingOnScriptPage, .finished:
            preconditionFailure("QueuePageNavigator received a response with no load in flight")
        }
    }

    package mutating func failed(_ error: TransportError, at now: RunInstant) -> Action {
        switch state {
        case .loading:
            // `.tls` is a refused certificate only (`TLSErrorWording`): an unclean close or a
            // failed handshake is a failed load like any other, handled below.
            if case .tls(let reason) = error {
                state = .finished
                return .finish(.sslError("SslError: \(reason)"))
            }
            // Android's WebView times out no slow page: a load still unanswered when `maxWait`
            // ends was given up by the visitor (its timeout is that instant), not failed.
            if error == .timedOut, now >= deadline, !settings.platform.webViewTimesOutSlowPages {
                state = .finished
                return .finish(.queued)
            }
            return pageLoadFailed("the queue page failed to load: \(error)", httpError: false, at: now)
        case .idle, .waitingToPoll, .waitingOutMaxWait, .waitingOnScriptPage, .finished:
            preconditionFailure("QueuePageNavigator got a transport error with no load in flight")
        }
    }

    package mutating func waited(at now: RunInstant) -> Action {
        switch state {
        case .waitingToPoll:
            return load(queueUrlChanged: false)
        case .waitingOutMaxWait:
            state = .finished
            return .finish(.queued)
        case .waitingOnScriptPage:
            state = .finished
            return .finish(.queuedOnScriptPage)
        case .idle, .loading, .finished:
            preconditionFailure("QueuePageNavigator.waited called while not waiting")
        }
    }

    /// True between two polls (after a 2xx, a failure or a paused redirect chain), when the
    /// next `waited` loads the page again; false while waiting out `maxWait`.
    package var isWaitingToPoll: Bool { state == .waitingToPoll }

    /// When `maxWait` (measured from queue entry) runs out.
    package var maxWaitEnds: RunInstant { deadline }

    /// True while the visitor waits on a page that advances by its own script (Queue-it's
    /// real queue page): it was loaded once and is not reloaded.
    package var isOnScriptPage: Bool { state == .waitingOnScriptPage }

    /// `currentURL.queryValue("q")`, the queue id of the page, read without making the URL and
    /// without writing a packed id out (`PageQueueId`).
    package var currentQueueIdReference: PageQueueId? { packedURL.queueIdQueryReference }
}
