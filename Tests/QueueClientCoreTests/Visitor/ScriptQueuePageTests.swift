import Testing

@testable import QueueClientCore

/// Queue-it's real queue page is an HTML document without `Retry-After` whose own script asks
/// for the visitor's status and navigates at its turn; queuesim runs no script (issue 55,
/// item 7). Such a page is loaded once, as a phone loads it, never reloaded on the poll
/// interval, and its visitors end `queued` at `maxWait` with a cause that says why.
@Suite("A real queue page: loaded once, never stormed")
struct ScriptQueuePageTests {
    static let realPage = Reply.response(
        status: 200, body: "<!DOCTYPE html><html><head><script src=\"/static/queue.js\"></script></head></html>",
        headers: [("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-cache")])

    static func answering(_ page: IncomingResponse, failuresFirst: Int = 0) -> (SentRequest) -> Result<
        IncomingResponse, TransportError
    > {
        var pages = 0
        return { sent in
            if sent.path.contains("/enqueue") { return .success(Reply.enqueue(token: nil)) }
            pages += 1
            return pages <= failuresFirst ? .failure(.connectionReset) : .success(page)
        }
    }

    @Test("an HTML page without Retry-After is loaded once; the visitor ends `queued` at maxWait, with the cause")
    func loadedOnceThenQueued() {
        for platform in ClientPlatform.allCases {
            let (result, sent) = simulate(
                configuration(maxWait: .seconds(120), platform: platform, queuePageRetry: nil),
                respond: Self.answering(Self.realPage))
            #expect(sent.count == 2, "\(platform): the enqueue call and one page load, no reloads")
            #expect(result.outcome == .queued, "\(platform)")
            #expect(result.errorMessage == VisitorMachine.scriptPageCause, "\(platform)")
            #expect(result.errorMessage?.contains("its own script, which queuesim does not run") == true)
            #expect(result.polls == 1)
            #expect(result.marks.ended == .seconds(0.02) + .seconds(120), "\(platform): maxWait from queue entry")
        }
    }

    @Test("Android: a failed first load is still reloaded as the SDK does; the real page then loads once")
    func androidReloadsAFailedLoadOnly() {
        let (result, sent) = simulate(
            configuration(maxWait: .seconds(120), platform: .android, queuePageRetry: nil),
            respond: Self.answering(Self.realPage, failuresFirst: 2))
        #expect(sent.count == 1 + 2 + 1)
        #expect(result.outcome == .queued)
        #expect(result.errorMessage == VisitorMachine.scriptPageCause)
    }

    @Test("a run that ends while the visitor is on the real page: `queued`, with the same cause")
    func runEndsOnTheRealPage() {
        let (result, sent) = simulate(
            configuration(maxWait: .seconds(600), platform: .ios, queuePageRetry: nil), stopAt: .seconds(30),
            respond: Self.answering(Self.realPage))
        #expect(sent.count == 2)
        #expect(result.outcome == .queued)
        #expect(result.errorMessage == VisitorMachine.scriptPageCause)
    }

    @Test("a transport that keeps only the fields the machines read: the body tells the HTML page")
    func htmlBodyWithoutContentType() {
        let page = Reply.response(status: 200, body: "\n  <!DOCTYPE html>\n<html lang=\"en\"></html>")
        let (result, sent) = simulate(
            configuration(maxWait: .seconds(60), platform: .android, queuePageRetry: nil),
            respond: Self.answering(page))
        #expect(sent.count == 2)
        #expect(result.errorMessage == VisitorMachine.scriptPageCause)
    }

    @Test("pages of the queue page protocol still poll: JSON without Retry-After, HTML with it")
    func protocolPagesPoll() {
        let json = Reply.json(#"{"position":1}"#)
        let htmlWithRetry = Reply.response(
            status: 200, body: "<html></html>", headers: [("Content-Type", "text/html"), ("Retry-After", "5")])
        for page in [json, htmlWithRetry] {
            let (result, sent) = simulate(
                configuration(maxWait: .seconds(60), platform: .ios, queuePageRetry: nil),
                respond: Self.answering(page))
            #expect(result.outcome == .queued)
            #expect(result.errorMessage == nil)
            #expect(sent.count > 10, "polled on through maxWait")
        }
    }

    @Test("the SDK facade's navigator: the real page ends the visit as a wait that expired, after one load")
    func navigatorEnding() throws {
        let tryPass = QueueTryPassResult(
            queueUrl: "https://acme.queue-it.net/?c=acme&e=spring", targetUrl: "https://shop.example.com/checkout",
            redirectType: .queue, isPassedThrough: true, queueToken: nil)
        var navigator = try #require(
            QueuePageNavigator(
                tryPass: tryPass, queuePathPrefix: nil,
                settings: .init(pollInterval: .seconds(2), maxWait: .seconds(30), userAgent: "ua")))
        _ = navigator.start(at: .origin)
        #expect(navigator.received(Self.realPage, at: .seconds(1)) == .wait(until: .seconds(30)))
        #expect(navigator.isOnScriptPage)
        #expect(navigator.waited(at: .seconds(30)) == .finish(.queuedOnScriptPage))
        #expect(navigator.polls == 1)
    }
}
