import Testing

@testable import QueueClientCore

/// Where WKWebView (`QueueITWKViewController.m`) and Android's WebView (`UriOverrider.java`,
/// `QueueActivityBase.java`) take a navigation differently.
@Suite("WebView navigations per platform")
struct WebViewNavigationTests {
    typealias Respond = (SentRequest) -> Result<IncomingResponse, TransportError>
    static let target = PlatformBehaviourTests.target

    @Test("iOS follows a redirect to another host inside the WebView; Android hands it to the browser and stays")
    func offHostRedirect() {
        let respond: Respond = { sent in
            if sent.path.contains("/enqueue") { return .success(Reply.enqueue(token: nil)) }
            if sent.authority == "captcha.example" {
                return .success(Reply.redirect("\(Self.target)?queueittoken=\(TokenVectors.queue)"))
            }
            return .success(Reply.redirect("https://captcha.example/challenge"))
        }
        let (ios, iosSent) = simulate(configuration(platform: .ios, queuePageRetry: nil), respond: respond)
        #expect(ios.outcome == .passed)
        #expect(iosSent.map(\.authority) == ["acme.queue-it.net", "acme.queue-it.net", "captcha.example"])
        let (android, androidSent) = simulate(
            configuration(maxWait: .seconds(10), platform: .android, queuePageRetry: nil), respond: respond)
        #expect(android.outcome == .queued)
        #expect(!androidSent.contains { $0.authority == "captcha.example" })
    }

    @Test(
        "iOS keeps the page it shows when a later navigation fails, and polls on; a first load that fails still ends it"
    )
    func iosKeepsOldPage() {
        var firstPage = 0
        let respond: Respond = { sent in
            if sent.path.contains("/enqueue") { return .success(Reply.enqueue(token: nil)) }
            if sent.path == "/next" { return .failure(.connectionReset) }
            firstPage += 1
            switch firstPage {
            case 1: return .success(Reply.json(#"{"position":2}"#))
            case 2: return .success(Reply.redirect("/next"))
            default: return .success(Reply.redirect("\(Self.target)?queueittoken=\(TokenVectors.queue)"))
            }
        }
        let (result, sent) = simulate(configuration(platform: .ios, queuePageRetry: nil), respond: respond)
        #expect(result.outcome == .passed)
        #expect(
            sent.dropFirst().map(\.path) == ["/?c=acme&e=spring", "/?c=acme&e=spring", "/next", "/?c=acme&e=spring"])
        // Back on the first page one poll interval after the failure (20 ms per exchange).
        #expect(sent[4].at - sent[3].at == .milliseconds(2020))
    }

    @Test(
        "a target written without a path is never reached on either platform (its path is empty, a navigation's is /)")
    func emptyTargetPath() {
        func respond(target: String) -> Respond {
            { sent in
                if sent.path.contains("/enqueue") { return .success(Reply.enqueue(token: nil, target: target)) }
                if sent.authority == "shop.example" { return .success(Reply.json("{}")) }
                return .success(Reply.redirect("https://shop.example/?queueittoken=\(TokenVectors.queue)"))
            }
        }
        for platform in ClientPlatform.allCases {
            let stranded = simulate(
                configuration(maxWait: .seconds(10), platform: platform, queuePageRetry: nil),
                respond: respond(target: "https://shop.example"))
            #expect(stranded.result.outcome == .queued, "\(platform)")
            let reached = simulate(
                configuration(maxWait: .seconds(10), platform: platform, queuePageRetry: nil),
                respond: respond(target: "https://shop.example/"))
            #expect(reached.result.outcome == .passed, "\(platform)")
        }
        #expect(SimpleURL.hasEmptyPath("https://shop.example"))
        #expect(SimpleURL.hasEmptyPath("https://shop.example:8443?x=1"))
        #expect(!SimpleURL.hasEmptyPath("https://shop.example/"))
        #expect(!SimpleURL.hasEmptyPath("https://shop.example/a?x"))
        // Against the first reading, over the `utf8` view, on odd inputs too.
        func reference(_ string: String) -> Bool {
            let bytes = string.utf8
            guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return false }
            var rest = bytes[bytes.index(after: colon)...]
            guard rest.starts(with: "//".utf8) else { return false }
            rest = rest.dropFirst(2)
            let end = rest.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
            return end.map { rest[$0] != UInt8(ascii: "/") } ?? true
        }
        for url in [
            "", ":", "https:", "https:/", "https://", "https://h", "x://a#b/c", "https://h?x/y", "mailto:x",
            "no colon", "h://é/ü", "a:b://c", "https://shop.example:8443/", "//host/path", "https://h#",
        ] {
            #expect(SimpleURL.hasEmptyPath(url) == reference(url), "\(url)")
        }
    }

    @Test("Android compares the queue host as the API wrote it: a queue URL with capitals never matches a navigation")
    func androidQueueHostCase() {
        let respond: Respond = { sent in
            if sent.path.contains("/enqueue") {
                return .success(Reply.enqueue(token: nil, queueUrl: "https://Acme.queue-it.net/?c=acme&e=spring"))
            }
            return .success(sent.path == "/second" ? Reply.json("{}") : Reply.redirect("/second"))
        }
        let (_, android) = simulate(
            configuration(maxWait: .seconds(10), platform: .android, queuePageRetry: nil), respond: respond)
        #expect(!android.contains { $0.path.hasPrefix("/second") })
        let (_, ios) = simulate(
            configuration(maxWait: .seconds(10), platform: .ios, queuePageRetry: nil), respond: respond)
        #expect(ios.contains { $0.path == "/second" })
    }

    @Test("Android matches queueit:// links by their host as written: queueit://Close is no close link")
    func androidLinkCase() {
        let policy = NavigationPolicy(
            queueHost: "acme.queue-it.net", queuePathPrefix: nil, targetHost: "shop.example", targetPath: "/done")
        let close = SimpleURL("queueit://Close")!
        #expect(policy.decide(close, caseSensitive: true) == .external)
        #expect(policy.decide(close, caseSensitive: false) == .closed)
        #expect(policy.decide(SimpleURL("queueit://close?x=1")!, caseSensitive: true) == .closed)
        #expect(policy.decide(SimpleURL("QUEUEIT://restartSession")!, caseSensitive: true) == .restartSession)
    }
}
