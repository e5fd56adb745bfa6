import Synchronization

extension QueuePageNavigator {
    /// Shared by every visitor of a group (built once per `VisitorConfiguration` group): a
    /// visitor in the queue carries one reference instead of the settings' 48 bytes.
    final class SharedSettings: Sendable {
        let settings: Settings
        /// The WebView's page load fields (`PlatformHeaders.pageLoad`), built (and validated)
        /// once for every page load of the group.
        let pageFields: PageFieldsTemplate
        /// The last target URL parsed for a visitor of the group. Every visitor of a room gets
        /// the same `EventTargetUrl`: parsed once, its host and path strings are shared by
        /// every waiting visitor instead of copied into each.
        private let lastTarget = Mutex<(text: String, url: SimpleURL)?>(nil)
        /// The last queue URL parsed: the next visitor's has the same host and path, only its
        /// query differs, so those two strings are shared rather than held once per visitor,
        /// and its text up to the query is compared rather than parsed.
        private let lastQueueURL = Mutex<SimpleURL.KnownPrefix?>(nil)
        /// The last policy and URL base handed out, handed to the next visitor when equal.
        /// Weak: a policy holds its settings, so a strong reference back would be a cycle.
        private let lastPolicy = Mutex<LastPolicy>(LastPolicy())
        /// The last absolute redirect resolved: every visitor's turn redirects to the room's
        /// target URL with its own token, so its text up to the query is compared, not parsed.
        private let lastRedirect = Mutex<SimpleURL.KnownPrefix?>(nil)
        private struct LastPolicy: Sendable { weak var shared: SharedPolicy? }
        private let lastBase = Mutex<PackedURL.Base?>(nil)

        init(_ settings: Settings) {
            self.settings = settings
            pageFields = PageFieldsTemplate(platform: settings.platform, userAgent: settings.userAgent)
        }

        /// `SimpleURL(text)`, sharing the host and path strings of the last queue URL parsed.
        func queueURL(_ text: String) -> SimpleURL? {
            let known = lastQueueURL.withLock { $0 }
            if let url = known?.parse(text) { return url }
            guard let url = SimpleURL(text, sharingStringsWith: known?.url) else { return nil }
            if let prefix = SimpleURL.KnownPrefix(url, text: text) { lastQueueURL.withLock { $0 = prefix } }
            return url
        }

        /// `SimpleURL.resolve(location, against: current)`, from the last redirect's prefix
        /// when the location has it.
        func redirectURL(_ location: String, against current: @autoclosure () -> SimpleURL) -> SimpleURL? {
            if let url = lastRedirect.withLock({ $0 })?.resolve(location) { return url }
            guard let url = SimpleURL.resolve(location, against: current()) else { return nil }
            if let prefix = SimpleURL.KnownPrefix(resolved: url, reference: location) {
                lastRedirect.withLock { $0 = prefix }
            }
            return url
        }

        /// `policy` with these settings, the last pair handed out when the policy is equal.
        func sharing(_ policy: NavigationPolicy) -> SharedPolicy {
            if let known = lastPolicy.withLock({ $0.shared }), known.policy == policy { return known }
            let shared = SharedPolicy(settings: self, policy: policy)
            lastPolicy.withLock { $0.shared = shared }
            return shared
        }

        /// `url` packed, its base the last one handed out when equal.
        func packing(_ url: SimpleURL) -> PackedURL {
            if let known = lastBase.withLock({ $0 }), known.matches(url) {
                return PackedURL(base: known, query: url.query)
            }
            let base = PackedURL.Base(url)
            lastBase.withLock { $0 = base }
            return PackedURL(base: base, query: url.query)
        }

        /// `SimpleURL(text)`, from the cache when it is the last target parsed.
        func targetURL(_ text: String) -> SimpleURL? {
            if let cached = lastTarget.withLock({ $0 }), ASCIIByte.sameBytes(cached.text, text) {
                return cached.url
            }
            guard let url = SimpleURL(text) else { return nil }
            lastTarget.withLock { $0 = (text, url) }
            return url
        }
    }

    /// A room's policy and its group's settings: what a navigator shares with the other
    /// visitors of its room, behind one reference.
    final class SharedPolicy: Sendable {
        let settings: SharedSettings
        let policy: NavigationPolicy

        init(settings: SharedSettings, policy: NavigationPolicy) {
            self.settings = settings
            self.policy = policy
        }
    }
}
