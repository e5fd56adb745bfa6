/// Which Queue-it mobile SDK a visitor behaves like (`client.platform`, per group too).
///
/// Every behaviour where ios-webui-sdk 3.5.2 and android-webui-sdk 3.0.0 differ is chosen
/// here, from their sources (docs/client-core.md has the table with the file of each row).
public enum ClientPlatform: String, Sendable, Hashable, CaseIterable, Codable {
    /// ios-webui-sdk 3.5.2 (the default): exactly 200 is success, no retry of a failed queue
    /// page, `onError(.queueUnavailable)` with `onQueueItUnavailable`.
    case ios
    /// android-webui-sdk 3.0.0: any 2xx is success, `userId` on the URLs, failed queue pages
    /// reloaded with backoff, invite codes.
    case android

    /// What each SDK really sends as `sdkVersion`. iOS 3.5.2 still sends `iOS-3.5.1`: its
    /// `SDKVersion` constant in `QueueConsts.h` was not bumped with the podspec. Android sends
    /// `"Android-" + library version` (`QueueITWaitingRoomProvider.getSdkVersion`).
    package var defaultSDKVersion: String {
        switch self {
        case .ios: "iOS-3.5.1"
        case .android: "Android-3.0.0"
        }
    }

    /// The enqueue call's timeout when the scenario names none. iOS sets none on its
    /// `NSURLRequest`, so the platform's 60 s applies; Android uses a default `OkHttpClient`:
    /// 10 s to connect, 10 s per read, 10 s per write. Both stacks bound the time without
    /// progress; queuesim bounds the whole exchange by this figure (docs/client-core.md).
    package var defaultRequestTimeout: Duration {
        switch self {
        case .ios: .seconds(60)
        case .android: .seconds(10)
        }
    }

    /// Whether an enqueue answer with `status` counts as success. iOS checks for exactly 200
    /// (`QueueITApiClient_NSURLConnectionRequest.m`, `hasExpectedStatusCode`); Android takes any
    /// 2xx (`response.isSuccessful()`).
    package func acceptsEnqueueStatus(_ status: Int) -> Bool {
        switch self {
        case .ios: status == 200
        case .android: (200..<300).contains(status)
        }
    }

    /// Whether the WebView's own stack times out a page that is slow to answer: WKWebView's
    /// `NSURLRequest` does (60 s without progress); Chromium has no read timeout
    /// (`timeout(for:giveUpAt:)`).
    package var webViewTimesOutSlowPages: Bool { self == .ios }

    /// Whether reaching the target without a `queueittoken` is a pass: iOS fires
    /// `notifyYourTurn` whatever the token; Android 3.0.0 saves the token in `PendingPassStore`
    /// and fires `onQueuePassed` only for the token it reads back, which a null token removed
    /// (an empty one, `queueittoken=`, is kept and passes).
    package var passesWithoutToken: Bool { self == .ios }

    /// Whether a server redirect to another host loads inside the WebView: iOS allows every
    /// navigation but a tapped link off the queue host (`decidePolicyForNavigationAction`);
    /// Android's `UriOverrider` hands any other host to the browser and cancels.
    package var followsOffHostRedirects: Bool { self == .ios }

    /// Whether a navigation that fails to load leaves the WebView on the page it showed: WebKit
    /// keeps the committed page when a provisional navigation fails (the SDK handles no
    /// failure); Android's WebView shows its error page and the SDK reloads (`queuePageRetry`).
    package var keepsPageOnFailedNavigation: Bool { self == .ios }

    /// Whether hosts are compared as written (`NavigationPolicy.decide`): Android's
    /// `UriOverrider` uses `equals` — the queue URL's host against the WebView's lowercased
    /// one, a `queueit://` link's host against `close` and `restartSession`. queuesim compares
    /// iOS's (`isEqualToString` in `QueueITWKViewController.m`) case-insensitively, as before.
    package var comparesHostsCaseSensitively: Bool { self == .android }

    /// What the WebView does when a queue page fails to load.
    package var queuePageRetry: QueuePageRetry {
        switch self {
        case .ios: .none
        case .android: .reload
        }
    }

    /// Android puts the device's user id in every Queue-it URL: `?userId=` on the enqueue call
    /// (`QueueITApiClient.getApiUrl`) and `userId=…&` in front of each queue URL's query
    /// (`QueueUrlHelper.updateUrl`, `UriOverrider`). iOS sends it only in the body.
    package var sendsUserIdInURLs: Bool { self == .android }

    /// Whether the SDK reports the first queue URL through `onQueueUrlChanged`: iOS's
    /// navigation delegate sees the initial load of the queue host (a main-frame navigation);
    /// Android loads it with `loadUrl`, which `shouldOverrideUrlLoading` does not see.
    package var reportsFirstQueueURL: Bool { self == .ios }

    /// Whether `unavailable` also fires the error callback: iOS calls `notifyQueueError` for every
    /// provider failure, code 3 (unavailable) included; Android fires only `onQueueItUnavailable`.
    package var reportsUnavailableAsError: Bool { self == .ios }

    /// The unit of `setViewDelay`: Android posts it to a `Handler` in milliseconds, iOS passes
    /// it to `dispatch_after` in seconds.
    package func viewDelay(_ value: Int) -> Duration {
        switch self {
        case .ios: .seconds(value)
        case .android: .milliseconds(value)
        }
    }

    /// Whether the enqueue call's HTTP stack sends the request again by itself after an answer
    /// with `status` (`prior`: the answer before it in the same call, if any; `retryAfter`: its
    /// `Retry-After`). OkHttp 4.9.2's `RetryAndFollowUpInterceptor.followUpRequest`: a 408 unless
    /// it follows a 408 or its `Retry-After` is digits above 0 (anything else that is not
    /// digits counts as above 0; no header, as 0); a 503 only when its `Retry-After` is digits
    /// reading 0, and not after a 503. NSURLConnection re-sends nothing.
    /// `retryAfter` is read only for a 408 or 503 on Android: looking the field up for every
    /// answer of every visitor was most of this call's cost.
    package func resendsSilently(status: Int, prior: Int?, retryAfter: @autoclosure () -> String?) -> Bool {
        guard self == .android, status == 408 || status == 503 else { return false }
        switch status {
        case 408: return prior != 408 && Self.okHttpRetryAfter(retryAfter(), default: 0) == 0
        case 503: return prior != 503 && Self.okHttpRetryAfter(retryAfter(), default: .max) == 0
        default: return false
        }
    }

    /// OkHttp's `retryAfter`: whole digits are the seconds, anything else is "very long".
    private static func okHttpRetryAfter(_ header: String?, default absent: Int) -> Int {
        guard let header else { return absent }
        guard !header.isEmpty, header.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return .max }
        return Int(header) ?? .max
    }

    /// Follow-ups (redirects, and OkHttp's re-sends) the enqueue call makes before failing.
    /// OkHttp's `MAX_FOLLOW_UPS` is 20; CFNetwork documents no limit, so iOS gets the same bound.
    package static let enqueueRedirectLimit = 20

    /// The user agent each SDK sends when the app sets none: Android's WebView user agent with
    /// its SDK suffix (`UserAgentManager`), in the body, the `User-Agent` header and the WebView;
    /// iOS's WKWebView user agent with the host app's bundle name and version (`IOSUtils`) in the
    /// body and the WebView (the API call's header is CFNetwork's; queuesim sends one string).
    /// The device model (Android) and the app name (iOS) say `queuesim`, so a server log can
    /// tell simulated visitors apart.
    package var defaultUserAgent: String {
        switch self {
        case .ios:
            "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko)"
                + " Mobile/15E148;queuesim-1.0.1"
        case .android:
            "Mozilla/5.0 (Linux; Android 15; queuesim; wv) AppleWebKit/537.36 (KHTML, like Gecko)"
                + " Version/4.0 Chrome/130.0.6723.107 Mobile Safari/537.36 (sdk: com.queue_it.androidsdk@3.0.0)"
        }
    }
}
