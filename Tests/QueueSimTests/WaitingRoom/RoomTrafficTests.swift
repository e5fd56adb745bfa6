import HTTPTypes
import Testing

@testable import QueueSim

/// `queuesim serve`'s line per second (issue 29, item 7): requests by route, with every answer
/// that was not a success or a redirect.
@Suite("room traffic: serve's line per second")
struct RoomTrafficTests {
    static func reply(_ status: Int) -> RoomReply {
        .response(HTTPResponse(status: HTTPResponse.Status(code: status)), body: [], delay: .zero)
    }

    @Test func routesAreCountedAndUnusualAnswersNamed() {
        var traffic = RoomTraffic()
        let enqueue: Substring = "/queue/api/mobileapp/queue/acme/launch/enqueue"
        traffic.count(path: enqueue, reply: Self.reply(200))
        traffic.count(path: enqueue, reply: Self.reply(503))
        traffic.count(path: enqueue, reply: Self.reply(503))
        traffic.count(path: enqueue, reply: Self.reply(400))
        traffic.count(path: "/queue/acme/launch", reply: Self.reply(200))
        traffic.count(path: "/queue/acme/launch", reply: Self.reply(302))
        traffic.count(path: "/queue/acme/launch", reply: .reset(after: .zero))
        traffic.count(path: "/api/protected", reply: .noAnswer)
        traffic.count(path: "/favicon.ico", reply: Self.reply(404))
        #expect(traffic.total == 9)
        #expect(
            traffic.line(second: 12, tickets: 1234)
                == "second 12: 9 requests: enqueue 4 (400 ×1, 503 ×2), queue page 3 (reset ×1), protected API 1 (no answer ×1), other 1 (404 ×1); 1234 enqueued so far"
        )
        #expect(RoomTraffic().total == 0)
    }
}
