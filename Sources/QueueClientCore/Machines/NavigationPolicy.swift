/// What the SDK's WebView does with a navigation.
package enum NavigationDecision: Sendable, Hashable {
    /// `queueit://close`: the view closes (`onWebViewClosed`).
    case closed
    /// `queueit://restartSession`: the view closes (`onSessionRestart`); the app re-runs.
    case restartSession
    /// Another non-web scheme, or a web page on another host: handed to the OS/browser.
    case external
    /// `/what-is-this.html` on any host: cancelled silently.
    case blocked
    /// The target's host and path: passed, with the decoded `queueittoken` query value.
    case passed(queueitToken: String?)
    /// A page of the waiting room (`onQueueUrlChanged`); the WebView loads it.
    case queueUrlChanged(SimpleURL)
}

/// The WebView's navigation rules, in the order of Android 2.2.3+ (target before queue host).
///
/// Decisions: hosts compare case-insensitively (DNS names are; Android compares the target host
/// that way and WebViews lowercase hosts), but for Android's queue host (`decide`); the target
/// path compares exactly (a trailing slash matters, the query does not, and a target written
/// without a path has the empty one, which no navigation has); `queueit://` links match on their host
/// (Android accepts any path or query after it). The token is percent-decoded (Android); iOS
/// takes the raw text, which only differs for tokens with escapes, which real tokens never have.
package struct NavigationPolicy: Sendable, Hashable {
    package var queueHost: String
    /// Behind a proxy with a prefix, queue pages must live under `/{prefix}/`.
    package var queuePathPrefix: String?
    package var targetHost: String
    package var targetPath: String

    package init(queueHost: String, queuePathPrefix: String?, targetHost: String, targetPath: String) {
        self.queueHost = queueHost
        self.queuePathPrefix = queuePathPrefix
        self.targetHost = targetHost
        self.targetPath = targetPath
    }

    /// Nil when either URL cannot be parsed (the SDK reports "Failed to load the queue").
    package init?(queueUrl: String, targetUrl: String, queuePathPrefix: String?) {
        guard let queue = SimpleURL(queueUrl), let target = SimpleURL(targetUrl), !queue.host.isEmpty,
            !target.host.isEmpty
        else { return nil }
        self.init(
            queueHost: queue.host, queuePathPrefix: queuePathPrefix, targetHost: target.host,
            targetPath: SimpleURL.hasEmptyPath(targetUrl) ? "" : target.path)
    }

    /// `caseSensitive` (Android's `UriOverrider`, which compares with `equals`): the WebView
    /// lowercases a web URL's host (and every scheme) but keeps a `queueit://` link's host as
    /// written, so `queueit://Close` is no close link, and the queue URL's host as the API
    /// wrote it matches no navigation when it has capitals. Otherwise hosts compare
    /// case-insensitively.
    package func decide(_ url: SimpleURL, caseSensitive: Bool = false) -> NavigationDecision {
        if url.scheme != "http" && url.scheme != "https" {
            guard url.scheme == "queueit" else { return .external }
            func isLink(_ host: String) -> Bool {
                caseSensitive ? url.host == host : url.host.caseInsensitiveEquals(host)
            }
            if isLink("close") { return .closed }
            if isLink("restartSession") { return .restartSession }
            return .external
        }
        if url.path.hasPrefix("/what-is-this.html") { return .blocked }
        if url.host.caseInsensitiveEquals(targetHost) && url.path == targetPath {
            return .passed(queueitToken: url.queryValue("queueittoken"))
        }
        if url.host.caseInsensitiveEquals(queueHost),
            !caseSensitive || !queueHost.utf8.contains(where: { (0x41...0x5A).contains($0) })
        {
            guard let queuePathPrefix else { return .queueUrlChanged(url) }
            return url.path.hasPrefix("/\(queuePathPrefix)/") ? .queueUrlChanged(url) : .external
        }
        return .external
    }

    /// A URL string that does not parse as an absolute URL is external (handed to the OS).
    package func decide(_ urlString: String) -> NavigationDecision {
        guard let url = SimpleURL(urlString) else { return .external }
        return decide(url)
    }
}

extension String {
    /// `lowercased() == other.lowercased()`, over bytes when both are ASCII (host names are):
    /// the two lowercased copies were two allocations for every navigation of every visitor.
    func caseInsensitiveEquals(_ other: String) -> Bool {
        guard utf8.count == other.utf8.count else { return false }
        var (this, that) = (self, other)
        let ascii: Bool? = this.withUTF8 { lhs in
            that.withUTF8 { rhs in
                var equal = true
                for index in 0..<lhs.count {
                    let (left, right) = (lhs[index], rhs[index])
                    guard left < 0x80 && right < 0x80 else { return nil }
                    if left != right && Self.asciiLowercased(left) != Self.asciiLowercased(right) { equal = false }
                }
                return equal
            }
        }
        return ascii ?? (lowercased() == other.lowercased())
    }

    private static func asciiLowercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }
}
