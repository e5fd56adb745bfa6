import HTTPTypes
@_spi(Wire) import QueueClientCore

/// `/api/protected`: an API guarded the way a KnownUser V3 connector guards it, with inline
/// configuration (`cver=-1`, `man=unspecified`) and the default `AllowTParameter` redirect logic.
///
/// It behaves as the KnownUser.V3.Python connector with its README's glue code (reference §2
/// "Precedence", §1.5, §3.2; docs/waiting-room.md has the table): a valid session cookie wins
/// (and is extended when configured); else the `queueittoken` query parameter (the only place
/// the connector reads it) is validated — valid: a 302 to the same URL without the token,
/// setting the cookie, AJAX or not (the glue's "remove queueittoken from url"); invalid: error
/// redirect; else a queue redirect. An invalid cookie is cancelled on every redirect. AJAX
/// calls (an `x-queueit-ajaxpageurl` header, even empty: Python checks `is not None`) get the
/// redirect as a 200 with `x-queueit-redirect`; other calls get a 302. Redirect URLs carry
/// `ver` then `kupver`, and are encoded with `quote(v, safe='~')` (`~` stays).
struct ProtectedAPIConnector {
    /// Our connector's `ver`, in the shape of the vendor strings (`v3-python-3.7.0`).
    static let connectorVersion = "v3-queuesim-1"
    /// The Python connector's `kupver` (its HTTP context provider's name).
    static let platformVersion = "queuesim"
    static let noCache = "no-cache, no-store, must-revalidate, max-age=0"

    let configuration: WaitingRoomConfiguration
    let validator: KnownUserTokenValidator

    init(configuration: WaitingRoomConfiguration) {
        self.configuration = configuration
        validator = KnownUserTokenValidator(
            secretKey: configuration.settings.secretKey, eventId: configuration.waitingRoomId)
    }

    private var eventId: String { configuration.waitingRoomId }
    private var secretKey: String { configuration.settings.secretKey }
    private var cookieName: String { AcceptedSessionCookie.name(eventId: eventId) }

    func handle(_ request: RoomRequest, at now: RunInstant) -> (HTTPResponse, [UInt8]) {
        let nowUnix = configuration.unixSeconds(at: now)
        let storedCookie = request.cookie(cookieName)
        if let storedCookie,
            case .valid(var session) = AcceptedSessionCookie.validate(
                encodedValue: storedCookie, eventId: eventId, secretKey: secretKey,
                defaultValidityMinutes: configuration.protectedAPI.cookieValidityMinutes, nowUnixSeconds: nowUnix)
        {
            var extended: AcceptedSessionCookie?
            if configuration.protectedAPI.extendCookieValidity, session.fixedValidityMinutes == nil {
                session.issueTimeUnixSeconds = nowUnix
                extended = session
            }
            return apiAnswer(session, setting: extended)
        }
        let token = request.queryValue("queueittoken")
        if let token, !token.isEmpty {
            switch validator.validate(token, nowUnixSeconds: nowUnix) {
            case .success(let parsed):
                let session = AcceptedSessionCookie(
                    eventId: eventId, queueId: parsed.queueId ?? "",
                    fixedValidityMinutes: parsed.cookieValidityMinutes,
                    redirectType: parsed.redirectType ?? "", issueTimeUnixSeconds: nowUnix)
                return tokenRemovedRedirect(request, setting: session)
            case .failure(let failure):
                let url = redirectURL(
                    path: "error/\(failure.rawValue)/", request: request,
                    extra: "&queueittoken=\(token)&ts=\(nowUnix)")
                return redirect(to: url, request: request, cancelCookie: storedCookie != nil)
            }
        }
        return redirect(
            to: redirectURL(path: "", request: request, extra: ""), request: request, cancelCookie: storedCookie != nil)
    }

    private func apiAnswer(_ session: AcceptedSessionCookie, setting cookie: AcceptedSessionCookie?) -> (
        HTTPResponse, [UInt8]
    ) {
        let body = RoomJSON.object([
            ("ok", .bool(true)),
            ("queueId", .string(session.queueId)),
            ("redirectType", .string(session.redirectType)),
        ])
        var head = WaitingRoomService.json(.ok, body)
        if let cookie {
            head.headerFields[.setCookie] =
                "\(cookieName)=\(cookie.encodedValue(secretKey: secretKey)); Max-Age=86400; Path=/"
        }
        return (head, body)
    }

    /// The README glue after a valid token: `302 Location: <the request URL without its token>`,
    /// with the new cookie, so the user-specific token is not shared.
    private func tokenRemovedRedirect(_ request: RoomRequest, setting cookie: AcceptedSessionCookie) -> (
        HTTPResponse, [UInt8]
    ) {
        var head = HTTPResponse(status: .found)
        head.headerFields[.location] = Self.removingToken(from: requestURL(request))
        head.headerFields[.setCookie] =
            "\(cookieName)=\(cookie.encodedValue(secretKey: secretKey)); Max-Age=86400; Path=/"
        return (head, [])
    }

    /// The README's `re.sub("([\\?&])(queueittoken=[^&]*)", '', url, flags=re.IGNORECASE)`: every
    /// `?queueittoken=…` or `&queueittoken=…` goes with its delimiter, quirks included (a token
    /// first among several parameters leaves `path&next=…`).
    static func removingToken(from url: String) -> String {
        let bytes = Array(url.utf8)
        let name = Array("queueittoken=".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "?") || byte == UInt8(ascii: "&"), index + 1 + name.count <= bytes.count,
                zip(bytes[(index + 1)...], name).allSatisfy({ ASCIIByte.lowercased($0) == $1 })
            {
                index += 1 + name.count
                while index < bytes.count, bytes[index] != UInt8(ascii: "&") { index += 1 }
                continue
            }
            out.append(byte)
            index += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The URL the request was made to, as the connector's `getOriginalRequestUrl` sees it: the
    /// scheme it came in on and its `Host` as sent, port included (Java's `getRequestURL`, the
    /// Python and PHP connectors' `Host`), so the redirect after a valid token returns to the
    /// same listener (a plain loopback room's `http://127.0.0.1:PORT`, not `https://127.0.0.1`).
    private func requestURL(_ request: RoomRequest) -> String {
        let authority = request.head.authority ?? request.head.headerFields[.hostHeader] ?? "localhost"
        return "\(request.head.scheme ?? "https")://\(authority)\(request.head.path ?? "/")"
    }

    private func redirect(to url: String, request: RoomRequest, cancelCookie: Bool) -> (HTTPResponse, [UInt8]) {
        var head: HTTPResponse
        if request.header("x-queueit-ajaxpageurl") != nil {
            head = HTTPResponse(status: .ok)
            head.headerFields[.queueItRedirect] = ConnectorEncoding.encodeComponent(url, keepingTilde: true)
            head.headerFields[.accessControlExposeHeaders] = "x-queueit-redirect"
        } else {
            head = HTTPResponse(status: .found)
            head.headerFields[.location] = url
        }
        head.headerFields[.cacheControl] = Self.noCache
        head.headerFields[.pragma] = "no-cache"
        head.headerFields[.expires] = "Fri, 01 Jan 1990 00:00:00 GMT"
        if cancelCookie { head.headerFields[.setCookie] = "\(cookieName)=; Max-Age=0; Path=/" }
        return (head, [])
    }

    /// `https://{room}[/{prefix}]/{path}?c=…&e=…&ver=…&kupver=…&cver=-1&man=unspecified{extra}[&t=…]`
    /// (reference §4.2/§4.3, the Python order; `t` last, URL-encoded, left out when empty).
    private func redirectURL(path: String, request: RoomRequest, extra: String) -> String {
        func encode(_ text: String) -> String { ConnectorEncoding.encodeComponent(text, keepingTilde: true) }
        var query = "c=\(encode(configuration.customerId))"
        query += "&e=\(encode(eventId))"
        query += "&ver=\(Self.connectorVersion)&kupver=\(Self.platformVersion)&cver=-1&man=unspecified"
        query += extra
        let target = targetURL(request)
        if !target.isEmpty { query += "&t=\(encode(target))" }
        return "\(configuration.roomBaseURL)/\(path)?\(query)"
    }

    /// The AJAX page URL (decoded) when the header is there, even empty; else the request's own
    /// URL without its token.
    private func targetURL(_ request: RoomRequest) -> String {
        if let ajaxPage = request.header("x-queueit-ajaxpageurl") {
            return ConnectorEncoding.decode(ajaxPage) ?? ajaxPage
        }
        return Self.removingToken(from: requestURL(request))
    }
}
