import Foundation
import HTTPTypes
import NIOHTTP1
import QueueClientCore
import Testing

@testable import QueueSim

/// `/api/protected` behaves as the KnownUser.V3.Python connector with its README glue would,
/// for AJAX and plain calls.
@Suite struct WaitingRoomProtectedAPITests {
    static let ajaxPage = HTTPField.Name("x-queueit-ajaxpageurl")!
    static let redirectHeader = HTTPField.Name("x-queueit-redirect")!
    static let cookieName = "QueueITAccepted-SDFrts345E-V3_spring-launch"

    private func apiRequest(query: String = "", cookie: String? = nil, ajax: Bool = true) -> HTTPRequest {
        var request = HTTPRequest(
            method: .get, scheme: "https", authority: "api.acme.example", path: "/api/protected\(query)")
        if ajax { request.headerFields[Self.ajaxPage] = "https%3A%2F%2Facme.example%2Flaunch" }
        if let cookie { request.headerFields[.cookie] = "other=1; \(Self.cookieName)=\(cookie)" }
        return request
    }

    /// A token from the room itself: enqueue, then the queue page's redirect at the turn.
    private func roomToken(
        _ service: WaitingRoomService, at seconds: Double, enqueue: HTTPRequest = RoomFixture.enqueueRequest()
    ) throws -> String {
        let enqueued = try #require(service.handle(enqueue, body: [], at: RoomFixture.at(seconds)).answer)
        let body = try #require(try JSONSerialization.jsonObject(with: Data(enqueued.body.utf8)) as? [String: Any])
        let queueURL = try #require(body["QueueUrl"] as? String)
        let turn = try #require(service.handle(RoomFixture.get(queueURL), body: [], at: RoomFixture.at(seconds)).answer)
        let location = try #require(turn.head.headerFields[.location])
        return String(try #require(location.split(separator: "=", maxSplits: 1).last))
    }

    private func cookieValue(_ head: HTTPResponse) -> String? {
        guard let setCookie = head.headerFields[.setCookie], setCookie.hasPrefix("\(Self.cookieName)=") else {
            return nil
        }
        return String(setCookie.dropFirst(Self.cookieName.count + 1).prefix(while: { $0 != ";" }))
    }

    @Test func headerThenTokenThenCookieThenPass() throws {
        let service = WaitingRoomService(configuration: RoomFixture.configuration())
        // 1. No cookie, no token: 200 with the encoded queue URL in x-queueit-redirect.
        let queued = try #require(service.handle(apiRequest(), body: [], at: RoomFixture.at(1)).answer)
        #expect(queued.head.status == .ok)
        let encoded = try #require(queued.head.headerFields[Self.redirectHeader])
        #expect(!encoded.contains("&") && !encoded.contains(":"))
        #expect(
            encoded.removingPercentEncoding
                == "https://acme.queue-it.net/?c=acme&e=spring-launch&ver=v3-queuesim-1&kupver=queuesim&cver=-1&man=unspecified&t=https%3A%2F%2Facme.example%2Flaunch"
        )
        #expect(queued.head.headerFields[.accessControlExposeHeaders] == "x-queueit-redirect")
        #expect(queued.head.headerFields[.cacheControl] == "no-cache, no-store, must-revalidate, max-age=0")
        #expect(queued.head.headerFields[HTTPField.Name("Pragma")!] == "no-cache")
        #expect(queued.head.headerFields[.expires] == "Fri, 01 Jan 1990 00:00:00 GMT")
        #expect(queued.head.headerFields[.setCookie] == nil)

        // 2. With the room's token: a 302 to the same URL without the token, setting the session
        //    cookie, for an AJAX call too (the connector's glue; the token is not to be shared).
        let token = try roomToken(service, at: 2)
        let admitted = try #require(
            service.handle(apiRequest(query: "?queueittoken=\(token)&page=2"), body: [], at: RoomFixture.at(3))
                .answer)
        #expect(admitted.head.status == .found)
        // Python's `re.sub("([\\?&])(queueittoken=[^&]*)", '', …)`, quirk included.
        #expect(admitted.head.headerFields[.location] == "https://api.acme.example/api/protected&page=2")
        #expect(admitted.head.headerFields[Self.redirectHeader] == nil)
        #expect(admitted.body.isEmpty)
        let cookie = try #require(cookieValue(admitted.head))
        let epoch = WaitingRoomConfiguration.virtualEpochUnixSeconds
        let decoded = try #require(cookie.removingPercentEncoding)
        #expect(decoded.hasPrefix("EventId=spring-launch&QueueId="))
        #expect(decoded.contains("&RedirectType=queue&IssueTime=\(epoch + 3)&Hash="))
        #expect(admitted.head.headerFields[.setCookie]!.hasSuffix("; Max-Age=86400; Path=/"))

        // 3. With the cookie: answered, and the cookie extended (fresh IssueTime).
        let again = try #require(service.handle(apiRequest(cookie: cookie), body: [], at: RoomFixture.at(300)).answer)
        #expect(again.head.status == .ok && again.head.headerFields[Self.redirectHeader] == nil)
        #expect(try #require(cookieValue(again.head)).removingPercentEncoding!.contains("&IssueTime=\(epoch + 300)&"))

        // 4. The old cookie has expired 10 minutes after its IssueTime: back to the queue, cookie cancelled.
        let expired = try #require(service.handle(apiRequest(cookie: cookie), body: [], at: RoomFixture.at(604)).answer)
        #expect(expired.head.headerFields[Self.redirectHeader] != nil)
        #expect(expired.head.headerFields[.setCookie] == "\(Self.cookieName)=; Max-Age=0; Path=/")
    }

    @Test func invalidTokenGoesToTheErrorRedirect() throws {
        let service = WaitingRoomService(configuration: RoomFixture.configuration())
        let token = try roomToken(service, at: 0)
        let tampered = token.replacingOccurrences(of: "rt_queue", with: "rt_safetynet")
        let hash = try #require(
            service.handle(apiRequest(query: "?queueittoken=\(tampered)"), body: [], at: RoomFixture.at(1)).answer)
        let url = try #require(hash.head.headerFields[Self.redirectHeader]?.removingPercentEncoding)
        let epoch = WaitingRoomConfiguration.virtualEpochUnixSeconds
        #expect(
            url.hasPrefix(
                "https://acme.queue-it.net/error/hash/?c=acme&e=spring-launch&ver=v3-queuesim-1&kupver=queuesim&cver=-1&man=unspecified&queueittoken="
            ))
        #expect(url.hasSuffix("&ts=\(epoch + 1)&t=https%3A%2F%2Facme.example%2Flaunch"))
        // Past its expiry (validity 180 s) the same token is refused with `timestamp`.
        let late = try #require(
            service.handle(apiRequest(query: "?queueittoken=\(token)"), body: [], at: RoomFixture.at(181)).answer)
        #expect(
            late.head.headerFields[Self.redirectHeader]?.removingPercentEncoding?.contains("/error/timestamp/?") == true
        )
    }

    @Test func plainCallsGetA302AndTheTokenIsReadFromTheQueryOnly() throws {
        let service = WaitingRoomService(
            configuration: RoomFixture.configuration(domain: "q.acme.example", prefix: "wr"))
        let plain = try #require(
            service.handle(apiRequest(query: "?page=2", ajax: false), body: [], at: .origin).answer)
        #expect(plain.head.status == .found)
        #expect(
            plain.head.headerFields[.location]
                == "https://q.acme.example/wr/?c=acme&e=spring-launch&ver=v3-queuesim-1&kupver=queuesim&cver=-1&man=unspecified&t=https%3A%2F%2Fapi.acme.example%2Fapi%2Fprotected%3Fpage%3D2"
        )
        let token = try roomToken(
            service, at: 0,
            enqueue: RoomFixture.enqueueRequest(
                host: "q.acme.example", path: "/wr/api/mobileapp/queue/acme/spring-launch/enqueue"))
        // The connector never reads an `x-queueittoken` header: still a queue redirect.
        var viaHeader = apiRequest()
        viaHeader.headerFields[HTTPField.Name("x-queueittoken")!] = token
        let ignored = try #require(service.handle(viaHeader, body: [], at: .origin).answer)
        #expect(cookieValue(ignored.head) == nil && ignored.head.headerFields[Self.redirectHeader] != nil)
        let admitted = try #require(
            service.handle(apiRequest(query: "?queueittoken=\(token)", ajax: false), body: [], at: .origin).answer)
        #expect(admitted.head.status == .found)
        #expect(admitted.head.headerFields[.location] == "https://api.acme.example/api/protected")
        #expect(cookieValue(admitted.head) != nil)
    }

    @Test func anEmptyAjaxPageHeaderIsAnAjaxCallWithNoTarget() throws {
        let service = WaitingRoomService(configuration: RoomFixture.configuration())
        var request = apiRequest(ajax: false)
        request.headerFields[Self.ajaxPage] = ""
        let answer = try #require(service.handle(request, body: [], at: .origin).answer)
        // Python's `getHeader(...) is not None`: present counts, so the redirect comes as a header,
        // and an empty target leaves `t` out.
        #expect(answer.head.status == .ok)
        let url = try #require(answer.head.headerFields[Self.redirectHeader]?.removingPercentEncoding)
        #expect(
            url
                == "https://acme.queue-it.net/?c=acme&e=spring-launch&ver=v3-queuesim-1&kupver=queuesim&cver=-1&man=unspecified"
        )
    }

    @Test func redirectURLsKeepTheTildeAsPythonsQuoteDoes() throws {
        let service = WaitingRoomService(configuration: RoomFixture.configuration())
        var request = apiRequest(ajax: false)
        request.headerFields[Self.ajaxPage] = "https://acme.example/a~b"
        let answer = try #require(service.handle(request, body: [], at: .origin).answer)
        let header = try #require(answer.head.headerFields[Self.redirectHeader])
        // Encoded twice (the URL, then the header), `~` stays both times.
        #expect(header.contains("a~b") && !header.contains("%7E"))
    }

    /// The redirect after a valid token goes back where the call came in: a plain loopback room
    /// on its own port keeps `http` and the port (it went to `https://127.0.0.1`, port 443).
    @Test func theTokenRemovedRedirectKeepsTheSchemeAndPortTheCallCameIn() throws {
        let service = WaitingRoomService(configuration: RoomFixture.configuration())
        let token = try roomToken(service, at: 0)
        let request = HTTPRequest(
            method: .get, scheme: "http", authority: "127.0.0.1:8123",
            path: "/api/protected?queueittoken=\(token)")
        let admitted = try #require(service.handle(request, body: [], at: .origin).answer)
        #expect(admitted.head.status == .found)
        #expect(admitted.head.headerFields[.location] == "http://127.0.0.1:8123/api/protected")
        // An HTTP/1.1 head (no scheme of its own) behind the TLS listener reads as https.
        let head = HTTPRequestHead(
            version: .http1_1, method: .GET, uri: "/api/protected",
            headers: ["Host": "api.acme.example:8443"])
        let overTLS = RoomHTTPHandler.request(head, scheme: "https")
        #expect(overTLS.scheme == "https" && overTLS.authority == "api.acme.example:8443")
    }
}
