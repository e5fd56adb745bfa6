import HTTPTypes
import Testing

@_spi(Wire) @testable import QueueClientCore

@Suite("Wire formats: enqueue URL, request, response")
struct WireFormatTests {
    @Test(
        "enqueue URL for domain and prefix variants",
        arguments: [
            (nil, nil, "https://acme.queue-it.net/api/mobileapp/queue/acme/spring/enqueue"),
            (nil, "queue", "https://acme.queue-it.net/api/mobileapp/queue/acme/spring/enqueue"),
            ("", "queue", "https://acme.queue-it.net/api/mobileapp/queue/acme/spring/enqueue"),
            ("shop.example.com", nil, "https://shop.example.com/api/mobileapp/queue/acme/spring/enqueue"),
            ("shop.example.com", "queue", "https://shop.example.com/queue/api/mobileapp/queue/acme/spring/enqueue"),
            ("shop.example.com", "/queue/", "https://shop.example.com/queue/api/mobileapp/queue/acme/spring/enqueue"),
            ("shop.example.com", " /queue/ ", "https://shop.example.com/queue/api/mobileapp/queue/acme/spring/enqueue"),
            ("shop.example.com", "/", "https://shop.example.com/api/mobileapp/queue/acme/spring/enqueue"),
            ("shop.example.com", "", "https://shop.example.com/api/mobileapp/queue/acme/spring/enqueue"),
            ("shop.example.com", "a/b", "https://shop.example.com/a/b/api/mobileapp/queue/acme/spring/enqueue"),
        ] as [(String?, String?, String)])
    func enqueueURL(domain: String?, prefix: String?, expected: String) {
        let address = WaitingRoomAddress(
            customerId: "acme", waitingRoomId: "spring", waitingRoomDomain: domain, queuePathPrefix: prefix)
        #expect(address.enqueueURL == expected)
    }

    @Test("path segments are percent-encoded")
    func encodedSegments() {
        let address = WaitingRoomAddress(customerId: "acme", waitingRoomId: "spring sale/2")
        #expect(address.enqueuePath == "/api/mobileapp/queue/acme/spring%20sale%2F2/enqueue")
    }

    @Test("POST with the iOS SDK's Accept and Content-Type, CFNetwork's User-Agent and the JSON body")
    func requestShape() throws {
        let parameters = EnqueueParameters(
            address: WaitingRoomAddress(
                customerId: "acme", waitingRoomId: "spring", waitingRoomDomain: "q.example", queuePathPrefix: "/queue/"),
            userId: "u-1", userAgent: "ua \"x\"", sdkVersion: "iOS-3.5.2", layoutName: "Dark", language: "en-US",
            enqueueToken: nil, enqueueKey: "key-7")
        let request = EnqueueRequest.make(parameters)
        #expect(request.head.method == .post)
        #expect(request.head.scheme == "https")
        #expect(request.head.authority == "q.example")
        #expect(request.head.path == "/queue/api/mobileapp/queue/acme/spring/enqueue")
        #expect(request.head.headerFields[.accept] == "application/json")
        #expect(request.head.headerFields[.contentType] == "application/json")
        // The header is CFNetwork's; the SDK's user agent goes in the body.
        #expect(request.head.headerFields[.userAgent] == PlatformHeaders.cfNetworkUserAgent)
        let body = String(decoding: try #require(request.body), as: UTF8.self)
        #expect(
            body
                == #"{"userId":"u-1","userAgent":"ua \"x\"","sdkVersion":"iOS-3.5.2","layoutName":"Dark","language":"en-US","enqueueKey":"key-7"}"#
        )
    }

    @Test("JSON strings: quotes, backslashes and control characters escaped; `/` too for the SDKs' writers")
    func jsonText() {
        func quoted(_ text: String, solidus: Bool) -> String {
            var out: [UInt8] = []
            JSONText.appendQuoted(text, to: &out, escapingSolidus: solidus)
            return String(decoding: out, as: UTF8.self)
        }
        let text = "a\"b\\c/d\ne\r\t\u{01}é/"
        #expect(quoted(text, solidus: false) == #""a\"b\\c/d\ne\r\t\u0001é/""#)
        #expect(quoted(text, solidus: true) == #""a\"b\\c\/d\ne\r\t\u0001é\/""#)
        #expect(quoted("Mozilla/5.0", solidus: true) == #""Mozilla\/5.0""#)
        #expect(quoted("plain", solidus: true) == #""plain""#)
        #expect(quoted("", solidus: true) == #""""#)
    }

    @Test("optional body fields are left out when nil or empty")
    func optionalFields() {
        let parameters = EnqueueParameters(
            address: WaitingRoomAddress(customerId: "acme", waitingRoomId: "spring"), userId: "u", userAgent: "a",
            sdkVersion: "s", layoutName: "", language: nil, enqueueToken: "tok", enqueueKey: nil)
        #expect(
            EnqueueRequest.body(parameters) == #"{"userId":"u","userAgent":"a","sdkVersion":"s","enqueueToken":"tok"}"#)
    }

    @Test("parameters sharing a group's members: a change to one gives it members of its own")
    func sharedMembers() {
        let address = WaitingRoomAddress(customerId: "acme", waitingRoomId: "spring")
        let common = EnqueueParameters.Common(
            EnqueueParameters.Shared(
                address: address, userAgent: "App/1 (x)", sdkVersion: "s", layoutName: "dark", language: nil,
                userIdInURL: false, platform: .ios))
        var first = EnqueueParameters(common: common, userId: "u1", enqueueKey: "k")
        let second = EnqueueParameters(common: common, userId: "u2")
        #expect(
            first
                == EnqueueParameters(
                    address: address, userId: "u1", userAgent: "App/1 (x)", sdkVersion: "s", layoutName: "dark",
                    enqueueKey: "k"))
        #expect(
            EnqueueRequest.body(first)
                == #"{"userId":"u1","userAgent":"App\/1 (x)","sdkVersion":"s","layoutName":"dark","enqueueKey":"k"}"#)
        first.layoutName = nil
        first.language = "da-DK"
        #expect(
            EnqueueRequest.body(first)
                == #"{"userId":"u1","userAgent":"App\/1 (x)","sdkVersion":"s","language":"da-DK","enqueueKey":"k"}"#)
        #expect(first.common !== common)
        #expect(second.common === common && second.layoutName == "dark" && second.language == nil)
        #expect(
            EnqueueRequest.body(second)
                == #"{"userId":"u2","userAgent":"App\/1 (x)","sdkVersion":"s","layoutName":"dark"}"#)
    }

    @Test("the response is read tolerantly")
    func responseParsing() throws {
        let full = try #require(
            EnqueueResponse(
                jsonBody: Array(
                    #"{"QueueId":"q","QueueUrl":"https://a/","EventTargetUrl":"https://t/","QueueitToken":"tok","QueueUrlTTLInMinutes":5}"#
                        .utf8)))
        #expect(
            full
                == EnqueueResponse(
                    queueId: "q", queueUrl: "https://a/", eventTargetUrl: "https://t/", queueitToken: "tok",
                    queueUrlTTLInMinutes: 5))
        let sparse = try #require(
            EnqueueResponse(jsonBody: Array(#"{"QueueId":null,"QueueUrl":42,"Extra":true}"#.utf8)))
        #expect(sparse == EnqueueResponse())
        #expect(EnqueueResponse(jsonBody: Array("{}".utf8)) == EnqueueResponse())
        #expect(EnqueueResponse(jsonBody: Array("<html>busy</html>".utf8)) == nil)
        #expect(EnqueueResponse(jsonBody: Array("[1,2]".utf8)) == nil)
        #expect(EnqueueResponse(jsonBody: Array(#""text""#.utf8)) == nil)
        #expect(EnqueueResponse(jsonBody: []) == nil)
    }

    @Test("URLs: parse, resolve relative locations, read and append query values")
    func simpleURL() throws {
        let url = try #require(SimpleURL("https://Acme.queue-it.net:8443/queue/page?c=acme&e=spring&t=a%2Fb#frag"))
        #expect(url.host == "Acme.queue-it.net")
        #expect(url.port == 8443)
        #expect(url.path == "/queue/page")
        #expect(url.queryValue("t") == "a/b")
        #expect(url.queryValue("x") == nil)
        #expect(url.resolving("/other?x=1")?.description == "https://Acme.queue-it.net:8443/other?x=1")
        #expect(url.resolving("next")?.description == "https://Acme.queue-it.net:8443/queue/next")
        #expect(url.resolving("//cdn.example/x")?.description == "https://cdn.example/x")
        #expect(url.resolving("queueit://close")?.scheme == "queueit")
        #expect(SimpleURL("https://shop.example")?.path == "/")
        #expect(SimpleURL("not a url") == nil)
        let api = try #require(SimpleURL("https://api.example/v1/cart?id=3"))
        #expect(
            api.appendingQuery("queueittoken", "e_x~rt_queue").description
                == "https://api.example/v1/cart?id=3&queueittoken=e_x~rt_queue")
    }

    @Test("resolving against a base made on demand: the same URLs, and no base for an absolute location")
    func resolveAgainstALazyBase() throws {
        let base = try #require(SimpleURL("https://room.example/queue/acme/page?q=1"))
        var basesMade = 0
        func makeBase() -> SimpleURL {
            basesMade += 1
            return base
        }
        for reference in ["https://shop.example/a/../b?queueittoken=x", " https://shop.example/ ", "queueit://close"] {
            #expect(SimpleURL.resolve(reference, against: makeBase()) == base.resolving(reference))
        }
        #expect(basesMade == 0)
        for reference in ["/other?x=1", "next/../x", "//cdn.example/x", "?q=2", ""] {
            #expect(SimpleURL.resolve(reference, against: makeBase()) == base.resolving(reference))
        }
        #expect(basesMade == 5)
    }

    @Test("resolving removes . and .. segments as a WebView does (RFC 3986 §5.2.4)")
    func dotSegments() throws {
        let url = try #require(SimpleURL("https://room.example/queue/acme/page?q=1"))
        let cases: [(String, String)] = [
            ("../other", "/queue/other"), ("./next", "/queue/acme/next"), ("../../../../x", "/x"),
            ("/a/b/../c/./d", "/a/c/d"), ("..", "/queue/"), (".", "/queue/acme/"), ("a/..", "/queue/acme/"),
            ("https://cdn.example/a/../b", "/b"), ("//cdn.example/./x/", "/x/"), ("/a//../b", "/a/b"),
        ]
        for (reference, path) in cases {
            #expect(url.resolving(reference)?.path == path, "\(reference)")
        }
        // A plain parse keeps what it reads; only navigation normalizes.
        #expect(SimpleURL("https://room.example/a/../b")?.path == "/a/../b")
    }

    @Test("one byte-level parse for every text: non-ASCII hosts, paths and query names read by their bytes")
    func nonASCII() throws {
        let url = try #require(SimpleURL("https://bücher.example:8443/straße?名=値&K=1#frag"))
        #expect(url.host == "bücher.example" && url.port == 8443 && url.path == "/straße")
        #expect(url.queryValue("名") == "値")
        // Compared by bytes, as Java compares strings: the Kelvin sign is not a K.
        #expect(url.queryValue("\u{212A}") == nil && url.queryValue("K") == "1")
        #expect(SimpleURL("ħttps://x.example/") == nil)
        #expect(SimpleURL("https://x.example:+80/") == SimpleURL("https://x.example:+80/"))
        #expect(SimpleURL("https://x.example:+80/")?.port == nil)
        #expect(SimpleURL("https://x.example:70000/") == nil)
    }
}

@Suite struct HeaderLookupTests {
    @Test("value(of:) reads what the subscript reads: one field, repeated fields joined, none")
    func valueOfMatchesTheSubscript() {
        var fields = HTTPFields()
        fields[.location] = "https://a.example/x"
        fields.append(HTTPField(name: .retryAfter, value: "5"))
        fields.append(HTTPField(name: .retryAfter, value: "7"))
        fields.append(HTTPField(name: .cookie, value: "a=1"))
        fields.append(HTTPField(name: .cookie, value: "b=2"))
        for name in [HTTPField.Name.location, .retryAfter, .cookie, .contentType] {
            #expect(fields.value(of: name) == fields[name])
        }
        #expect(fields.value(of: .retryAfter) == "5, 7")
        #expect(fields.value(of: .contentType) == nil)
    }
}

@Suite struct SharedURLStringsTests {
    @Test("Parsing while sharing a known URL's strings gives the URL a plain parse gives")
    func sharingChangesNothing() throws {
        let known = try #require(SimpleURL("https://acme.queue-it.net/queue/acme/launch?q=1"))
        for text in [
            "https://acme.queue-it.net/queue/acme/launch?q=2", "https://ACME.queue-it.net/queue/acme/launch?q=2",
            "https://acme.queue-it.net/queue/acme/other", "https://acme.queue-it.net",
            "http://acme.queue-it.net:8080/x",
            "https://acme.queue-it.net/queue/acme/launch#frag", "https://other.example/queue/acme/launch?q=3",
            "queueit://close", "https://ä.example/queue/acme/launch", "no scheme",
        ] {
            #expect(SimpleURL(text, sharingStringsWith: known) == SimpleURL(text), "\(text)")
        }
        let settings = QueuePageNavigator.SharedSettings(
            QueuePageNavigator.Settings(pollInterval: .seconds(5), maxWait: .seconds(60), userAgent: "test"))
        #expect(settings.queueURL("https://a.example/q?q=1") == SimpleURL("https://a.example/q?q=1"))
        #expect(settings.queueURL("https://a.example/q?q=2") == SimpleURL("https://a.example/q?q=2"))
        #expect(settings.targetURL("https://t.example/launch") == SimpleURL("https://t.example/launch"))
        #expect(settings.targetURL("https://t.example/launch") == SimpleURL("https://t.example/launch"))
        #expect(settings.targetURL("https://t.example/other") == SimpleURL("https://t.example/other"))
    }
}

@Suite struct QueryValueTests {
    /// The reading `queryValue` must agree with, written out plainly: names compare by their
    /// decoded bytes, as Android's `getQueryParameter` compares Java strings.
    private func reference(_ name: String, in query: String) -> String? {
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if PercentEncoding.decode(String(parts[0]), plusAsSpace: true).utf8.elementsEqual(name.utf8) {
                return parts.count > 1 ? PercentEncoding.decode(String(parts[1]), plusAsSpace: true) : ""
            }
        }
        return nil
    }

    @Test("Keys compare as decoded bytes: escapes found, look-alikes not")
    func keysCompareAsDecodedText() throws {
        let query = "q%75eue=1&queueittoken=e_x~q_y&a+b=2&flag&&K=kelvin&q=last&=empty"
        let url = try #require(SimpleURL("https://t.example/launch?\(query)"))
        for name in ["q", "queue", "queueittoken", "a b", "a+b", "flag", "K", "\u{212A}", "", "missing"] {
            #expect(url.queryValue(name) == reference(name, in: query), "\(name)")
        }
        // U+212A KELVIN SIGN is canonically equal to "K" for Swift's `==`, not for Java's `equals`.
        #expect(url.queryValue("\u{212A}") == nil)
    }
}

/// Byte-level helpers against their plain readings, over every byte.
@Suite struct ByteScanTests {
    @Test func hexValueOfEveryByte() {
        let digits = Array("0123456789abcdef".utf8)
        for byte in UInt8.min...UInt8.max {
            let lower = (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
            let expected = digits.firstIndex(of: lower).map(UInt8.init)
            #expect(ASCIIByte.hexValue(byte) == expected, "byte \(byte)")
        }
    }

    /// Decoding: `%XX` (either case) and, when asked, `+` as a space; anything else, a lone `%`
    /// or a bad escape included, as it is.
    @Test func percentDecoding() {
        #expect(PercentEncoding.decode("a%2Fb%2fc") == "a/b/c")
        #expect(PercentEncoding.decode("a+b") == "a+b")
        #expect(PercentEncoding.decode("a+b", plusAsSpace: true) == "a b")
        #expect(PercentEncoding.decode("100%") == "100%")
        #expect(PercentEncoding.decode("%zz%4") == "%zz%4")
        #expect(PercentEncoding.decode("%C3%A9t%C3%A9") == "été")
        let plain = String(repeating: "e_room~q_abc-123~ts_1797033600~ce_true~rt_queue~h_0f", count: 5)
        #expect(PercentEncoding.decode(plain, plusAsSpace: true) == plain)
        #expect(PercentEncoding.decode(plain + "%41") == plain + "A")
        #expect(PercentEncoding.decode(plain + "+", plusAsSpace: true) == plain + " ")
    }
}
