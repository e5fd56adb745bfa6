import HTTPTypes
import NIOCore
import QueueClientCore
import Testing

@testable import QueueSim

/// The protected-API call's head as the app's own HTTP stack writes it (issue 55, item 4):
/// URLSession's on iOS, OkHttp's on Android, never the WebView's; the app's user agent when a
/// group sets one. Bytes as the live engine writes them.
@Suite("Request bytes: the protected API's head per stack")
struct ProtectedApiHeadTests {
    static let api = "https://api.shop.example/v1/cart?id=3"
    static let ajaxPageURL = "https%3A%2F%2Fapi.shop.example%2Fv1%2Fcart%3Fid%3D3"

    /// The first call of a visitor of `platform` (with the app's `apiUserAgent`).
    static func firstCall(_ platform: ClientPlatform, apiUserAgent: String? = nil) throws -> OutgoingRequest {
        let group = VisitorGroupSettings(
            customerId: "acme", waitingRoomId: "launch", userAgent: platform.defaultUserAgent,
            sdkVersion: platform.defaultSDKVersion, flow: .protectedApi, protectedApiURL: api, platform: platform,
            apiUserAgent: apiUserAgent)
        var machine = VisitorMachine(configuration: VisitorConfiguration(group: group, userId: "u-1"))
        guard case .send(let request, _) = machine.start(at: .origin) else {
            Issue.record("expected the API call")
            throw CancellationError()
        }
        return request
    }

    @Test("iOS: URLSession's head — CFNetwork's user agent, Accept */*, Accept-Language, gzip and deflate")
    func iosURLSession() throws {
        let expected = PlatformRequestBytesTests.head([
            "GET /v1/cart?id=3 HTTP/1.1",
            "Host: api.shop.example",
            "x-queueit-ajaxpageurl: \(Self.ajaxPageURL)",
            "Connection: keep-alive",
            "Accept: */*",
            "User-Agent: queuesim/1 CFNetwork/1568.200.51 Darwin/24.1.0",
            "Accept-Language: en-US,en;q=0.9",
            "Accept-Encoding: gzip, deflate",
        ])
        #expect(PlatformRequestBytesTests.bytes(try Self.firstCall(.ios)) == expected)
    }

    @Test("Android: OkHttp's head — the app's header, then BridgeInterceptor's, okhttp/4.9.2 last; no Accept")
    func androidOkHttp() throws {
        let expected = PlatformRequestBytesTests.head([
            "GET /v1/cart?id=3 HTTP/1.1",
            "x-queueit-ajaxpageurl: \(Self.ajaxPageURL)",
            "Host: api.shop.example",
            "Connection: Keep-Alive",
            "Accept-Encoding: gzip",
            "User-Agent: okhttp/4.9.2",
        ])
        #expect(PlatformRequestBytesTests.bytes(try Self.firstCall(.android)) == expected)
    }

    @Test("a group's apiUserAgent is the app's: in the app's place on Android, CFNetwork's place on iOS")
    func appUserAgent() throws {
        let android = PlatformRequestBytesTests.bytes(try Self.firstCall(.android, apiUserAgent: "Shop/7.2 (Android)"))
        #expect(
            android.hasPrefix("GET /v1/cart?id=3 HTTP/1.1\r\nUser-Agent: Shop/7.2 (Android)\r\nx-queueit-ajaxpageurl"))
        #expect(!android.contains("okhttp"))
        let ios = PlatformRequestBytesTests.bytes(try Self.firstCall(.ios, apiUserAgent: "Shop/7.2 CFNetwork/1568"))
        #expect(ios.contains("\r\nAccept: */*\r\nUser-Agent: Shop/7.2 CFNetwork/1568\r\nAccept-Language"))
        // Never the WebView's.
        #expect(!ios.contains("Mozilla"))
    }

    @Test("the call after the pass keeps the head and adds the visitor's Cookie where each stack puts it")
    func cookieAfterPass() throws {
        var jar = CookieJar()
        var fields = HTTPFields()
        fields[.setCookie] = "QueueITAccepted-SDFrts345E-V3_launch=abc; Path=/"
        jar.store(fields, from: "api.shop.example")
        for (platform, tail) in [
            (
                ClientPlatform.ios,
                "Accept-Encoding: gzip, deflate\r\nCookie: QueueITAccepted-SDFrts345E-V3_launch=abc\r\n\r\n"
            ),
            (
                .android,
                "Accept-Encoding: gzip\r\nCookie: QueueITAccepted-SDFrts345E-V3_launch=abc\r\nUser-Agent: okhttp/4.9.2\r\n\r\n"
            ),
        ] {
            var machine = try #require(ProtectedApiMachine(apiURL: Self.api, platform: platform, cookies: jar))
            guard case .send(let request) = machine.callAfterPass(presenting: nil, at: .origin) else {
                Issue.record("expected a call")
                continue
            }
            #expect(PlatformRequestBytesTests.bytes(request).hasSuffix(tail), "\(platform)")
        }
    }
}
