import HTTPTypes
import Testing

@testable import QueueSim

/// `RoomRequest` reads ASCII targets over bytes and the query on demand; what it reads must be
/// what the `Character`-based parsing read.
@Suite struct RoomRequestParsingTests {
    static func request(_ path: String, authority: String? = "Acme.Queue-It.net:443") -> RoomRequest {
        RoomRequest(HTTPRequest(method: .get, scheme: "https", authority: authority, path: path))
    }

    @Test func hostLosesItsPortAndCapitals() {
        #expect(Self.request("/").host == "acme.queue-it.net")
        #expect(Self.request("/", authority: "acme.queue-it.net").host == "acme.queue-it.net")
        #expect(Self.request("/", authority: "[::1]:8080").host == "[::1]")
        #expect(Self.request("/", authority: "ÄCME.example:80").host == "äcme.example")
    }

    @Test func pathSegmentsSkipEmptyOnes() {
        #expect(Self.request("//queue/acme//launch/?q=1").pathSegments == ["queue", "acme", "launch"])
        #expect(Self.request("/").pathSegments == [])
        #expect(Self.request("").pathSegments == [])
        #expect(Self.request("queue").pathSegments == ["queue"])
        #expect(Self.request("a///b?x=/y/").pathSegments == ["a", "b"])
        // Bytes, as an HTTP server splits a target: a `/` before a combining mark still separates.
        #expect(Self.request("/a/\u{301}b/c").pathSegments == ["a", "\u{301}b", "c"])
        #expect(Self.request("/a?").pathSegments == ["a"] && Self.request("?/a").pathSegments == [])
    }

    @Test func queryValueIsTheFirstDecodedMatch() {
        let request = Self.request("/queue/acme/launch?x=1&q=first&q=second&flag&e%6E=%41+b&empty=")
        #expect(request.queryValue("q") == "first")
        #expect(request.queryValue("flag") == "")
        #expect(request.queryValue("en") == "A b")
        #expect(request.queryValue("empty") == "")
        #expect(request.queryValue("missing") == nil)
        for item in request.query {
            #expect(request.queryValue(item.name) == request.query.first(where: { $0.name == item.name })?.value)
        }
        #expect(Self.request("/queue").queryValue("q") == nil)
        #expect(Self.request("/queue?").queryValue("q") == nil)
        #expect(Self.request("/queue?&&q=1&").queryValue("q") == "1")
        #expect(Self.request("/queue?q").queryValue("q") == "")
        #expect(Self.request("/queue?=v&q=2").queryValue("") == "v")
    }

    @Test func nonASCIIQueriesSplitOverBytes() {
        let request = Self.request("/q?a=é&b=2")
        #expect(request.queryValue("a") == "é")
        #expect(request.queryValue("b") == "2")
        #expect(request.query.map(\.name) == ["a", "b"])
    }
}

extension RoomRequest {
    /// The segments `path.withSegments` hands out, as text.
    fileprivate var pathSegments: [String] {
        path.withSegments { segments in (0..<segments.count).map(segments.text) }
    }
}
