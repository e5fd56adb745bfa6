import HTTPTypes
import QueueClientCore

/// `/api/protected`: an API guarded the way a KnownUser V3 connector guards it, with inline
/// configuration (`cver=-1`, `man=unspecified`) and the default `AllowTParameter` redirect logic.
///
/// Order (reference §2 "Precedence", §1.5, §3.2): a valid session cookie wins (and is extended
/// when configured); else a `queueittoken` (query parameter, or the `x-queueittoken` header as
/// the Cloudflare worker accepts) is validated — valid: store the cookie and answer; invalid:
/// error redirect; else a queue redirect. An invalid cookie is cancelled on every redirect.
/// AJAX calls (non-blank `x-queueit-ajaxpageurl`) get the redirect as a 200 with
/// `x-queueit-redirect`; other calls get a 302.
struct ProtectedAPIConnector {
    /// Our connector's `ver`, in the shape of the vendor strings (`v3-java-3.7.0`).
    static let connectorVersion = "v3-queuesim-1"
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

    func handle(_ request: RoomRequest, at now: Instant) -> (HTTPResponse, [UInt8]) {
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
        let token = request.queryValue("queueittoken") ?? request.header("x-queueittoken")
        if let token, !token.isEmpty {
            switch validator.validate(token, nowUnixSeconds: nowUnix) {
            case .success(let parsed):
                let session = AcceptedSessionCookie(
                    eventId: eventId, queueId: parsed.queueId ?? "",
                    fixedValidityMinutes: parsed.cookieValidityMinutes,
                    redirectType: parsed.redirectType ?? "", issueTimeUnixSeconds: nowUnix)
                return apiAnswer(session, setting: session)
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

    private func redirect(to url: String, request: RoomRequest, cancelCookie: Bool) -> (HTTPResponse, [UInt8]) {
        var head: HTTPResponse
        if let ajaxPage = request.header("x-queueit-ajaxpageurl"), !ajaxPage.allSatisfy(\.isWhitespace) {
            head = HTTPResponse(status: .ok)
            head.headerFields[.queueItRedirect] = PercentEncoding.encodeComponent(url)
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

    /// `https://{room}[/{prefix}]/{path}?c=…&e=…&ver=…&cver=-1&man=unspecified[&cid][&l]{extra}&t=…`
    /// (reference §4.2/§4.3; `t` last, URL-encoded).
    private func redirectURL(path: String, request: RoomRequest, extra: String) -> String {
        var query = "c=\(PercentEncoding.encodeComponent(configuration.customerId))"
        query += "&e=\(PercentEncoding.encodeComponent(eventId))"
        query += "&ver=\(Self.connectorVersion)&cver=-1&man=unspecified"
        query += extra
        query += "&t=\(PercentEncoding.encodeComponent(targetURL(request)))"
        return "\(configuration.roomBaseURL)/\(path)?\(query)"
    }

    /// The AJAX page URL (decoded) when given, else the request's own URL without its token.
    private func targetURL(_ request: RoomRequest) -> String {
        if let ajaxPage = request.header("x-queueit-ajaxpageurl"), !ajaxPage.allSatisfy(\.isWhitespace) {
            return PercentEncoding.decode(ajaxPage) ?? ajaxPage
        }
        let path = "/" + request.pathSegments.joined(separator: "/")
        let kept = request.query.filter { $0.name.lowercased() != "queueittoken" }
            .map { "\(PercentEncoding.encodeComponent($0.name))=\(PercentEncoding.encodeComponent($0.value))" }
        let host = request.host ?? "localhost"
        return "https://\(host)\(path)" + (kept.isEmpty ? "" : "?" + kept.joined(separator: "&"))
    }
}
