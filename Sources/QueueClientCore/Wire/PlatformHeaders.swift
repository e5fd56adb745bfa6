import HTTPTypes

/// The header fields each phone's stacks send, per call, in their order (docs/client-core.md,
/// "Request bytes"). Built once per group: every visitor of it sends the same ones.
///
/// The SDKs set few headers themselves; the rest are their HTTP stacks'. iOS's enqueue call is
/// an `NSURLConnection` (`QueueITApiClient_NSURLConnection.m` adds `Accept` and `Content-Type`;
/// CFNetwork adds the rest), Android's an OkHttp 4.9.2 call (`QueueITApiClient.java` sets
/// `User-Agent` and the body's media type; `BridgeInterceptor` adds the rest). The queue pages
/// are WebView page loads: WKWebView's (`QueueITWKViewController.m`), Chromium WebView's
/// (`QueueActivityBase.java`).
package enum PlatformHeaders {
    /// The simulated Android app's package name: Android's WebView sends it as
    /// `X-Requested-With` on page loads.
    package static let androidAppPackage = "com.queuesim.app"
    /// CFNetwork's own user agent on the iOS enqueue call, `{CFBundleName}/{CFBundleVersion}
    /// CFNetwork/{version} Darwin/{version}`, for the app `queuesim` (build 1) on iOS 18.1 —
    /// the iOS of the WKWebView user agent (`ClientPlatform.defaultUserAgent`).
    package static let cfNetworkUserAgent = "queuesim/1 CFNetwork/1568.200.51 Darwin/24.1.0"
    /// The phone's language list (`Accept-Language`), English (US) as on a new phone.
    package static let acceptLanguage = "en-US,en;q=0.9"

    /// The enqueue call's fields and where `Host` and `Content-Length` go among them.
    ///
    /// iOS (CFNetwork): `Host` first, then the SDK's `Content-Type` and CFNetwork's
    /// `Connection`, the SDK's `Accept`, CFNetwork's `User-Agent`, `Content-Length`,
    /// `Accept-Language` and `Accept-Encoding` — CFNetwork's order in proxy captures (it is
    /// closed source). `userAgent` is the body's, not the header's, here. CFNetwork offers
    /// `gzip, deflate, br`; queuesim offers `gzip, deflate` only: the enqueue answer is the one
    /// body the engine must read, and it has no Brotli decoder, so a CDN answering `br` would
    /// turn every iOS enqueue into a failure the phone would not see.
    /// Android (OkHttp): the SDK's `User-Agent`, then `BridgeInterceptor`'s `Content-Type` (the
    /// SDK's media type), `Content-Length`, `Host`, `Connection: Keep-Alive` and
    /// `Accept-Encoding: gzip`; no `Accept`.
    package static func enqueue(platform: ClientPlatform, userAgent: String) -> (fields: HTTPFields, layout: HeadLayout)
    {
        var fields = HTTPFields()
        switch platform {
        case .ios:
            fields[.contentType] = "application/json"
            fields[.connection] = "keep-alive"
            fields[.accept] = "application/json"
            fields[.userAgent] = cfNetworkUserAgent
            fields[.acceptLanguage] = acceptLanguage
            fields[.acceptEncoding] = "gzip, deflate"
            return (fields, HeadLayout(hostBefore: nil, contentLengthBefore: .acceptLanguage))
        case .android:
            fields[.userAgent] = userAgent
            fields[.contentType] = "application/json; charset=utf-8"
            fields[.connection] = "Keep-Alive"
            fields[.acceptEncoding] = "gzip"
            return (fields, HeadLayout(hostBefore: .connection, contentLengthBefore: .connection))
        }
    }

    /// OkHttp's own user agent (`okhttp.internal.userAgent`, 4.9.2): Android's protected-API
    /// calls send it unless the app sets its own.
    package static let okHttpUserAgent = "okhttp/4.9.2"

    /// The app's call to its protected API: the app's own HTTP stack, not the WebView
    /// (URLSession on iOS, OkHttp on Android), with the app's `x-queueit-ajaxpageurl`, the
    /// app's user agent when it sets one (`appUserAgent`; nil: the stack's own) and the
    /// visitor's `Cookie`. Returns the fields and where `Host` goes among them.
    ///
    /// iOS (URLSession over CFNetwork): `Host`, the app's header, then CFNetwork's `Connection`,
    /// `Accept: */*`, `User-Agent` (CFNetwork's own unless the app sets one), `Accept-Language`
    /// and `Accept-Encoding`, the order of the enqueue captures, and `Cookie` from the cookie
    /// storage. CFNetwork offers `gzip, deflate, br`; queuesim offers `gzip, deflate`, the
    /// codings it inflates (zlib, no Brotli decoder), so an origin never answers in a coding
    /// the rehearsal cannot read.
    /// Android (OkHttp 4.9.2): the app's headers in the order it set them (its `User-Agent`
    /// first, when it sets one), then `BridgeInterceptor`'s: `Host`, `Connection: Keep-Alive`,
    /// `Accept-Encoding: gzip`, `Cookie` (the app's cookie jar), and `User-Agent:
    /// okhttp/4.9.2` when the app set none; no `Accept`.
    package static func protectedApi(
        platform: ClientPlatform, appUserAgent: String?, ajaxPageURL: String, cookie: String?
    ) -> (fields: HTTPFields, layout: HeadLayout) {
        var fields = HTTPFields()
        switch platform {
        case .ios:
            fields[ajaxPageURLField] = ajaxPageURL
            fields[.connection] = "keep-alive"
            fields[.accept] = "*/*"
            fields[.userAgent] = appUserAgent ?? cfNetworkUserAgent
            fields[.acceptLanguage] = acceptLanguage
            fields[.acceptEncoding] = "gzip, deflate"
            if let cookie { fields[.cookie] = cookie }
            return (fields, .hostFirst)
        case .android:
            if let appUserAgent { fields[.userAgent] = appUserAgent }
            fields[ajaxPageURLField] = ajaxPageURL
            fields[.connection] = "Keep-Alive"
            fields[.acceptEncoding] = "gzip"
            if let cookie { fields[.cookie] = cookie }
            if appUserAgent == nil { fields[.userAgent] = okHttpUserAgent }
            return (fields, HeadLayout(hostBefore: .connection, contentLengthBefore: nil))
        }
    }

    /// `x-queueit-ajaxpageurl`: the app's header on its protected-API calls (the API URL,
    /// URL-encoded), which KnownUser connectors read.
    package static let ajaxPageURLField = HTTPField.Name("x-queueit-ajaxpageurl")!

    /// A WebView page load's fields, `Host` first (the default layout); the navigator puts the
    /// visitor's `Cookie` at `cookieIndex(platform)`.
    ///
    /// iOS (WKWebView, Safari 18's navigation headers): `Accept`, `Sec-Fetch-Site`, [`Cookie`],
    /// `Sec-Fetch-Dest`, `Accept-Language`, `Sec-Fetch-Mode`, `User-Agent` (the WKWebView's own:
    /// the SDK adds its `;{app}-{version}` to the body only), `Accept-Encoding`, `Connection`.
    /// Android (Chromium WebView 130): `Connection`, the client hints, `Upgrade-Insecure-Requests`,
    /// `User-Agent`, `Accept`, `X-Requested-With: {app package}`, the `Sec-Fetch-*` of a
    /// navigation the app started (`loadUrl`: no `Sec-Fetch-User`), `Accept-Encoding`,
    /// `Accept-Language`, [`Cookie`]. Both as over https, the scheme of every Queue-it URL.
    package static func pageLoad(platform: ClientPlatform, userAgent: String) -> HTTPFields {
        var fields = HTTPFields()
        switch platform {
        case .ios:
            fields[.accept] = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
            fields[secFetchSite] = "none"
            fields[secFetchDest] = "document"
            fields[.acceptLanguage] = acceptLanguage
            fields[secFetchMode] = "navigate"
            fields[.userAgent] = webKitUserAgent(userAgent)
            fields[.acceptEncoding] = "gzip, deflate, br"
            fields[.connection] = "keep-alive"
        case .android:
            fields[.connection] = "keep-alive"
            fields[secCHUA] = #""Chromium";v="130", "Android WebView";v="130", "Not?A_Brand";v="99""#
            fields[secCHUAMobile] = "?1"
            fields[secCHUAPlatform] = #""Android""#
            fields[upgradeInsecureRequests] = "1"
            fields[.userAgent] = userAgent
            fields[.accept] =
                "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,"
                + "application/signed-exchange;v=b3;q=0.7"
            fields[xRequestedWith] = androidAppPackage
            fields[secFetchSite] = "none"
            fields[secFetchMode] = "navigate"
            fields[secFetchDest] = "document"
            fields[.acceptEncoding] = "gzip, deflate, br, zstd"
            fields[.acceptLanguage] = acceptLanguage
        }
        return fields
    }

    /// Where the page load's `Cookie` goes: after `Sec-Fetch-Site` in WebKit's order, last in
    /// Chromium's.
    package static func cookieIndex(_ platform: ClientPlatform) -> Int? {
        platform == .ios ? 2 : nil
    }

    /// The WKWebView's own user agent: iOS's body `userAgent` is it plus `;{app}-{version}`
    /// (`IOSUtils.getUserAgent` and `getLibraryVersion`), which the WebView itself does not send.
    static func webKitUserAgent(_ bodyUserAgent: String) -> String {
        // The suffix is the text after the last `;`, outside the parentheses of the platform part.
        guard let semicolon = bodyUserAgent.lastIndex(of: ";"),
            bodyUserAgent[semicolon...].firstIndex(of: ")") == nil
        else { return bodyUserAgent }
        return String(bodyUserAgent[..<semicolon])
    }

    static let secFetchSite = HTTPField.Name("Sec-Fetch-Site")!
    static let secFetchMode = HTTPField.Name("Sec-Fetch-Mode")!
    static let secFetchDest = HTTPField.Name("Sec-Fetch-Dest")!
    static let secCHUA = HTTPField.Name("sec-ch-ua")!
    static let secCHUAMobile = HTTPField.Name("sec-ch-ua-mobile")!
    static let secCHUAPlatform = HTTPField.Name("sec-ch-ua-platform")!
    static let upgradeInsecureRequests = HTTPField.Name("Upgrade-Insecure-Requests")!
    static let xRequestedWith = HTTPField.Name("X-Requested-With")!
}

/// A group's WebView page-load fields (`PlatformHeaders.pageLoad`), built once and shared by
/// every page load of its visitors; the live engine encodes them once per group.
package final class PageFieldsTemplate: Sendable {
    package let fields: HTTPFields
    /// Where the visitor's `Cookie` goes among them; nil: last.
    package let cookieIndex: Int?

    init(platform: ClientPlatform, userAgent: String) {
        fields = PlatformHeaders.pageLoad(platform: platform, userAgent: userAgent)
        cookieIndex = PlatformHeaders.cookieIndex(platform)
    }
}
