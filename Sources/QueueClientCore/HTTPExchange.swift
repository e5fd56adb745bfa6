import HTTPTypes

/// A request as the state machines emit it: a swift-http-types head and an optional body.
///
/// The head carries the real waiting-room scheme and authority; a transport may connect
/// elsewhere (see `AsyncHTTPTransport`'s connect-to override) but keeps the `Host` it names.
public struct OutgoingRequest: Sendable, Equatable {
    /// Method, scheme, authority (the `Host` to send), path with query, and header fields,
    /// `Cookie` included: a transport sends them as they are.
    ///
    /// A WebView page load keeps its parts (the packed URL, the group's fields, the cookie)
    /// and makes the head when it is first read: on the virtual clock, the first load of every
    /// visitor's queue page is answered from the room's forecast and never sent, and making
    /// its head (the request target's text, four checked pseudo-header fields) was 2 % of a
    /// run. Reading `head` gives the same head either way.
    public var head: HTTPRequest {
        get {
            switch storage {
            case .head(let head): head
            case .pageLoad(let load): load.head
            case .sharedHead(let template): template.head
            }
        }
        set {
            // The layout stays the template's: only the head changes.
            if case .sharedHead(let template) = storage { ownLayout = template.layout }
            storage = .head(newValue)
            sharedHead = nil
            sharedPageFields = nil
        }
    }
    private var storage: Storage
    /// The enqueue POST's JSON bytes; nil for the GETs of queue pages and the protected API.
    public var body: [UInt8]?
    /// Set when `head` is a group's prebuilt enqueue head, unchanged: a transport may keep the
    /// head's bytes by this object's identity instead of encoding the same head for every
    /// visitor (the live engine does). Not part of equality; cleared by any change to `head`.
    package private(set) var sharedHead: EnqueueHeaderTemplate?
    /// Set when `head`'s fields are a group's WebView page-load fields, unchanged but for the
    /// visitor's `Cookie` at the template's place: a transport may keep those fields' bytes by
    /// this object's identity (the live engine does). Cleared by any change to `head`.
    package private(set) var sharedPageFields: PageFieldsTemplate?
    /// Where a transport that writes HTTP/1.1 itself puts the `Host` and `Content-Length` lines
    /// among `head`'s fields, as the platform's stack orders them (the live engine does; AHC
    /// and an app's transport frame requests their own way).
    package var layout: HeadLayout {
        get {
            if case .sharedHead(let template) = storage { return template.layout }
            return ownLayout ?? .hostFirst
        }
        set {
            if case .sharedHead(let template) = storage {
                // Another layout is another head: no longer the group's shared one.
                storage = .head(template.head)
                sharedHead = nil
            }
            ownLayout = newValue
        }
    }
    /// The layout of a request that is not a group's shared head; nil: `hostFirst`. Kept apart
    /// so a request with the shared head copies no layout (its field names' texts) of its own.
    private var ownLayout: HeadLayout?

    private enum Storage: Sendable {
        case head(HTTPRequest)
        case pageLoad(PageLoad)
        /// The group's prebuilt enqueue head, unchanged: a reference, where a copy of the head
        /// (its four pseudo-header fields' texts, its fields) was a retain and a release per
        /// text at every hand-over of the request (`bench/live-ceiling.sh`).
        case sharedHead(EnqueueHeaderTemplate)
    }

    /// A page load's parts: a GET of `url` with `template`'s fields and `cookie` (the
    /// visitor's) at the template's place.
    private struct PageLoad: Sendable {
        let url: PackedURL
        let template: PageFieldsTemplate
        let cookie: String?

        var head: HTTPRequest {
            var head = HTTPRequest(
                method: .get, scheme: url.base.scheme, authority: url.base.authority, path: url.pathAndQuery,
                headerFields: template.fields)
            if let cookie {
                let field = HTTPField(name: .cookie, value: cookie)
                if let index = template.cookieIndex {
                    head.headerFields.insert(field, at: index)
                } else {
                    head.headerFields.append(field)
                }
            }
            return head
        }
    }

    /// The engine makes its own requests; public so a custom transport can be tested alone.
    public init(head: HTTPRequest, body: [UInt8]? = nil) {
        storage = .head(head)
        self.body = body
    }

    /// A page load of `url` whose fields are `template`'s, with `cookie` (the visitor's) at its
    /// place. Its head is made when read.
    init(pageLoadOf url: PackedURL, template: PageFieldsTemplate, cookie: String?) {
        storage = .pageLoad(PageLoad(url: url, template: template, cookie: cookie))
        sharedPageFields = template
    }

    init(sharedHead template: EnqueueHeaderTemplate, body: [UInt8]) {
        storage = .sharedHead(template)
        self.body = body
        sharedHead = template
    }

    /// Equal when head, body and layout are: two requests that would send the same bytes are
    /// the same request, whether or not one carries a group's shared head.
    public static func == (lhs: OutgoingRequest, rhs: OutgoingRequest) -> Bool {
        lhs.head == rhs.head && lhs.body == rhs.body && lhs.layout == rhs.layout
    }
}

/// Where the transport's own `Host` and `Content-Length` lines go among a request's fields.
/// `Host` carries the request's authority (the waiting room's, even over connect-to) and
/// `Content-Length` the body's size (no line without a body), so neither is a field of the head.
package struct HeadLayout: Sendable, Hashable {
    /// The field `Host` is written before; nil: right after the request line.
    package var hostBefore: HTTPField.Name?
    /// The field `Content-Length` is written before (and before `Host` when that goes there
    /// too); nil: after the last field.
    package var contentLengthBefore: HTTPField.Name?

    /// `Host` first, `Content-Length` last: the embedded room's own requests, the protected API,
    /// the WebViews (which send no body).
    package static let hostFirst = HeadLayout(hostBefore: nil, contentLengthBefore: nil)
}

/// A response as the state machines consume it.
public struct IncomingResponse: Sendable, Equatable {
    /// Status and header fields. The engine reads only `Set-Cookie`, `Location`,
    /// `Retry-After` and `x-queueit-redirect` (and `Content-Type` when there), so a transport
    /// may leave the others out.
    public var head: HTTPResponse
    /// The whole body, already collected (enqueue answers and queue pages are small); empty
    /// when the answer had none.
    public var body: [UInt8]

    /// What a transport returns: the answer as it came, redirects included (never followed).
    public init(head: HTTPResponse, body: [UInt8] = []) {
        self.head = head
        self.body = body
    }

    /// `head.status`: what the machines decide on first (2xx, 3xx with `Location`, 4xx, 5xx).
    public var status: HTTPResponse.Status { head.status }

    /// The only response header fields the state machines read: cookies, redirects, the poll
    /// delay and the protected API's queue redirect. (A queue page's `Content-Type` is read
    /// when a transport keeps it; without it the body tells an HTML page.) Everything else
    /// they decide on status and
    /// body, so a transport may drop the other fields (the live engine's client does: building
    /// `HTTPFields` for a `Date` or `Server` nobody reads was a tenth of its parsing cost).
    package static let fieldsReadByMachines: [HTTPField.Name] = [
        .setCookie, .location, .retryAfter, queueRedirectField,
    ]

    /// `x-queueit-redirect`: where a protected API sends a visitor who must queue.
    package static let queueRedirectField = HTTPField.Name("x-queueit-redirect")!
}

/// Why a request produced no response. The SDK retries all of these during enqueue.
///
/// On a queue page `.tls` ends the visit with `onSSLError` (the SDK's WebView SSL error); the
/// others are a failed page load, which the platform's WebView handles (`ClientPlatform`). Only
/// a refused certificate is `.tls`: a TLS connection closed without `close_notify` is
/// `.connectionReset`, and a handshake that fails for another reason `.connectFailed`, as a
/// phone's WebView reports them (`onReceivedError`, not `onReceivedSslError`). The associated
/// texts are in words, for logs and reports: they never carry a token.
public enum TransportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No (whole) answer within the request's timeout, or no connection within the connect
    /// timeout.
    case timedOut
    /// The server closed or reset the connection before the answer was complete.
    case connectionReset
    /// No connection could be opened (refused, unreachable, name not resolved); the reason.
    case connectFailed(String)
    /// The server's certificate was refused (untrusted, expired, not naming the host); the
    /// reason.
    case tls(String)
    /// Anything else that kept the answer from arriving (a body over the size limit, say).
    case other(String)

    /// One line for logs and `visitors.csv`: what happened, in words.
    public var description: String {
        switch self {
        case .timedOut: "request timed out"
        case .connectionReset: "connection reset by peer"
        case .connectFailed(let reason): "could not connect: \(reason)"
        case .tls(let reason): "TLS error: \(reason)"
        case .other(let reason): reason
        }
    }
}

extension HTTPFields {
    /// What `self[name]` reads, without joining when the field appears once (every response
    /// the machines read twice per visitor: `Location`, `Retry-After`). Repeated fields still
    /// come back joined, exactly as the subscript joins them.
    func value(of name: HTTPField.Name) -> String? {
        var found: String?
        for field in self where field.name == name {
            guard found == nil else { return self[name] }
            found = field.value
        }
        return found
    }
}
