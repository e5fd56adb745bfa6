/// A queue page URL as a navigator keeps it: what every visitor of a room has in common
/// (scheme, host, port, path) in one shared object, and the visitor's own query packed
/// (`PackedText`: `q=` and a queue id take no heap block). 33 bytes instead of `SimpleURL`'s
/// 80 and an 80-byte query string; `url` gives the same `SimpleURL` back.
struct PackedURL: Sendable {
    final class Base: Sendable {
        let scheme: String
        let host: String
        let port: Int?
        let path: String
        /// The request's `:authority`, written once.
        let authority: String

        init(_ url: SimpleURL) {
            scheme = url.scheme
            host = url.host
            port = url.port
            path = url.path
            authority = url.authority
        }

        func matches(_ url: SimpleURL) -> Bool {
            url.scheme == scheme && url.host == host && url.port == port && url.path == path
        }
    }

    let base: Base
    private let query: PackedText?

    init(base: Base, query: String?) {
        self.base = base
        self.query = query.map(PackedText.init)
    }

    var url: SimpleURL {
        SimpleURL(unlowered: base.scheme, host: base.host, port: base.port, path: base.path, query: query?.string)
    }

    /// `url.queryValue("q")`, without making the URL when the query is `q=` and a packed id (a
    /// queue page's usual query: an id has nothing to percent-decode).
    var queueIdQueryValue: String? {
        query?.packedId(after: "q=") ?? url.queryValue("q")
    }

    /// `queueIdQueryValue` as the room's poll forecast takes it: the UUID's digits when the
    /// query packs one after `q=`, the text otherwise.
    var queueIdQueryReference: PageQueueId? {
        if let digits = query?.uuidDigits(after: "q=") { return .uuid(high: digits.high, low: digits.low) }
        return queueIdQueryValue.map(PageQueueId.text)
    }

    /// Path plus `?query`, as an HTTP request target.
    var pathAndQuery: String {
        guard let query else { return base.path }
        // Written into one string (every page load makes one): the packed query is not made
        // into a string of its own first.
        let pathCount = base.path.utf8.count
        let count = pathCount + 1 + query.utf8Count
        return String(unsafeUninitializedCapacity: count) { buffer in
            _ = UnsafeMutableBufferPointer(rebasing: buffer[0..<pathCount]).initialize(fromContentsOf: base.path.utf8)
            buffer[pathCount] = UInt8(ascii: "?")
            query.write(into: UnsafeMutableBufferPointer(rebasing: buffer[(pathCount + 1)...]))
            return count
        }
    }
}

/// The queue id of a visitor's queue page as a driver's poll shortcut hands it to the room: a
/// UUID's 32 hex digits as two words (the first 16 in `high`; the digits' case is not kept,
/// and the room reads ids case-insensitively), or the id's text when it is not a packed UUID.
package enum PageQueueId: Sendable, Equatable {
    case uuid(high: UInt64, low: UInt64)
    case text(String)
}
