import Testing

@testable import QueueClientCore

@Suite("NavigationPolicy: the WebView's rules in the SDK's order")
struct NavigationPolicyTests {
    let policy = NavigationPolicy(
        queueUrl: "https://acme.queue-it.net/?c=acme&e=spring", targetUrl: "https://shop.example.com/checkout?x=1",
        queuePathPrefix: nil)!

    @Test(
        "navigation table",
        arguments: [
            ("queueit://close", NavigationDecision.closed),
            ("queueit://close?reason=x", .closed),
            ("queueit://restartSession", .restartSession),
            ("queueit://somethingElse", .external),
            ("mailto://help@acme.example", .external),
            ("https://acme.queue-it.net/what-is-this.html", .blocked),
            ("https://shop.example.com/what-is-this.html?x", .blocked),
            (
                "https://shop.example.com/checkout?queueittoken=e_1~rt_queue~h_2",
                .passed(queueitToken: "e_1~rt_queue~h_2")
            ),
            ("https://SHOP.Example.com/checkout?a=1&queueittoken=tok%7E1", .passed(queueitToken: "tok~1")),
            ("https://shop.example.com/checkout", .passed(queueitToken: nil)),
            ("https://shop.example.com/checkout/", .external),
            ("https://shop.example.com/Checkout", .external),
            ("https://evil.example/checkout", .external),
        ])
    func table(url: String, expected: NavigationDecision) {
        #expect(policy.decide(url) == expected)
    }

    @Test("hosts compare as their lowercased forms do, over bytes for ASCII and by Unicode otherwise")
    func caseInsensitiveHosts() {
        let pairs: [(String, String)] = [
            ("shop.example.com", "SHOP.Example.COM"), ("shop.example.com", "shop.example.co"),
            ("shop.example.com", "shop.example.con"), ("a-b_c[1]", "A-B_C[1]"), ("@[`{", "@[`{"), ("@", "`"),
            ("Ünïcode.example", "ünÏcode.EXAMPLE"), ("ünï", "uni"), ("", ""), ("x", "X"), ("ß", "SS"),
        ]
        for (lhs, rhs) in pairs {
            let expected = lhs.utf8.count == rhs.utf8.count && lhs.lowercased() == rhs.lowercased()
            #expect(lhs.caseInsensitiveEquals(rhs) == expected, "\(lhs) vs \(rhs)")
            #expect(rhs.caseInsensitiveEquals(lhs) == expected, "\(rhs) vs \(lhs)")
        }
    }

    @Test("waiting-room pages (any path, host case-insensitive) are queue URL changes")
    func queueHost() {
        #expect(
            policy.decide("https://acme.queue-it.net/softblock/?c=acme")
                == .queueUrlChanged(SimpleURL("https://acme.queue-it.net/softblock/?c=acme")!))
        #expect(
            policy.decide("https://ACME.queue-it.net/x") == .queueUrlChanged(SimpleURL("https://ACME.queue-it.net/x")!))
    }

    @Test("the target is checked before the queue host (Android 2.2.3+)")
    func targetBeforeQueueHost() {
        let sameHost = NavigationPolicy(
            queueUrl: "https://shop.example.com/queue/?c=acme", targetUrl: "https://shop.example.com/done",
            queuePathPrefix: "queue")!
        #expect(sameHost.decide("https://shop.example.com/done?queueittoken=t") == .passed(queueitToken: "t"))
    }

    @Test("behind a proxy with a prefix, only pages under /{prefix}/ are queue pages")
    func proxyPrefix() {
        let proxied = NavigationPolicy(
            queueUrl: "https://shop.example.com/queue/?c=acme", targetUrl: "https://shop.example.com/done",
            queuePathPrefix: "queue")!
        #expect(
            proxied.decide("https://shop.example.com/queue/softblock")
                == .queueUrlChanged(SimpleURL("https://shop.example.com/queue/softblock")!))
        #expect(proxied.decide("https://shop.example.com/cart") == .external)
        #expect(proxied.decide("https://shop.example.com/queueish/x") == .external)
    }

    @Test("a missing or broken queue or target URL gives no policy")
    func unparsable() {
        #expect(NavigationPolicy(queueUrl: "", targetUrl: "https://t/", queuePathPrefix: nil) == nil)
        #expect(NavigationPolicy(queueUrl: "https://q/", targetUrl: "nonsense", queuePathPrefix: nil) == nil)
    }
}
