import HTTPTypes
import NIOCore
import QueueClientCore
import Testing

@testable import QueueSim

/// What the live engine writes for each call of each platform, byte for byte (the table of
/// docs/client-core.md): OkHttp's enqueue, CFNetwork's, WKWebView's and Chromium WebView's
/// page loads, and both SDKs' JSON bodies with `/` escaped.
@Suite("Request bytes per platform and call")
struct PlatformRequestBytesTests {
    static func configuration(_ platform: ClientPlatform, userId: String, language: String? = nil)
        -> VisitorConfiguration
    {
        VisitorConfiguration(
            group: VisitorGroupSettings(
                customerId: "acme", waitingRoomId: "launch", language: language,
                userAgent: platform.defaultUserAgent, sdkVersion: platform.defaultSDKVersion, platform: platform),
            userId: userId)
    }

    /// The request as the live engine writes it, through the shared-head path when it has one
    /// (checked against the plain path too).
    static func bytes(_ request: OutgoingRequest) -> String {
        let allocator = ByteBufferAllocator()
        var heads = EncodedHeads()
        let plain = String(
            buffer: LiveRequestEncoding.encode(request, defaultAuthority: "127.0.0.1:9", allocator: allocator))
        let shared = String(
            buffer: LiveRequestEncoding.encode(
                request, defaultAuthority: "127.0.0.1:9", allocator: allocator, heads: &heads))
        #expect(plain == shared)
        return plain
    }

    static func head(_ lines: [String]) -> String { lines.map { $0 + "\r\n" }.joined() + "\r\n" }

    @Test("Android enqueue: the SDK's User-Agent, then OkHttp's BridgeInterceptor headers; org.json's body")
    func androidEnqueue() {
        let configuration = Self.configuration(.android, userId: "0123456789abcdef")
        let request = EnqueueRequest.make(configuration.enqueueParameters, sharedHead: configuration.sharedEnqueueHead)
        let expected =
            Self.head([
                "POST /api/mobileapp/queue/acme/launch/enqueue?userId=0123456789abcdef HTTP/1.1",
                "User-Agent: Mozilla/5.0 (Linux; Android 15; queuesim; wv) AppleWebKit/537.36 (KHTML, like Gecko)"
                    + " Version/4.0 Chrome/130.0.6723.107 Mobile Safari/537.36 (sdk: com.queue_it.androidsdk@3.0.0)",
                "Content-Type: application/json; charset=utf-8",
                "Content-Length: 254",
                "Host: acme.queue-it.net",
                "Connection: Keep-Alive",
                "Accept-Encoding: gzip",
            ])
            + #"{"userId":"0123456789abcdef","userAgent":"Mozilla\/5.0 (Linux; Android 15; queuesim; wv) AppleWebKit\/537.36 (KHTML, like Gecko) Version\/4.0 Chrome\/130.0.6723.107 Mobile Safari\/537.36 (sdk: com.queue_it.androidsdk@3.0.0)","sdkVersion":"Android-3.0.0"}"#
        #expect(Self.bytes(request) == expected)
    }

    @Test("iOS enqueue: CFNetwork's headers around the SDK's Accept and Content-Type; NSJSONSerialization's body")
    func iosEnqueue() {
        let configuration = Self.configuration(.ios, userId: "6F9619FF-8B86-D011-B42D-00C04FC964FF", language: "en-US")
        let request = EnqueueRequest.make(configuration.enqueueParameters, sharedHead: configuration.sharedEnqueueHead)
        #expect(request.sharedHead != nil)
        let expected =
            Self.head([
                "POST /api/mobileapp/queue/acme/launch/enqueue HTTP/1.1",
                "Host: acme.queue-it.net",
                "Content-Type: application/json",
                "Connection: keep-alive",
                "Accept: application/json",
                "User-Agent: queuesim/1 CFNetwork/1568.200.51 Darwin/24.1.0",
                "Content-Length: 235",
                "Accept-Language: en-US,en;q=0.9",
                "Accept-Encoding: gzip, deflate",
            ])
            + #"{"userId":"6F9619FF-8B86-D011-B42D-00C04FC964FF","userAgent":"Mozilla\/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit\/605.1.15 (KHTML, like Gecko) Mobile\/15E148;queuesim-1.0.1","sdkVersion":"iOS-3.5.1","language":"en-US"}"#
        #expect(Self.bytes(request) == expected)
        // Bodies of other lengths through the same shared head: only Content-Length changes.
        let other = Self.configuration(.ios, userId: "A")
        let short = EnqueueRequest.make(other.enqueueParameters, sharedHead: other.sharedEnqueueHead)
        let shortBody = String(decoding: short.body ?? [], as: UTF8.self)
        #expect(
            Self.bytes(short).hasSuffix(
                "Content-Length: \(shortBody.utf8.count)\r\nAccept-Language: en-US,en;q=0.9\r\nAccept-Encoding: gzip, deflate\r\n\r\n\(shortBody)"
            ))
    }

    /// The first queue page load of a visitor of `platform` holding the cookie `Q=1` (or none).
    static func firstPageLoad(_ platform: ClientPlatform, cookie: Bool = true) throws -> OutgoingRequest {
        let tryPass = QueueTryPassResult(
            queueUrl: "https://acme.queue-it.net/?c=acme&e=launch&q=7", targetUrl: "https://shop.example/done",
            redirectType: .queue, isPassedThrough: true, queueToken: nil)
        var cookies = CookieJar()
        if cookie { cookies.store(setCookie: "Q=1", from: "acme.queue-it.net") }
        var navigator = try #require(
            QueuePageNavigator(
                tryPass: tryPass, queuePathPrefix: nil,
                settings: .init(
                    pollInterval: .seconds(2), maxWait: .seconds(60), userAgent: platform.defaultUserAgent,
                    platform: platform),
                cookies: cookies, userId: "0123456789abcdef"))
        guard case .send(let request, _) = navigator.start(at: .origin) else {
            Issue.record("no page load")
            return OutgoingRequest(head: HTTPRequest(method: .get, scheme: nil, authority: nil, path: nil))
        }
        return request
    }

    @Test("iOS page load: WebKit's navigation headers with the plain WKWebView user agent (no `;app-version`)")
    func iosPageLoad() throws {
        let expected = Self.head([
            "GET /?c=acme&e=launch&q=7 HTTP/1.1",
            "Host: acme.queue-it.net",
            "Accept: text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
            "Sec-Fetch-Site: none",
            "Cookie: Q=1",
            "Sec-Fetch-Dest: document",
            "Accept-Language: en-US,en;q=0.9",
            "Sec-Fetch-Mode: navigate",
            "User-Agent: Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15"
                + " (KHTML, like Gecko) Mobile/15E148",
            "Accept-Encoding: gzip, deflate, br",
            "Connection: keep-alive",
        ])
        let request = try Self.firstPageLoad(.ios)
        // The group's fields are encoded once (the shared path of `bytes`), the cookie put in.
        #expect(request.sharedPageFields != nil)
        #expect(Self.bytes(request) == expected)
        let withoutCookie = try Self.firstPageLoad(.ios, cookie: false)
        #expect(Self.bytes(withoutCookie) == expected.replacingOccurrences(of: "Cookie: Q=1\r\n", with: ""))
    }

    @Test("Android page load: Chromium WebView's navigation headers, X-Requested-With the app's package")
    func androidPageLoad() throws {
        let expected = Self.head([
            "GET /?userId=0123456789abcdef&c=acme&e=launch&q=7 HTTP/1.1",
            "Host: acme.queue-it.net",
            "Connection: keep-alive",
            #"sec-ch-ua: "Chromium";v="130", "Android WebView";v="130", "Not?A_Brand";v="99""#,
            "sec-ch-ua-mobile: ?1",
            #"sec-ch-ua-platform: "Android""#,
            "Upgrade-Insecure-Requests: 1",
            "User-Agent: Mozilla/5.0 (Linux; Android 15; queuesim; wv) AppleWebKit/537.36 (KHTML, like Gecko)"
                + " Version/4.0 Chrome/130.0.6723.107 Mobile Safari/537.36 (sdk: com.queue_it.androidsdk@3.0.0)",
            "Accept: text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,"
                + "application/signed-exchange;v=b3;q=0.7",
            "X-Requested-With: com.queuesim.app",
            "Sec-Fetch-Site: none",
            "Sec-Fetch-Mode: navigate",
            "Sec-Fetch-Dest: document",
            "Accept-Encoding: gzip, deflate, br, zstd",
            "Accept-Language: en-US,en;q=0.9",
            "Cookie: Q=1",
        ])
        #expect(Self.bytes(try Self.firstPageLoad(.android)) == expected)
        let withoutCookie = try Self.firstPageLoad(.android, cookie: false)
        #expect(Self.bytes(withoutCookie) == expected.replacingOccurrences(of: "Cookie: Q=1\r\n", with: ""))
    }

    @Test("a 302 on the Android enqueue becomes OkHttp's GET: no body, no Content-Type, Content-Length")
    func androidRedirectedGet() throws {
        let configuration = Self.configuration(.android, userId: "0123456789abcdef")
        var machine = EnqueueMachine(parameters: configuration.enqueueParameters, platform: .android)
        _ = machine.start(at: .origin)
        var fields = HTTPFields()
        fields[.location] = "https://edge.queue-it.net/api/enqueue"
        let action = machine.received(
            IncomingResponse(head: HTTPResponse(status: .found, headerFields: fields)), at: .origin)
        guard case .send(let request) = action else {
            Issue.record("expected the redirect to be followed")
            return
        }
        let text = Self.bytes(request)
        #expect(text.hasPrefix("GET /api/enqueue HTTP/1.1\r\nUser-Agent: Mozilla/5.0 (Linux;"))
        #expect(
            text.hasSuffix("\r\nHost: edge.queue-it.net\r\nConnection: Keep-Alive\r\nAccept-Encoding: gzip\r\n\r\n"))
        #expect(!text.contains("Content-"))
    }
}
