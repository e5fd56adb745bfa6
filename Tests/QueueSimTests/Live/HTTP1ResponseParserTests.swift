import HTTPTypes
import NIOCore
import QueueClientCore
import Testing

@testable import QueueSim

/// The live engine's response reader: framing, split reads, keep-alive, and what it refuses.
@Suite("HTTP/1 response parser")
struct HTTP1ResponseParserTests {
    /// Feeds `text` in pieces of `step` bytes; returns every whole response and the parser.
    static func parse(_ text: String, step: Int = .max, close: Bool = false) throws -> [HTTP1ResponseParser.Response] {
        var parser = HTTP1ResponseParser()
        var responses: [HTTP1ResponseParser.Response] = []
        let bytes = Array(text.utf8)
        var pending = ByteBuffer()
        var offset = 0
        while offset < bytes.count {
            let end = min(bytes.count, offset &+ step)
            pending.writeBytes(bytes[offset..<end])
            offset = end
            while let response = try parser.parse(&pending) { responses.append(response) }
        }
        if close, let response = parser.connectionClosed() { responses.append(response) }
        return responses
    }

    static let withLength =
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{\"a\":\"bcd\"}"

    @Test("Content-Length framing, whole or a byte at a time")
    func contentLength() throws {
        for step in [Int.max, 1, 7] {
            let responses = try Self.parse(Self.withLength, step: step)
            #expect(responses.count == 1)
            let response = try #require(responses.first)
            #expect(response.head.status.code == 200)
            #expect(response.head.status.reasonPhrase == "OK")
            #expect(response.head.headerFields.isEmpty, "framing and unread fields are not handed on")
            #expect(String(decoding: response.body, as: UTF8.self) == "{\"a\":\"bcd\"}")
            #expect(response.keepAlive)
        }
    }

    @Test("a 200 with another reason or with a field the machines read keeps them (only a plain 200 OK is shared)")
    func plainOKAndItsNeighbours() throws {
        let answers = try Self.parse(
            "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"
                + "HTTP/1.1 200 Fine\r\nContent-Length: 0\r\n\r\n"
                + "HTTP/1.1 200 OK\r\nSet-Cookie: a=b\r\nContent-Length: 0\r\n\r\n"
                + "HTTP/1.1 201 OK\r\nContent-Length: 0\r\n\r\n")
        #expect(answers.map(\.head.status.code) == [200, 200, 200, 201])
        #expect(answers.map(\.head.status.reasonPhrase) == ["OK", "Fine", "OK", "OK"])
        #expect(answers.map { $0.head.headerFields[.setCookie] } == [nil, nil, "a=b", nil])
        #expect(answers[0].head == HTTPResponse(status: .ok))
    }

    @Test("chunked bodies with extensions and trailers, split anywhere")
    func chunked() throws {
        let text =
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4;name=x\r\n{\"a\"\r\n3\r\n:1}\r\n0\r\nX-Trailer: t\r\n\r\n"
        for step in [Int.max, 1, 3] {
            let responses = try Self.parse(text, step: step)
            #expect(responses.count == 1)
            #expect(responses.first.map { String(decoding: $0.body, as: UTF8.self) } == "{\"a\":1}")
        }
    }

    @Test("a body that ends with the connection; an unfinished one is no response")
    func closeDelimited() throws {
        let responses = try Self.parse("HTTP/1.1 200 OK\r\n\r\nuntil the end", close: true)
        #expect(responses.count == 1)
        #expect(responses.first.map { String(decoding: $0.body, as: UTF8.self) } == "until the end")
        #expect(responses.first?.keepAlive == false)
        let cut = try Self.parse("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nshort", close: true)
        #expect(cut.isEmpty)
    }

    @Test("interim 1xx answers are skipped; 204 and 304 have no body; two answers in one read")
    func bodilessAndInterim() throws {
        let text = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n" + Self.withLength
        let responses = try Self.parse(text)
        #expect(responses.map(\.head.status.code) == [204, 200])
        #expect(responses.first?.body.isEmpty == true)
    }

    @Test("keep-alive: HTTP/1.1 unless Connection: close; HTTP/1.0 only with keep-alive")
    func keepAlive() throws {
        let close = "HTTP/1.1 200 OK\r\nConnection: Close\r\nContent-Length: 0\r\n\r\n"
        let old = "HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n"
        let oldKept = "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n"
        #expect(try Self.parse(close).first?.keepAlive == false)
        #expect(try Self.parse(old).first?.keepAlive == false)
        #expect(try Self.parse(oldKept).first?.keepAlive == true)
    }

    @Test("names in any case, values without surrounding blanks; only the fields the machines read are kept")
    func headerFields() throws {
        let text =
            "HTTP/1.1 302 Found\r\nlocation:   queueit://close \t\r\nRETRY-AFTER: 3\r\nX-Odd_Name: v\r\n"
            + "Set-Cookie: a=1\r\nset-cookie: b=2\r\nX-QueueIT-Redirect: u=1\r\nDate: today\r\nContent-Length: 0\r\n\r\n"
        let head = try #require(try Self.parse(text).first?.head)
        #expect(head.headerFields[.location] == "queueit://close")
        #expect(head.headerFields[.retryAfter] == "3")
        #expect(head.headerFields[values: .setCookie] == ["a=1", "b=2"])
        #expect(head.headerFields[IncomingResponse.queueRedirectField] == "u=1")
        #expect(head.headerFields[HTTPField.Name("x-odd_name")!] == nil)
        #expect(head.headerFields[.date] == nil)
        #expect(head.headerFields.count == 5)
    }

    @Test(
        "malformed answers are errors",
        arguments: [
            "HTTP/2 200 OK\r\n\r\n",
            "HTTP/1.1 2x0 OK\r\n\r\n",
            "garbage\r\n\r\n",
            "HTTP/1.1 200 OK\r\nContent-Length: 1x\r\n\r\n",
            "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n",
            "HTTP/1.1 200 OK\r\nContent-Length: 5000000\r\n\r\n",
            "HTTP/1.1 200 OK\r\nX-A: 1\r\n folded\r\nContent-Length: 0\r\n\r\n",
            "HTTP/1.1 200 OK\r\nNo colon here\r\n\r\n",
            "HTTP/1.1 200 OK\r\nBad Name: 1\r\nContent-Length: 0\r\n\r\n",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n",
        ])
    func malformed(_ text: String) {
        #expect(throws: HTTP1ResponseParser.ParseError.self) { try Self.parse(text) }
    }

    @Test("a head that never ends is refused past its limit, not buffered forever")
    func endlessHead() {
        let text = "HTTP/1.1 200 OK\r\n" + String(repeating: "X-Filler: 0123456789\r\n", count: 4000)
        #expect(throws: HTTP1ResponseParser.ParseError.self) { try Self.parse(text, step: 4096) }
    }
}
