import HTTPTypes

/// A request as the state machines emit it: a swift-http-types head and an optional body.
///
/// The head carries the real waiting-room scheme and authority; a transport may connect
/// elsewhere (see `AsyncHTTPTransport`'s connect-to override) but keeps the `Host` it names.
public struct OutgoingRequest: Sendable, Equatable {
    public var head: HTTPRequest {
        didSet { sharedHead = nil }
    }
    public var body: [UInt8]?
    /// Set when `head` is a group's prebuilt enqueue head, unchanged: a transport may keep the
    /// head's bytes by this object's identity instead of encoding the same head for every
    /// visitor (the live engine does). Not part of equality; cleared by any change to `head`.
    package private(set) var sharedHead: EnqueueHeaderTemplate?

    public init(head: HTTPRequest, body: [UInt8]? = nil) {
        self.head = head
        self.body = body
    }

    init(sharedHead template: EnqueueHeaderTemplate, body: [UInt8]) {
        head = template.head
        self.body = body
        sharedHead = template
    }

    public static func == (lhs: OutgoingRequest, rhs: OutgoingRequest) -> Bool {
        lhs.head == rhs.head && lhs.body == rhs.body
    }
}

/// A response as the state machines consume it.
public struct IncomingResponse: Sendable, Equatable {
    public var head: HTTPResponse
    public var body: [UInt8]

    public init(head: HTTPResponse, body: [UInt8] = []) {
        self.head = head
        self.body = body
    }

    public var status: HTTPResponse.Status { head.status }

    /// The only response header fields the state machines read: cookies, redirects, the poll
    /// delay and the protected API's queue redirect. Everything else they decide on status and
    /// body, so a transport may drop the other fields (the live engine's client does: building
    /// `HTTPFields` for a `Date` or `Server` nobody reads was a tenth of its parsing cost).
    package static let fieldsReadByMachines: [HTTPField.Name] = [
        .setCookie, .location, .retryAfter, queueRedirectField,
    ]

    /// `x-queueit-redirect`: where a protected API sends a visitor who must queue.
    package static let queueRedirectField = HTTPField.Name("x-queueit-redirect")!
}

/// Why a request produced no response. The SDK retries all of these during enqueue.
public enum TransportError: Error, Sendable, Equatable, CustomStringConvertible {
    case timedOut
    case connectionReset
    case connectFailed(String)
    case tls(String)
    case other(String)

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
