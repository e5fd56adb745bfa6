import HTTPTypes
import Testing

@testable import QueueClientCore

@Suite("Protected API: the hybrid KnownUser flow")
struct ProtectedApiTests {
    static let api = "https://api.shop.example/v1/cart?id=3"
    static let acceptedCookie = "QueueITAccepted-SDFrts345E-V3_spring"

    /// A connector that queues visitors without the accepted cookie, and a waiting room.
    static func connector(redirectHost: String = "acme.queue-it.net", redirectPath: String = "/") -> (SentRequest) ->
        Result<IncomingResponse, TransportError>
    {
        let queueURL =
            "https://\(redirectHost)\(redirectPath)?c=acme&e=spring&ver=v3-java-3.7.0&cver=-1&man=unspecified&enqueuetoken=ET.1&t=https%3A%2F%2Fapi.shop.example%2Fv1%2Fcart"
        let encoded = PercentEncoding.queryComponent(queueURL)
        return { sent in
            if sent.authority == "api.shop.example" {
                if sent.path.contains("queueittoken=") {
                    return .success(
                        Reply.json(
                            #"{"cart":[]}"#,
                            headers: [("Set-Cookie", "\(acceptedCookie)=EventId%3Dspring%26Hash%3Dab; Path=/")]))
                }
                if sent.header("Cookie")?.contains(acceptedCookie) == true {
                    return .success(Reply.json(#"{"cart":[1]}"#))
                }
                return .success(Reply.response(status: 200, headers: [("x-queueit-redirect", encoded)]))
            }
            if sent.path.hasSuffix("/enqueue") {
                return .success(
                    Reply.enqueue(
                        token: nil, queueUrl: "https://\(redirectHost)\(redirectPath)?c=acme&e=spring",
                        target: "https://api.shop.example/v1/cart"))
            }
            return .success(Reply.redirect("https://api.shop.example/v1/cart?queueittoken=\(TokenVectors.queue)"))
        }
    }

    @Test("redirect header → enqueue with c, e and enqueuetoken → queue → API again with the token")
    func fullFlow() {
        let (result, sent) = simulate(
            configuration(flow: .protectedApi, protectedApi: Self.api), respond: Self.connector())
        #expect(result.outcome == .passed)
        #expect(result.queueitToken == TokenVectors.queue)
        #expect(sent.count == 4)
        #expect(sent[0].authority == "api.shop.example")
        #expect(sent[0].header("x-queueit-ajaxpageurl") == PercentEncoding.queryComponent(Self.api))
        #expect(sent[1].authority == "acme.queue-it.net")
        #expect(sent[1].path == "/api/mobileapp/queue/acme/spring/enqueue")
        #expect(sent[1].bodyText.contains(#""enqueueToken":"ET.1""#))
        #expect(sent[3].path == "/v1/cart?id=3&queueittoken=\(TokenVectors.queue)")
        #expect(result.requests == 4)
        #expect(result.attempts == 1)
    }

    @Test("a connector that answers the token with a 302 and the cookie: followed, 3 API calls per pass")
    func connectorTrueRedirect() {
        let api = Self.connector()
        let (result, sent) = simulate(configuration(flow: .protectedApi, protectedApi: Self.api)) { sent in
            guard sent.authority == "api.shop.example", sent.path.contains("queueittoken=") else { return api(sent) }
            // KnownUser's glue: 302 to the URL without the token, setting the session cookie.
            return .success(
                Reply.redirect(
                    "https://api.shop.example/v1/cart?id=3",
                    headers: [("Set-Cookie", "\(Self.acceptedCookie)=EventId%3Dspring%26Hash%3Dab; Path=/")]))
        }
        #expect(result.outcome == .passed)
        let apiCalls = sent.filter { $0.authority == "api.shop.example" }
        #expect(apiCalls.count == 3)
        #expect(apiCalls[2].path == "/v1/cart?id=3")
        #expect(apiCalls[2].header("Cookie")?.contains(Self.acceptedCookie) == true)
    }

    @Test("a proxy host and path in the redirect become waitingRoomDomain and queuePathPrefix")
    func proxiedRedirect() {
        let (result, sent) = simulate(
            configuration(flow: .protectedApi, protectedApi: Self.api),
            respond: Self.connector(redirectHost: "shop.example", redirectPath: "/queue/"))
        #expect(result.outcome == .passed)
        #expect(sent[1].authority == "shop.example")
        #expect(sent[1].path == "/queue/api/mobileapp/queue/acme/spring/enqueue")
    }

    @Test("no redirect header → passed with one request")
    func notQueued() {
        let (result, sent) = simulate(configuration(flow: .protectedApi, protectedApi: Self.api)) { _ in
            .success(Reply.json("{}"))
        }
        #expect(result.outcome == .passed)
        #expect(sent.count == 1)
        #expect(result.attempts == 0)
    }

    @Test("the accepted cookie is kept and sent on later calls")
    func keepsCookie() {
        var machine = ProtectedApiMachine(apiURL: Self.api, userAgent: "ua")!
        _ = machine.start(at: .origin)
        let redirect = Reply.response(
            status: 200,
            headers: [
                ("x-queueit-redirect", PercentEncoding.queryComponent("https://acme.queue-it.net/?c=acme&e=spring"))
            ])
        guard case .runWaitingRoom(let instruction) = machine.received(redirect, at: .origin) else {
            Issue.record("expected the waiting room")
            return
        }
        #expect(instruction.address == WaitingRoomAddress(customerId: "acme", waitingRoomId: "spring"))
        #expect(instruction.enqueueToken == nil)
        guard case .send(let retry) = machine.queuePassed(token: "tok", at: .origin) else {
            Issue.record("expected a call")
            return
        }
        #expect(retry.head.path == "/v1/cart?id=3&queueittoken=tok")
        // The connector strips the token with a 302 that sets the cookie; it is followed.
        let strip = Reply.redirect(
            "/v1/cart?id=3", headers: [("Set-Cookie", "\(Self.acceptedCookie)=abc; Path=/; HttpOnly")])
        guard case .send(let followed) = machine.received(strip, at: .origin) else {
            Issue.record("expected the redirect followed")
            return
        }
        #expect(followed.head.path == "/v1/cart?id=3")
        #expect(followed.head.headerFields[.cookie] == "\(Self.acceptedCookie)=abc")
        #expect(machine.received(Reply.json("{}"), at: .origin) == .finish(.reached(status: 200)))
        #expect(machine.cookies.value(named: Self.acceptedCookie, for: "api.shop.example") == "abc")
    }

    @Test("still redirected after presenting the token → error")
    func stillRedirected() {
        let redirect = Reply.response(
            status: 200,
            headers: [
                ("x-queueit-redirect", PercentEncoding.queryComponent("https://acme.queue-it.net/?c=acme&e=spring"))
            ])
        let (result, _) = simulate(configuration(flow: .protectedApi, protectedApi: Self.api)) { sent in
            if sent.authority == "api.shop.example" { return .success(redirect) }
            return .success(Reply.enqueue(token: TokenVectors.safetynet))
        }
        #expect(result.outcome == .error)
        #expect(result.errorMessage?.contains("still redirects") == true)
    }

    @Test(
        "disabled, idle, afterevent in the hybrid flow: the token goes to the API, which lets the visitor pass",
        arguments: ["disabled", "idle", "afterevent"])
    func disabledModesPassThroughTheAPI(rt: String) {
        let token = TokenVectors.with(rt: rt)
        let redirect = Reply.response(
            status: 200,
            headers: [
                ("x-queueit-redirect", PercentEncoding.queryComponent("https://acme.queue-it.net/?c=acme&e=spring"))
            ])
        let (result, sent) = simulate(configuration(flow: .protectedApi, protectedApi: Self.api)) { sent in
            guard sent.authority == "api.shop.example" else { return .success(Reply.enqueue(token: token)) }
            return .success(sent.path.contains("queueittoken=") ? Reply.json(#"{"cart":[]}"#) : redirect)
        }
        #expect(result.outcome == .passed)
        // The row still tells a disabled pass from a queue pass.
        #expect(result.redirectType == rt)
        #expect(sent.count == 3)
        #expect(sent[2].path == "/v1/cart?id=3&queueittoken=\(token)")
    }

    @Test("queue outcomes inside the hybrid flow are the visitor's outcome")
    func innerOutcome() {
        let redirect = Reply.response(
            status: 200,
            headers: [
                ("x-queueit-redirect", PercentEncoding.queryComponent("https://acme.queue-it.net/?c=acme&e=spring"))
            ])
        let (result, _) = simulate(configuration(flow: .protectedApi, protectedApi: Self.api)) { sent in
            if sent.authority == "api.shop.example" { return .success(redirect) }
            if sent.path.hasSuffix("/enqueue") { return .success(Reply.enqueue(token: nil)) }
            return .success(Reply.redirect("queueit://close"))
        }
        #expect(result.outcome == .closed)
    }

    @Test("the redirect header is parsed from its encoded form")
    func instructionParsing() throws {
        let header = PercentEncoding.queryComponent(
            "https://q.shop.example/wr/?c=acme&e=spring&cid=de-DE&l=Dark%20Mode&enqueuetoken=abc")
        let instruction = try #require(QueueRedirectInstruction(headerValue: header))
        #expect(instruction.address.host == "q.shop.example")
        #expect(instruction.address.queuePathPrefix == "wr")
        #expect(instruction.language == "de-DE")
        #expect(instruction.layoutName == "Dark Mode")
        #expect(instruction.enqueueToken == "abc")
        #expect(QueueRedirectInstruction(headerValue: "https%3A%2F%2Facme.queue-it.net%2F%3Fc%3Dacme") == nil)
    }

    @Test("a missing API URL is an error, not a crash")
    func missingURL() {
        let (result, sent) = simulate(configuration(flow: .protectedApi)) { _ in .success(Reply.json("{}")) }
        #expect(result.outcome == .error)
        #expect(sent.isEmpty)
    }
}
