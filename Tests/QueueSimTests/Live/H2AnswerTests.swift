import HTTPTypes
import NIOCore
import NIOHPACK
import QueueClientCore
import StandInServers
import Testing

@testable import QueueSim

/// Answers a phone's stack refuses (issue 55, item 8): the frame codec checks frames, not
/// fields, so `H2AnswerReader` judges each answer by RFC 9113's field rules; a malformed
/// answer fails its request, in words, and is not sent again.
@Suite("HTTP/2 client: malformed answers", .serialized, .timeLimit(.minutes(1)))
struct H2AnswerTests {
    typealias Field = H2StandInRequest.Field

    static let malformed: [(fields: [Field], says: String)] = [
        ([Field(name: "X-Custom", value: "1")], "an HTTP/2 answer with an invalid field name"),
        ([Field(name: "connection", value: "keep-alive")], "a connection-specific field (connection)"),
        ([Field(name: "transfer-encoding", value: "chunked")], "a connection-specific field (transfer-encoding)"),
        ([Field(name: "x-a", value: "1"), Field(name: ":status", value: "200")], "after a regular one (:status)"),
        ([Field(name: ":path", value: "/x")], "a pseudo-header field it may not carry (:path)"),
        ([Field(name: "x-a", value: "a\rb")], "NUL, CR or LF in the value of x-a"),
        ([Field(name: "content-length", value: "99")], "content-length fields that disagree"),
    ]

    @Test("an answer that breaks h2's field rules fails its request in words, sent once")
    func malformedAnswers() async throws {
        for item in Self.malformed {
            var options = H2StandInServer.Options()
            options.respond = { _ in H2StandInResponse(status: 200, headers: item.fields, body: Array("ok".utf8)) }
            try await H2StandInServer.with(options) { server in
                let completions = try await H2ClientFixture.send([H2ClientFixture.get("/a")], to: server)
                guard case .failure(let error) = completions.first?.result else {
                    Issue.record("\(item.fields): expected a failure, got \(String(describing: completions.first))")
                    return
                }
                #expect(error.description.contains(item.says), "\(item.fields): \(error)")
                #expect(server.requests.count == 1, "\(item.fields): not sent again")
            }
        }
    }

    @Test("a well-formed answer with fields of every kind is read")
    func wellFormedAnswer() async throws {
        var options = H2StandInServer.Options()
        let fields = [
            Field(name: "cache-control", value: "no-cache"), Field(name: "x-queueit-sdk", value: "a b\tc"),
            Field(name: "retry-after", value: "5"),
        ]
        options.respond = { _ in H2StandInResponse(status: 429, headers: fields, body: Array("slow".utf8)) }
        try await H2StandInServer.with(options) { server in
            let completions = try await H2ClientFixture.send([H2ClientFixture.get("/a")], to: server)
            let answer = try #require(try completions.first?.result.get())
            #expect(answer.status.code == 429)
            #expect(answer.body == Array("slow".utf8))
            #expect(answer.head.headerFields[.retryAfter] == "5")
        }
    }

    /// The frames the stand-in cannot send wrongly, read directly.
    @Test("DATA short of or beyond content-length, trailers with a pseudo-header, a HEAD's answer")
    func lengthsAndTrailers() {
        let head = HPACKHeaders([(":status", "200"), ("content-length", "4")])
        var short = H2AnswerReader()
        #expect(short.headers(head, endStream: false) == .partial)
        #expect(
            short.data(ByteBuffer(bytes: Array("ok".utf8)), endStream: true)
                == .unreadable("an HTTP/2 answer whose DATA (2 bytes) ended short of its content-length (4)"))
        var long = H2AnswerReader()
        _ = long.headers(head, endStream: false)
        #expect(
            long.data(ByteBuffer(bytes: Array("toolong".utf8)), endStream: true)
                == .unreadable("an HTTP/2 answer with more DATA than its content-length (4)"))
        var trailed = H2AnswerReader()
        _ = trailed.headers(head, endStream: false)
        _ = trailed.data(ByteBuffer(bytes: Array("four".utf8)), endStream: false)
        #expect(
            trailed.headers(HPACKHeaders([(":status", "200")]), endStream: true)
                == .unreadable("HTTP/2 trailers with a pseudo-header field (:status)"))
        var trailers = H2AnswerReader()
        _ = trailers.headers(head, endStream: false)
        _ = trailers.data(ByteBuffer(bytes: Array("four".utf8)), endStream: false)
        guard case .answered(let answer) = trailers.headers(HPACKHeaders([("x-checksum", "1")]), endStream: true)
        else {
            Issue.record("trailers without pseudo-header fields end the answer")
            return
        }
        #expect(answer.body == Array("four".utf8))
        var headAnswer = H2AnswerReader(headRequest: true)
        guard case .answered = headAnswer.headers(head, endStream: true) else {
            Issue.record("a HEAD's answer carries a content-length and no DATA")
            return
        }
        var noStatus = H2AnswerReader()
        #expect(
            noStatus.headers(HPACKHeaders([("x-a", "1")]), endStream: true)
                == .unreadable("an HTTP/2 answer without a valid :status"))
    }
}

/// Requests an h2 connection carries leave when the pool flushes, wherever it flushes from: a
/// visitor's next request is sent from a timer, outside any read. When writes were gathered
/// into one TLS record by a handler of their own, a flush that skipped it left such a request
/// unsent and the run hung (`1bf98bf`, reverted in `523b544`); the codec gathers them now.
@Suite("HTTP/2 client: requests sent from a timer", .serialized, .timeLimit(.minutes(1)))
struct H2TimerSendTests {
    @Test("requests sent 20 ms after the last answer, outside any read, are answered on one connection")
    func sentFromTimer() async throws {
        try await H2StandInServer.with { server in
            let completions = try await H2ClientFixture.send(
                ["/a", "/b", "/c"].map(H2ClientFixture.get), to: server, bound: .seconds(5),
                gap: .milliseconds(20))
            #expect(completions.map { (try? $0.result.get())?.status.code } == [200, 200, 200])
            #expect(server.requests.map(\.streamID) == [1, 3, 5])
            #expect(server.connections.count == 1)
        }
    }
}
