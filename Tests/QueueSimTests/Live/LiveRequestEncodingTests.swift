import HTTPTypes
import NIOCore
import QueueClientCore
import Testing

@testable import QueueSim

/// The live engine writes requests itself; an enqueue head it has written once for a group is
/// reused for the group's other visitors. Both paths must give the bytes a server reads.
@Suite("LiveRequestEncoding")
struct LiveRequestEncodingTests {
    static func configuration(
        userId: String, enqueueKey: String? = nil, waitingRoomId: String = "launch",
        userAgent: String = "queuesim/1 (virtual visitor)"
    ) -> VisitorConfiguration {
        VisitorConfiguration(
            group: VisitorGroupSettings(
                customerId: "acme", waitingRoomId: waitingRoomId, userAgent: userAgent, sdkVersion: "iOS-3.5.2"),
            userId: userId, enqueueKey: enqueueKey)
    }

    static func text(_ buffer: ByteBuffer) -> String { String(buffer: buffer) }

    @Test("an enqueue request, byte for byte: the shared head gives the same bytes as encoding it afresh")
    func enqueueBytes() {
        var heads = EncodedHeads()
        let allocator = ByteBufferAllocator()
        // Bodies of different lengths: Content-Length is written for each, within the shared head.
        for (userId, key) in [("u", nil), ("visitor-0002", "k-1"), (String(repeating: "x", count: 900), "k-22")] {
            let configuration = Self.configuration(userId: userId, enqueueKey: key)
            let request = EnqueueRequest.make(
                configuration.enqueueParameters, sharedHead: configuration.sharedEnqueueHead)
            #expect(request.sharedHead != nil)
            let body = String(decoding: request.body ?? [], as: UTF8.self)
            let expected =
                "POST /api/mobileapp/queue/acme/launch/enqueue HTTP/1.1\r\nHost: acme.queue-it.net\r\n"
                + "Content-Type: application/json\r\nConnection: keep-alive\r\nAccept: application/json\r\n"
                + "User-Agent: \(PlatformHeaders.cfNetworkUserAgent)\r\nContent-Length: \(body.utf8.count)\r\n"
                + "Accept-Language: en-US,en;q=0.9\r\nAccept-Encoding: gzip, deflate\r\n\r\n\(body)"
            let plain = LiveRequestEncoding.encode(request, defaultAuthority: "127.0.0.1:9", allocator: allocator)
            let shared = LiveRequestEncoding.encode(
                request, defaultAuthority: "127.0.0.1:9", allocator: allocator, heads: &heads)
            #expect(Self.text(plain) == expected)
            #expect(Self.text(shared) == expected)
        }
    }

    @Test("a request whose head was changed after it was made is encoded as changed, not from the shared head")
    func changedHeadIsNotShared() {
        var heads = EncodedHeads()
        let allocator = ByteBufferAllocator()
        let configuration = Self.configuration(userId: "a")
        let original = EnqueueRequest.make(
            configuration.enqueueParameters, sharedHead: configuration.sharedEnqueueHead)
        #expect(original.sharedHead != nil)
        _ = LiveRequestEncoding.encode(original, defaultAuthority: "h", allocator: allocator, heads: &heads)
        var changed = original
        changed.head.headerFields[.cookie] = "x=1"
        #expect(changed.sharedHead == nil)
        #expect(changed != original)
        let bytes = Self.text(
            LiveRequestEncoding.encode(changed, defaultAuthority: "h", allocator: allocator, heads: &heads))
        #expect(bytes.contains("\r\nCookie: x=1\r\n"))
    }

    @Test("a shared head's request keeps the platform's layout when its head changes; another layout is not shared")
    func layoutOfSharedHead() throws {
        let configuration = Self.configuration(userId: "a")
        let template = try #require(configuration.sharedEnqueueHead)
        let shared = EnqueueRequest.make(configuration.enqueueParameters, sharedHead: template)
        let alone = EnqueueRequest.make(configuration.enqueueParameters)
        #expect(shared.sharedHead != nil && alone.sharedHead == nil)
        #expect(shared.layout == alone.layout)
        #expect(shared.layout != .hostFirst, "iOS writes Content-Length before Accept-Language")
        var redirected = shared
        redirected.head.path = "/elsewhere"
        #expect(redirected.sharedHead == nil)
        #expect(redirected.layout == alone.layout)
        var relaid = shared
        relaid.layout = .hostFirst
        #expect(relaid.sharedHead == nil, "another layout is another head's bytes")
        #expect(relaid.head == shared.head)
        #expect(relaid.layout == .hostFirst)
    }

    @Test("a spare buffer gives the same bytes, and one still held elsewhere (a pending write) is left as it was")
    func spareBuffer() {
        var heads = EncodedHeads()
        let allocator = ByteBufferAllocator()
        let long = Self.configuration(userId: String(repeating: "l", count: 700), enqueueKey: "k-1")
        let short = Self.configuration(userId: "s", enqueueKey: nil)
        let first = EnqueueRequest.make(long.enqueueParameters, sharedHead: long.sharedEnqueueHead)
        let second = EnqueueRequest.make(short.enqueueParameters, sharedHead: short.sharedEnqueueHead)
        let expected = Self.text(LiveRequestEncoding.encode(second, defaultAuthority: "h", allocator: allocator))

        // Nothing else holds the spare: its bytes are overwritten with the next request's.
        let spare = LiveRequestEncoding.encode(first, defaultAuthority: "h", allocator: allocator, heads: &heads)
        let memory = spare.withUnsafeReadableBytes { Int(bitPattern: $0.baseAddress) }
        let reused = LiveRequestEncoding.encode(
            second, defaultAuthority: "h", allocator: allocator, heads: &heads, reusing: consume spare)
        #expect(Self.text(reused) == expected)
        #expect(reused.withUnsafeReadableBytes { Int(bitPattern: $0.baseAddress) } == memory, "written in place")

        // The write still holds it: encoding into it must not change what the write sends.
        let pending = LiveRequestEncoding.encode(first, defaultAuthority: "h", allocator: allocator, heads: &heads)
        let before = Self.text(pending)
        let next = LiveRequestEncoding.encode(
            second, defaultAuthority: "h", allocator: allocator, heads: &heads, reusing: pending)
        #expect(Self.text(next) == expected)
        #expect(Self.text(pending) == before)
    }

    @Test("more groups than the encoded heads keep: each request still gets its own group's head")
    func moreGroupsThanKept() {
        var heads = EncodedHeads()
        let allocator = ByteBufferAllocator()
        let groups = (0..<(EncodedHeads.capacity + 3)).map { group in
            Self.configuration(userId: "u\(group)", waitingRoomId: "room\(group)", userAgent: "agent/\(group)")
        }
        for _ in 0..<2 {
            for configuration in groups {
                let request = EnqueueRequest.make(
                    configuration.enqueueParameters, sharedHead: configuration.sharedEnqueueHead)
                let plain = LiveRequestEncoding.encode(request, defaultAuthority: "h", allocator: allocator)
                let shared = LiveRequestEncoding.encode(
                    request, defaultAuthority: "h", allocator: allocator, heads: &heads)
                #expect(Self.text(shared) == Self.text(plain))
            }
        }
    }

    @Test("requests without a body end with the blank line; a head without authority names the endpoint")
    func bodilessRequest() {
        let head = HTTPRequest(method: .get, scheme: "https", authority: nil, path: "/queue/acme/launch?q=1")
        let bytes = Self.text(
            LiveRequestEncoding.encode(
                OutgoingRequest(head: head), defaultAuthority: "127.0.0.1:8080", allocator: ByteBufferAllocator()))
        #expect(bytes == "GET /queue/acme/launch?q=1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n")
    }
}
