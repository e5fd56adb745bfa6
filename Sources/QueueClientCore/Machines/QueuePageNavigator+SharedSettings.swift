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
        /// query differs, so those two strings are shared rather than held once per visitor.
        private let lastQueueURL = Mutex<SimpleURL?>(nil)
        /// The last policy and URL base handed out, handed to the next visitor when equal.
        private let lastPolicy = Mutex<Boxed<NavigationPolicy>?>(nil)
        private let lastBase = Mutex<PackedURL.Base?>(nil)

        init(_ settings: Settings) {
            self.settings = settings
            pageFields = PageFieldsTemplate(platform: settings.platform, userAgent: settings.userAgent)
        }

        /// `SimpleURL(text)`, sharing the host and path strings of the last queue URL parsed.
        func queueURL(_ text: String) -> SimpleURL? {
            let known = lastQueueURL.withLock { $0 }
            guard let url = SimpleURL(text, sharingStringsWith: known) else { return nil }
            if known?.host != url.host || known?.path != url.path { lastQueueURL.withLock { $0 = url } }
            return url
        }

        /// `policy` in a box, the last one handed out when equal.
        func sharing(_ policy: NavigationPolicy) -> Boxed<NavigationPolicy> {
            if let known = lastPolicy.withLock({ $0 }), known.value == policy { return known }
            let box = Boxed(policy)
            lastPolicy.withLock { $0 = box }
            return box
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
            if let cached = lastTarget.withLock({ $0 }), cached.text.utf8.elementsEqual(text.utf8) {
                return cached.url
            }
            guard let url = SimpleURL(text) else { return nil }
            lastTarget.withLock { $0 = (text, url) }
            return url
        }
    }
}
