import HTTPTypes
import Testing

@testable import QueueClientCore

/// Where iOS 3.5.2 and Android 3.0.0 differ (issue 15), against a scripted stand-in server in
/// virtual time: queue page failures, enqueue redirects and statuses, timeouts, request shapes.
@Suite("ClientPlatform: iOS and Android visitors as their SDKs behave")
struct PlatformBehaviourTests {
    static let target = "https://shop.example.com/checkout"

    /// Enqueue → queue; the queue page fails `failures` times (a transport error), then
    /// answers "wait" forever — or passes when `passAfter` page answers have been served.
    static func failingQueuePage(
        failures: Int, with failure: TransportError = .connectionReset, passAfter: Int? = nil
    ) -> (SentRequest) -> Result<IncomingResponse, TransportError> {
        var pageRequests = 0
        return { sent in
            if sent.path.contains("/enqueue") { return .success(Reply.enqueue(token: nil)) }
            pageRequests += 1
            if pageRequests <= failures { return .failure(failure) }
            if let passAfter, pageRequests > failures + passAfter {
                return .success(Reply.redirect("\(target)?queueittoken=\(TokenVectors.queue)"))
            }
            return .success(Reply.json(#"{"position":1}"#))
        }
    }

    @Test("Android: a queue page that fails 7 times is reloaded at once, then after 2, 4, 8, 16, 30 s, then `error`")
    func androidReloadSchedule() {
        let (result, sent) = simulate(
            configuration(maxWait: .seconds(600), platform: .android, queuePageRetry: nil),
            respond: Self.failingQueuePage(failures: 7))
        #expect(result.outcome == .error)
        #expect(result.errorMessage?.contains("Android gave up after 6 reloads") == true)
        let pages = sent.dropFirst()
        #expect(pages.count == 7)
        // Each load takes 20 ms; each failure waits the next delay.
        let expected: [Double] = [0.02, 0.04, 2.06, 6.08, 14.10, 30.12, 60.14]
        #expect(pages.map(\.at) == expected.map { RunInstant.seconds($0) })
        // Always the original queue URL, with Android's userId in front of its query.
        #expect(Set(pages.map(\.path)) == ["/?userId=visitor-1&c=acme&e=spring"])
        #expect(result.marks.ended == .seconds(60.16))
    }

    @Test("Android: a reload that loads resets the count, and the visitor goes on to pass")
    func androidReloadRecovers() {
        let (result, sent) = simulate(
            configuration(maxWait: .seconds(600), platform: .android, queuePageRetry: nil),
            respond: Self.failingQueuePage(failures: 6, passAfter: 1))
        #expect(result.outcome == .passed)
        #expect(sent.count == 1 + 6 + 1 + 1)
    }

    @Test("iOS: the visitor ends `error` at the first failed queue page load, without a retry")
    func iosGivesUp() {
        let (result, sent) = simulate(
            configuration(platform: .ios, queuePageRetry: nil), respond: Self.failingQueuePage(failures: 7))
        #expect(result.outcome == .error)
        #expect(result.errorMessage?.contains("iOS does not retry") == true)
        #expect(sent.count == 2)
        #expect(result.marks.ended == .seconds(0.04))
    }

    @Test("`poll` keeps the lenient behaviour: failures are polled through until the page passes")
    func pollRidesItOut() {
        for platform in ClientPlatform.allCases {
            let (result, sent) = simulate(
                configuration(platform: platform, queuePageRetry: .poll),
                respond: Self.failingQueuePage(failures: 7, passAfter: 0))
            #expect(result.outcome == .passed)
            #expect(sent.count == 1 + 7 + 1)
            // Every 2 s (the poll interval) after each 20 ms failure.
            #expect(sent[2].at - sent[1].at == .milliseconds(2020))
        }
    }

    @Test("an error page on the first load strands the visitor on both platforms; `poll` polls on")
    func httpErrorPage() {
        let respond: (SentRequest) -> Result<IncomingResponse, TransportError> = { sent in
            if sent.path.contains("/enqueue") { return .success(Reply.enqueue(token: nil)) }
            return .success(Reply.json(#"{"error":"busy"}"#, status: 503))
        }
        for platform in ClientPlatform.allCases {
            let (result, sent) = simulate(configuration(platform: platform, queuePageRetry: nil), respond: respond)
            #expect(result.outcome == .error)
            #expect(result.lastHTTPStatus == 503)
            #expect(sent.count == 2)
        }
        let (polled, _) = simulate(configuration(maxWait: .seconds(10), queuePageRetry: .poll), respond: respond)
        #expect(polled.outcome == .queued)
    }

    @Test("once the page has loaded, a failed poll is the page script's business: the visitor polls on")
    func pollFailuresAfterALoad() {
        var page = 0
        let (result, _) = simulate(configuration(platform: .ios, queuePageRetry: nil)) { sent in
            if sent.path.contains("/enqueue") { return .success(Reply.enqueue(token: nil)) }
            page += 1
            switch page {
            case 1: return .success(Reply.json(#"{"position":1}"#))
            case 2, 3: return .failure(.connectionReset)
            default: return .success(Reply.redirect("\(Self.target)?queueittoken=\(TokenVectors.queue)"))
            }
        }
        #expect(result.outcome == .passed)
    }

    @Test("a 302 on the enqueue call is followed as a GET; a 307 keeps the POST and its body", arguments: [302, 307])
    func enqueueRedirectFollowed(status: Int) {
        for platform in ClientPlatform.allCases {
            let (result, sent) = simulate(configuration(platform: platform)) { sent in
                if sent.authority == "acme.queue-it.net", sent.path.contains("/enqueue") {
                    return .success(Reply.redirect("https://moved.example/api/enqueue", status: status))
                }
                return .success(Reply.enqueue(token: TokenVectors.safetynet))
            }
            #expect(result.outcome == .passed)
            #expect(result.attempts == 1 && result.requests == 2)
            #expect(sent[1].authority == "moved.example" && sent[1].path == "/api/enqueue")
            #expect(sent[1].method == (status == 307 ? "POST" : "GET"))
            #expect(sent[1].bodyText == (status == 307 ? sent[0].bodyText : ""))
        }
    }

    @Test("a redirect loop on the enqueue call fails the attempt after 20 follow-ups, then retries")
    func enqueueRedirectLoop() {
        let (result, sent) = simulate(configuration()) { _ in
            .success(Reply.redirect("https://acme.queue-it.net/loop"))
        }
        #expect(result.outcome == .unavailable)
        #expect(result.attempts == 5)
        #expect(sent.count == 5 * 21)
        #expect(result.errorMessage == "Too many follow-up requests: 21")
    }

    @Test("a 201 enqueue answer: Android takes any 2xx, iOS only 200 (it retries, then `unavailable`)")
    func successStatuses() {
        let created: (SentRequest) -> Result<IncomingResponse, TransportError> = { _ in
            var reply = Reply.enqueue(token: TokenVectors.safetynet)
            reply.head.status = .created
            return .success(reply)
        }
        let (android, _) = simulate(configuration(platform: .android), respond: created)
        #expect(android.outcome == .passed)
        let (ios, iosSent) = simulate(configuration(platform: .ios), respond: created)
        #expect(ios.outcome == .unavailable)
        #expect(iosSent.count == 5)
        #expect(ios.errorMessage == "Unexpected response code: 201")
    }

    @Test("a 15 s answer passes on iOS (60 s) and times out on Android (10 s), which retries")
    func platformTimeouts() {
        let slowFirst: (SentRequest) -> Duration = { $0.at == .origin ? .seconds(15) : .milliseconds(20) }
        let safetynet: (SentRequest) -> Result<IncomingResponse, TransportError> = { _ in
            .success(Reply.enqueue(token: TokenVectors.safetynet))
        }
        let (ios, iosSent) = simulate(
            configuration(platform: .ios, requestTimeout: nil), latencyOf: slowFirst, respond: safetynet)
        #expect(ios.outcome == .passed && iosSent.count == 1)
        #expect(ios.marks.ended == .seconds(15))
        let (android, androidSent) = simulate(
            configuration(platform: .android, requestTimeout: nil), latencyOf: slowFirst, respond: safetynet)
        #expect(android.outcome == .passed)
        // Timed out at 10 s, retried 1 s later.
        #expect(androidSent.map(\.at) == [.origin, .seconds(11)])
        // `requestTimeout` overrides the platform's.
        let (overridden, _) = simulate(
            configuration(platform: .ios, requestTimeout: .seconds(5)), latencyOf: slowFirst, respond: safetynet)
        #expect(overridden.attempts == 2)
    }

    @Test("request shapes: Android puts userId on the enqueue URL and queue URLs, and its invite code as code=")
    func requestShapes() {
        for platform in ClientPlatform.allCases {
            let (_, sent) = simulate(
                configuration(platform: platform, inviteCode: platform == .android ? "VIP 42" : nil),
                respond: Self.failingQueuePage(failures: 0, passAfter: 2))
            let enqueue = sent[0]
            #expect(enqueue.method == "POST")
            // Both SDKs' JSON writers escape `/`.
            #expect(enqueue.bodyText.hasPrefix(#"{"userId":"visitor-1","userAgent":"queuesim\/1 (test)""#))
            switch platform {
            case .ios:
                #expect(enqueue.header("Content-Type") == "application/json")
                #expect(enqueue.path == "/api/mobileapp/queue/acme/spring/enqueue")
                #expect(sent[1].path == "/?c=acme&e=spring")
            case .android:
                #expect(enqueue.header("Content-Type") == "application/json; charset=utf-8")
                #expect(enqueue.path == "/api/mobileapp/queue/acme/spring/enqueue?userId=visitor-1")
                #expect(sent[1].path == "/?userId=visitor-1&c=acme&e=spring&code=VIP%2042")
                // Later polls keep the rewritten URL.
                #expect(sent[2].path == sent[1].path)
            }
        }
    }

    @Test("Android: a queue URL change without this visitor's userId gets it in front")
    func androidRewritesNavigations() {
        var page = 0
        let (_, sent) = simulate(configuration(platform: .android, queuePageRetry: nil)) { sent in
            if sent.path.contains("/enqueue") { return .success(Reply.enqueue(token: nil)) }
            page += 1
            switch page {
            case 1: return .success(Reply.redirect("/softblock/?c=acme"))
            case 2: return .success(Reply.redirect("/other/?userId=visitor-1&c=acme"))
            default: return .success(Reply.redirect("\(Self.target)?queueittoken=\(TokenVectors.queue)"))
            }
        }
        #expect(sent[2].path == "/softblock/?userId=visitor-1&c=acme")
        #expect(sent[3].path == "/other/?userId=visitor-1&c=acme")
    }

    @Test("the SDKs' own defaults: sdkVersion, timeout, queue page policy, view delay unit")
    func defaults() {
        #expect(ClientPlatform.ios.defaultSDKVersion == "iOS-3.5.1")
        #expect(ClientPlatform.android.defaultSDKVersion == "Android-3.0.0")
        #expect(ClientPlatform.ios.defaultRequestTimeout == .seconds(60))
        #expect(ClientPlatform.android.defaultRequestTimeout == .seconds(10))
        #expect(ClientPlatform.ios.queuePageRetry == .none && ClientPlatform.android.queuePageRetry == .reload)
        #expect(
            ClientPlatform.ios.viewDelay(2) == .seconds(2) && ClientPlatform.android.viewDelay(2) == .milliseconds(2))
        #expect(ClientPlatform.android.defaultUserAgent.hasSuffix("(sdk: com.queue_it.androidsdk@3.0.0)"))
    }
}
