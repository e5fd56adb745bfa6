/// What the WebView does on its own: follow a navigation (through the `NavigationPolicy`),
/// handle a failed page load as the platform's WebView does (`QueuePageRetry`), schedule the
/// next poll, and stay on a page that advances by its own script.
extension QueuePageNavigator {
    mutating func navigate(to url: SimpleURL, at now: RunInstant) -> Action {
        switch policy.decide(url, caseSensitive: settings.platform.comparesHostsCaseSensitively) {
        case .passed(let token):
            state = .finished
            return .finish(.passed(queueitToken: token))
        case .closed:
            state = .finished
            return .finish(.closed)
        case .restartSession:
            state = .finished
            return .finish(.restartSession)
        case .external
        where settings.platform.followsOffHostRedirects && (url.scheme == "http" || url.scheme == "https"):
            // iOS lets a redirect (not a tapped link) to another host load inside the WebView
            // (a captcha or proof-of-work page, say); only Android hands it to the browser.
            return go(to: url, queueUrlChanged: false, at: now)
        case .blocked, .external:
            redirectsInRow = 0
            pageLoad = false
            return schedulePoll(after: settings.pollInterval, at: now)
        case .queueUrlChanged(var next):
            if let userIdInURLs, !Self.hasUserId(userIdInURLs, next) {
                next = Self.prependingUserId(userIdInURLs, to: next)
            }
            return go(to: next, queueUrlChanged: true, at: now)
        }
    }

    /// A navigation: the WebView loads a new page.
    mutating func go(to next: SimpleURL, queueUrlChanged: Bool, at now: RunInstant) -> Action {
        // Navigating away from a page on screen (its load or poll had answered): iOS keeps it
        // while the new one loads. (`savedURL` is the reload URL under `.reload`.)
        if !pageLoad, settings.retry == .none, settings.platform.keepsPageOnFailedNavigation {
            savedURL = currentURL
        }
        currentURL = next
        pageLoad = true
        redirectsInRow += 1
        if redirectsInRow >= Self.redirectsBeforePause {
            redirectsInRow = 0
            return schedulePoll(after: settings.pollInterval, at: now)
        }
        if now >= deadline {
            state = .finished
            return .finish(.queued)
        }
        return load(queueUrlChanged: queueUrlChanged)
    }

    /// A page load (not a poll) failed: the platform's WebView decides what comes next.
    /// `httpError`: the page came back with an error status, which Android only logs (its reload
    /// follows `onReceivedError`, a load that produced no page).
    mutating func pageLoadFailed(_ reason: String, httpError: Bool, at now: RunInstant) -> Action {
        guard pageLoad else { return schedulePoll(after: settings.pollInterval, at: now) }
        switch settings.retry {
        case .poll:
            return schedulePoll(after: settings.pollInterval, at: now)
        case .none:
            // A navigation that fails before it commits leaves the WebView on the page it
            // showed (WKWebView has no `didFailProvisionalNavigation` handler here, and WebKit
            // keeps the page): its script polls on. Only a first load that fails leaves it blank.
            if !httpError, let shown = savedURL {
                savedURL = nil
                currentURL = shown
                return schedulePoll(after: settings.pollInterval, at: now)
            }
            state = .finished
            return .finish(.loadFailed("\(reason); iOS does not retry a failed queue page"))
        case .reload:
            if httpError {
                state = .finished
                return .finish(.loadFailed("\(reason); Android reloads only pages that fail to load"))
            }
            guard failedPageLoads < QueuePageRetry.reloadDelays.count, let reloadURL = savedURL else {
                state = .finished
                return .finish(
                    .loadFailed("\(reason); Android gave up after \(failedPageLoads) reloads of the queue URL"))
            }
            let delay = QueuePageRetry.reloadDelays[Int(failedPageLoads)]
            failedPageLoads += 1
            currentURL = reloadURL
            // Still a page load: the reload's own failure counts again.
            return schedulePoll(after: delay, at: now, keepingPageLoad: true)
        }
    }

    mutating func schedulePoll(after delay: Duration, at now: RunInstant, keepingPageLoad: Bool = false)
        -> Action
    {
        if !keepingPageLoad { pageLoad = false }
        let next = now + delay
        if next >= deadline {
            guard now < deadline else {
                state = .finished
                return .finish(.queued)
            }
            state = .waitingOutMaxWait
            return .wait(until: deadline)
        }
        state = .waitingToPoll
        return .wait(until: next)
    }

    /// The page shown advances by its own script, which queuesim does not run: a phone loads
    /// it once and reloads it only when a load fails, so nothing more is sent until `maxWait`.
    mutating func waitOnScriptPage(at now: RunInstant) -> Action {
        pageLoad = false
        guard now < deadline else {
            state = .finished
            return .finish(.queuedOnScriptPage)
        }
        state = .waitingOnScriptPage
        return .wait(until: deadline)
    }

    mutating func load(queueUrlChanged: Bool) -> Action {
        state = .loading
        polls += 1
        let request = OutgoingRequest(
            pageLoadOf: packedURL, template: sharedSettings.pageFields,
            cookie: cookies.header(for: packedURL.base.host))
        return .send(request, queueUrlChanged: queueUrlChanged)
    }
}
