import HTTPTypes
import Testing

@testable import QueueClientCore

@Suite("QueuePageNavigator: the HTTP-only queue page protocol")
struct QueuePageNavigatorTests {
    let tryPass = QueueTryPassResult(
        queueUrl: "https://acme.queue-it.net/?c=acme&e=spring", targetUrl: "https://shop.example.com/checkout",
        redirectType: .queue, isPassedThrough: true, queueToken: TokenVectors.queue)
    let settings = QueuePageNavigator.Settings(pollInterval: .seconds(2), maxWait: .seconds(30), userAgent: "ua")

    @Test("GET with cookies, poll after Retry-After or the interval, pass on the target redirect")
    func pollsThenPasses() throws {
        var navigator = try #require(QueuePageNavigator(tryPass: tryPass, queuePathPrefix: nil, settings: settings))
        // iOS reports the first queue URL too (its navigation delegate sees the first load).
        guard case .send(let first, true) = navigator.start(at: .seconds(1)),
            navigator.currentURL.description == "https://acme.queue-it.net/?c=acme&e=spring"
        else {
            Issue.record("expected a load")
            return
        }
        #expect(first.head.method == .get)
        #expect(first.head.authority == "acme.queue-it.net")
        #expect(first.head.path == "/?c=acme&e=spring")
        #expect(first.head.headerFields[.cookie] == nil)

        let waiting = Reply.json(
            #"{"position":3}"#, headers: [("Set-Cookie", "Queue-it-acme=q1; Path=/; HttpOnly"), ("Retry-After", "5")])
        #expect(navigator.received(waiting, at: .seconds(1.1)) == .wait(until: .seconds(6.1)))
        guard case .send(let second, false) = navigator.waited(at: .seconds(6.1)) else {
            Issue.record("expected a poll")
            return
        }
        #expect(second.head.headerFields[.cookie] == "Queue-it-acme=q1")

        #expect(navigator.received(Reply.json("{}"), at: .seconds(6.2)) == .wait(until: .seconds(8.2)))
        _ = navigator.waited(at: .seconds(8.2))
        let pass = Reply.redirect("https://shop.example.com/checkout?queueittoken=\(TokenVectors.queue)")
        #expect(navigator.received(pass, at: .seconds(8.3)) == .finish(.passed(queueitToken: TokenVectors.queue)))
        #expect(navigator.polls == 3)
    }

    @Test("a redirect to another waiting-room page is loaded at once and reported as a URL change")
    func queueUrlChange() throws {
        var navigator = try #require(QueuePageNavigator(tryPass: tryPass, queuePathPrefix: nil, settings: settings))
        _ = navigator.start(at: .origin)
        let action = navigator.received(Reply.redirect("/softblock/?c=acme"), at: .seconds(0.1))
        guard case .send(let request, let changed) = action else {
            Issue.record("expected a load, got \(action)")
            return
        }
        #expect(request.head.path == "/softblock/?c=acme")
        #expect(changed && navigator.currentURL.description == "https://acme.queue-it.net/softblock/?c=acme")
    }

    @Test(
        "queueit://close and queueit://restartSession end the visit",
        arguments: [("queueit://close", QueuePageEnding.closed), ("queueit://restartSession", .restartSession)])
    func specialLinks(location: String, ending: QueuePageEnding) throws {
        var navigator = try #require(QueuePageNavigator(tryPass: tryPass, queuePathPrefix: nil, settings: settings))
        _ = navigator.start(at: .origin)
        #expect(navigator.received(Reply.redirect(location), at: .seconds(0.1)) == .finish(ending))
    }

    @Test(
        "blocked redirects, and on Android external ones, keep the visitor on the page",
        arguments: [
            ("/what-is-this.html", ClientPlatform.ios), ("/what-is-this.html", .android),
            ("https://elsewhere.example/", .android),
        ])
    func staysOnPage(location: String, platform: ClientPlatform) throws {
        var settings = settings
        settings.platform = platform
        var navigator = try #require(QueuePageNavigator(tryPass: tryPass, queuePathPrefix: nil, settings: settings))
        _ = navigator.start(at: .origin)
        #expect(navigator.received(Reply.redirect(location), at: .seconds(0.1)) == .wait(until: .seconds(2.1)))
        guard case .send(let request, false) = navigator.waited(at: .seconds(2.1)) else {
            Issue.record("expected a poll")
            return
        }
        #expect(request.head.path == (platform == .ios ? "/?c=acme&e=spring" : "/?userId=&c=acme&e=spring"))
    }

    @Test("still waiting at maxWait (from queue entry) → queued")
    func maxWait() throws {
        var navigator = try #require(QueuePageNavigator(tryPass: tryPass, queuePathPrefix: nil, settings: settings))
        var action = navigator.start(at: .seconds(10))
        var now = RunInstant.seconds(10)
        for _ in 0..<100 {
            switch action {
            case .send:
                now = now + .milliseconds(500)
                action = navigator.received(Reply.json("{}"), at: now)
            case .wait(let deadline):
                now = deadline
                action = navigator.waited(at: now)
            case .finish(let ending):
                #expect(ending == .queued)
                #expect(now == .seconds(40))
                return
            }
        }
        Issue.record("did not end")
    }

    @Test("a TLS failure is the SDK's SSL error; with `poll`, other failures poll again")
    func failures() throws {
        var polling = settings
        polling.retry = .poll
        var navigator = try #require(QueuePageNavigator(tryPass: tryPass, queuePathPrefix: nil, settings: polling))
        _ = navigator.start(at: .origin)
        #expect(navigator.failed(.timedOut, at: .seconds(10)) == .wait(until: .seconds(12)))
        _ = navigator.waited(at: .seconds(12))
        guard case .finish(.sslError) = navigator.failed(.tls("expired"), at: .seconds(12.1)) else {
            Issue.record("expected an SSL error")
            return
        }
    }

    @Test("a redirect loop between queue pages pauses for a poll interval")
    func redirectLoop() throws {
        var navigator = try #require(QueuePageNavigator(tryPass: tryPass, queuePathPrefix: nil, settings: settings))
        var action = navigator.start(at: .origin)
        var loads = 0
        while case .send = action, loads < 100 {
            loads += 1
            action = navigator.received(Reply.redirect(loads.isMultiple(of: 2) ? "/a" : "/b"), at: .origin)
        }
        #expect(loads == QueuePageNavigator.redirectsBeforePause)
        #expect(action == .wait(until: .seconds(2)))
    }

    @Test("no queue URL or no target URL: no navigator (the SDK's load error)")
    func missingURLs() {
        var broken = tryPass
        broken.targetUrl = nil
        #expect(QueuePageNavigator(tryPass: broken, queuePathPrefix: nil, settings: settings) == nil)
    }
}
