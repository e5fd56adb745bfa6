import Foundation

/// Queue-it's mobile engine, headless: the Swift SDK's `QueueItEngine` shape over the same
/// pure machines the simulator drives. The "WebView" is the HTTP-only `QueuePageNavigator`.
///
/// Callback order follows the SDK: safetynet → `onQueuePassed`; disabled/idle/afterevent →
/// `onQueueDisabled`; otherwise `onQueueViewWillOpen`, the view delay, then `onQueueUrlChanged`
/// for each waiting-room page and one of `onQueuePassed`, `onWebViewClosed`,
/// `onSessionRestart` (the app re-runs, as the README says), `onSSLError`. A 4xx →
/// `onError(.invalidResponse, …)`; retries used up → `onQueueItUnavailable()`, and on iOS also
/// `onError(.queueUnavailable, …)` (its code 3). The platform (`options.platform`) chooses the
/// SDK's behaviour where iOS and Android differ (`ClientPlatform`).
///
/// Each `run`, `tryPass` and `showQueue` returns only when its part of the flow has ended and
/// its last callback has returned. Cancelling the calling task stops it at its next wait (a
/// retry delay, the view delay or a poll), where it returns without another callback.
public final class QueueItEngine: Sendable {
    /// Your Queue-it customer id: the `{c}` of `/api/mobileapp/queue/{c}/{e}/enqueue` and of
    /// the default host `{c}.queue-it.net`.
    public let customerId: String
    /// The waiting room (event) id or its alias: the `{e}` of the enqueue path.
    public let waitingRoomOrAliasId: String
    /// Sent as the enqueue body's `layoutName` when not empty: the room's theme for this app.
    public let themeName: String?
    /// Sent as the enqueue body's `language` when not empty (a culture such as `en-US`), so
    /// the queue page speaks it.
    public let language: String?
    /// The options the engine was created with (the defaults when `init` got nil).
    public let options: QueueItEngineOptions
    /// Behind Proxy (README): the host, with an optional port, that serves the waiting room
    /// instead of `{customerId}.queue-it.net`. Nil or blank: Queue-it's own host.
    public let waitingRoomDomain: String?
    /// Behind Proxy on the site's own domain: the path the waiting room lives under (slashes
    /// and spaces trimmed). Ignored without a `waitingRoomDomain`, as in the SDK.
    public let queuePathPrefix: String?
    private let listener: any QueueListener
    private let transport: any HTTPTransport
    private let clock: any RunClock
    private let userId: String
    private let sdkVersion: String

    /// What iOS SDK 3.5.2 really sends: its `SDKVersion` constant still reads 3.5.1.
    public static let defaultSDKVersion = ClientPlatform.ios.defaultSDKVersion
    /// What the engine sends as the enqueue body's `userAgent`, the `User-Agent` header and
    /// the queue page's user agent when `options.webViewUserAgent` is nil: there is no WebView
    /// whose user agent the SDK would borrow, so the server's logs name this library instead.
    public static let defaultUserAgent = "QueueClientCore/1 (headless Queue-it engine)"
    /// A stable per-process device id, like iOS's identifierForVendor.
    static let processUserId = UUID().uuidString
    static let sharedTransport = AsyncHTTPTransport()

    /// The Swift SDK's initializer, plus the transport the requests go through.
    ///
    /// The engine keeps `queueListener` (strongly) for its life and calls it from the task
    /// awaiting `run`, `tryPass` or `showQueue`. `transport` is a headless addition: nil sends
    /// through one `AsyncHTTPTransport` shared by all engines of the process (never shut down);
    /// pass your own to reuse a client, connect elsewhere (`ConnectTarget`) or test offline.
    /// Nothing is checked here: a wrong customer or room id surfaces as
    /// `onError(.invalidResponse, …)` when the enqueue API answers 4xx.
    public convenience init(
        customerId: String, waitingRoomOrAliasId: String, queueListener: any QueueListener, themeName: String? = nil,
        language: String? = nil, options: QueueItEngineOptions? = nil, waitingRoomDomain: String? = nil,
        queuePathPrefix: String? = nil, transport: (any HTTPTransport)? = nil
    ) {
        self.init(
            customerId: customerId, waitingRoomOrAliasId: waitingRoomOrAliasId, queueListener: queueListener,
            themeName: themeName, language: language, options: options, waitingRoomDomain: waitingRoomDomain,
            queuePathPrefix: queuePathPrefix, transport: transport ?? Self.sharedTransport, clock: WallClock())
    }

    /// The same engine over an injected clock too, with a fixed user id and SDK version (the
    /// package's tests and drivers; an app has the wall clock and the platform's values).
    package init(
        customerId: String, waitingRoomOrAliasId: String, queueListener: any QueueListener, themeName: String? = nil,
        language: String? = nil, options: QueueItEngineOptions? = nil, waitingRoomDomain: String? = nil,
        queuePathPrefix: String? = nil, transport: any HTTPTransport, clock: any RunClock, userId: String? = nil,
        sdkVersion: String? = nil
    ) {
        self.customerId = customerId
        self.waitingRoomOrAliasId = waitingRoomOrAliasId
        self.listener = queueListener
        self.themeName = themeName
        self.language = language
        self.options = options ?? QueueItEngineOptions()
        self.waitingRoomDomain = waitingRoomDomain
        self.queuePathPrefix = queuePathPrefix
        self.transport = transport
        self.clock = clock
        self.userId = userId ?? Self.processUserId
        self.sdkVersion = sdkVersion ?? self.options.platform.defaultSDKVersion
    }

    private var address: WaitingRoomAddress {
        WaitingRoomAddress(
            customerId: customerId, waitingRoomId: waitingRoomOrAliasId, waitingRoomDomain: waitingRoomDomain,
            queuePathPrefix: queuePathPrefix)
    }

    private var userAgent: String { options.webViewUserAgent ?? Self.defaultUserAgent }

    // MARK: - run

    /// Runs the whole SDK flow: `tryPass()`, then the SDK's decision on its redirect type.
    ///
    /// `safetynet` → `onQueuePassed` (no queue page); `disabled`, `idle`, `afterevent` →
    /// `onQueueDisabled` (with the token: let the visitor in); any other type → `showQueue`,
    /// with its callbacks. When the enqueue call fails the listener hears why (see `tryPass()`)
    /// and nothing else happens. Returns when the flow has ended; `onSessionRestart` is the
    /// app's cue to call `run` again, as with the SDK.
    public func run() async { await run(enqueueToken: nil, enqueueKey: nil) }
    /// `run()` with an enqueue key (sent as the body's `enqueueKey`): for a room that admits
    /// visitors by key, the SDK's `runWithEnqueueKey`.
    public func runWithEnqueueKey(_ enqueueKey: String) async { await run(enqueueToken: nil, enqueueKey: enqueueKey) }
    /// `run()` with a signed enqueue token (sent as the body's `enqueueToken`): for a room that
    /// admits visitors by token, the SDK's `runWithEnqueueToken`.
    public func runWithEnqueueToken(_ enqueueToken: String) async {
        await run(enqueueToken: enqueueToken, enqueueKey: nil)
    }

    private func run(enqueueToken: String?, enqueueKey: String?) async {
        guard let result = await tryPass(enqueueToken: enqueueToken, enqueueKey: enqueueKey) else { return }
        switch result.redirectType.engineDecision {
        case .passed:
            QueueItLogger.logger.info("queue passed (safetynet)")
            listener.onQueuePassed(info: QueuePassedInfo(queueItToken: result.queueToken))
        case .disabled:
            QueueItLogger.logger.info("queue disabled", metadata: ["redirectType": "\(result.redirectType.rawValue)"])
            listener.onQueueDisabled(info: QueueDisabledInfo(queueItToken: result.queueToken))
        case .showQueue:
            await showQueue(queueTryPassResult: result)
        }
    }

    // MARK: - tryPass

    /// Asks the enqueue API where this visitor stands, without opening the queue (the
    /// waiting-room provider's `tryPass` in the SDKs).
    ///
    /// Returns the answer for the app to decide on, usually `showQueue` when its `redirectType`
    /// is `.queue` (README). Failed requests are retried after 1, 2, 4 and 8 s; nil means no
    /// answer, and the listener has heard why: a 4xx → `onError(.invalidResponse, "Error
    /// {status}: {message}")` at once; five failures (5xx, transport errors, bodies that are
    /// not JSON objects) → `onQueueItUnavailable()`, on iOS also
    /// `onError(.queueUnavailable, …)`. A call while another is enqueueing runs alongside it, as
    /// in both SDKs (iOS 3.3+ never sets its in-progress flag; Android clears its flag as soon
    /// as the HTTP call has started). A cancelled task also gets nil, without a callback. No
    /// other callback fires here.
    public func tryPass() async -> QueueTryPassResult? { await tryPass(enqueueToken: nil, enqueueKey: nil) }
    /// `tryPass()` with an enqueue key (the SDK's `tryPassWithEnqueueKey`).
    public func tryPass(enqueueKey: String) async -> QueueTryPassResult? {
        await tryPass(enqueueToken: nil, enqueueKey: enqueueKey)
    }
    /// `tryPass()` with a signed enqueue token (the SDK's `tryPassWithEnqueueToken`).
    public func tryPass(enqueueToken: String) async -> QueueTryPassResult? {
        await tryPass(enqueueToken: enqueueToken, enqueueKey: nil)
    }

    /// The enqueue call with its retries. Failures go to the listener and return nil.
    private func tryPass(enqueueToken: String?, enqueueKey: String?) async -> QueueTryPassResult? {
        let parameters = EnqueueParameters(
            address: address, userId: userId, userAgent: userAgent, sdkVersion: sdkVersion, layoutName: themeName,
            language: language, enqueueToken: enqueueToken, enqueueKey: enqueueKey,
            userIdInURL: options.platform.sendsUserIdInURLs, platform: options.platform)
        var machine = EnqueueMachine(parameters: parameters, platform: options.platform)
        var action = machine.start(at: clock.now)
        while true {
            switch action {
            case .send(let request):
                QueueItLogger.logger.debug("enqueue request", metadata: ["attempt": "\(machine.attempts)"])
                let timeout = options.timeout(for: .enqueue, giveUpAt: clock.now)
                switch await transport.execute(request, timeout: timeout.answerBound(sentAt: clock.now)) {
                case .success(let response): action = machine.received(response, at: clock.now)
                case .failure(let error): action = machine.failed(error, at: clock.now)
                }
            case .wait(let deadline):
                guard (try? await clock.sleep(until: deadline)) != nil else { return nil }
                action = machine.waited(at: clock.now)
            case .finish(.decided(let tryPass, _)):
                return tryPass
            case .finish(.error(let status, let message)):
                QueueItLogger.logger.error("enqueue failed", metadata: ["status": "\(status)"])
                listener.onError(error: .invalidResponse, errorMessage: "Error \(status): \(message)")
                return nil
            case .finish(.unavailable(_, let reason)):
                QueueItLogger.logger.error("queue unavailable", metadata: ["lastFailure": "\(reason)"])
                listener.onQueueItUnavailable()
                if options.platform.reportsUnavailableAsError {
                    listener.onError(error: .queueUnavailable, errorMessage: reason)
                }
                return nil
            }
        }
    }

    // MARK: - showQueue

    /// Opens the (virtual) queue view and follows it to its end.
    ///
    /// `onQueueViewWillOpen()` first, then the view delay, then the queue page is polled over
    /// plain HTTP (there is no WebView: `Retry-After` or `queuePagePollInterval` apart), with
    /// `onQueueUrlChanged` for each waiting-room page it is sent to (on iOS the first one too,
    /// as the SDK's WebView reports it; Android's does not). It ends with exactly one
    /// of: `onQueuePassed` (the target page was reached, with its `queueittoken`),
    /// `onWebViewClosed` (`queueit://close`), `onSessionRestart` (`queueit://restartSession`),
    /// `onSSLError` (TLS failed on a queue page), `onError(.queuePageFailed, …)` (a page load
    /// failed and the platform's WebView would not recover), `onQueueWaitExpired()` (still
    /// waiting after `maxQueueWait`), or `onError(.sslError, …)` when the result has no queue
    /// or target URL (the code Android uses for it). Returns after that callback. Unlike the
    /// SDK's `showQueue` it is `async`: it returns when the visit is over, not when the view is
    /// up.
    public func showQueue(queueTryPassResult: QueueTryPassResult) async {
        let settings = QueuePageNavigator.Settings(
            pollInterval: options.queuePagePollInterval, maxWait: options.maxQueueWait, userAgent: userAgent,
            platform: options.platform)
        listener.onQueueViewWillOpen()
        guard
            var navigator = QueuePageNavigator(
                tryPass: queueTryPassResult, queuePathPrefix: address.queuePathPrefix, settings: settings,
                userId: userId, inviteCode: options.inviteCode)
        else {
            listener.onError(
                error: .sslError, errorMessage: "Failed to load the queue. Queue URL or target URL is missing.")
            return
        }
        if options.effectiveViewDelay > .zero {
            guard (try? await clock.sleep(until: clock.now + options.effectiveViewDelay)) != nil else { return }
        }
        var action = navigator.start(at: clock.now)
        while true {
            switch action {
            case .send(let request, let urlChanged):
                if urlChanged { listener.onQueueUrlChanged(navigator.currentURL.description) }
                let timeout = options.timeout(for: .queuePage, giveUpAt: navigator.maxWaitEnds)
                switch await transport.execute(request, timeout: timeout.answerBound(sentAt: clock.now)) {
                case .success(let response): action = navigator.received(response, at: clock.now)
                case .failure(let error): action = navigator.failed(error, at: clock.now)
                }
            case .wait(let deadline):
                guard (try? await clock.sleep(until: deadline)) != nil else { return }
                action = navigator.waited(at: clock.now)
            case .finish(.passed(let token)):
                guard token != nil || options.platform.passesWithoutToken else {
                    // Android: the view closes and no callback fires (`PendingPassStore`).
                    QueueItLogger.logger.error("target reached without a queueittoken: no pass on Android")
                    return
                }
                QueueItLogger.logger.info("queue passed", metadata: ["token": "\(token == nil ? "absent" : "present")"])
                listener.onQueuePassed(info: QueuePassedInfo(queueItToken: token))
                return
            case .finish(.closed):
                listener.onWebViewClosed()
                return
            case .finish(.restartSession):
                listener.onSessionRestart()
                return
            case .finish(.sslError(let message)):
                listener.onSSLError(message)
                return
            case .finish(.loadFailed(let message)):
                listener.onError(error: .queuePageFailed, errorMessage: message)
                return
            case .finish(.queued):
                QueueItLogger.logger.warning("still in the queue after maxQueueWait")
                listener.onQueueWaitExpired()
                return
            case .finish(.queuedOnScriptPage):
                // Queue-it's real page moves on by its own script, which this engine does not
                // run: it was loaded once, and the wait ran out on it.
                QueueItLogger.logger.warning(
                    "still in the queue after maxQueueWait on a real queue page, whose script is not run")
                listener.onQueueWaitExpired()
                return
            }
        }
    }
}
