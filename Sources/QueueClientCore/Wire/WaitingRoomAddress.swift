/// Where a waiting room's mobile enqueue API lives: the SDK's `customerId`,
/// `waitingRoomOrAliasId`, and the optional Behind Proxy / Bring Your Own CDN settings.
///
/// Decisions (see docs/client-core.md):
/// - `waitingRoomDomain` is used when it is non-empty after trimming spaces; it replaces the
///   whole host (`{customerId}.queue-it.net`), the scheme stays `https`.
/// - `queuePathPrefix` counts only with a domain. It is trimmed of every leading and trailing
///   `/` and space (iOS); an empty result means no prefix. iOS checks the *raw* prefix for
///   emptiness and so builds `//api/...` for a prefix of `/`; we do not copy that quirk.
/// - Path segments are percent-encoded (Android) so an id with a space still gives a valid URL.
package struct WaitingRoomAddress: Sendable, Hashable {
    package let customerId: String
    package let waitingRoomId: String
    /// The non-empty proxy domain, or nil for `{customerId}.queue-it.net`.
    package let waitingRoomDomain: String?
    /// The sanitized prefix (no slashes at either end), present only with a domain.
    package let queuePathPrefix: String?
    /// The authority requests go to: the proxy domain, or `{customerId}.queue-it.net`.
    package let host: String
    /// `/{prefix}/api/mobileapp/queue/{c}/{e}/enqueue` (prefix only behind a proxy).
    package let enqueuePath: String

    package init(
        customerId: String, waitingRoomId: String, waitingRoomDomain: String? = nil, queuePathPrefix: String? = nil
    ) {
        self.customerId = customerId
        self.waitingRoomId = waitingRoomId
        let domain = waitingRoomDomain?.trimming([" "])
        if let domain, !domain.isEmpty {
            self.waitingRoomDomain = domain
            let prefix = queuePathPrefix.map { $0.trimming([" ", "/"]) } ?? ""
            self.queuePathPrefix = prefix.isEmpty ? nil : prefix
        } else {
            self.waitingRoomDomain = nil
            self.queuePathPrefix = nil
        }
        // Derived once here, not on every enqueue (every visitor of a virtual run enqueues).
        // An immutable value: equality over every stored field is equality of the settings.
        host = self.waitingRoomDomain ?? "\(customerId).queue-it.net"
        let api =
            "/api/mobileapp/queue/\(PercentEncoding.pathSegment(customerId))/\(PercentEncoding.pathSegment(waitingRoomId))/enqueue"
        enqueuePath = self.queuePathPrefix.map { "/\($0)\(api)" } ?? api
    }

    /// The full enqueue URL, as the SDK would call it.
    package var enqueueURL: String { "https://\(host)\(enqueuePath)" }
}

extension String {
    /// Removes every leading and trailing character that is in `set`.
    func trimming(_ set: Set<Character>) -> String {
        guard let first = firstIndex(where: { !set.contains($0) }),
            let last = lastIndex(where: { !set.contains($0) })
        else { return "" }
        return String(self[first...last])
    }
}
