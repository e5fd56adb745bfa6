import HTTPTypes

/// The enqueue call's head for one waiting-room address, platform and `User-Agent`, built once
/// per group (see `EnqueueParameters`).
package final class EnqueueHeaderTemplate: Sendable {
    let address: WaitingRoomAddress
    let userAgent: String
    let platform: ClientPlatform
    let head: HTTPRequest
    let layout: HeadLayout
    /// The body's `"userAgent":"…"` member, escaped once (a user agent has several `/` to
    /// escape, and every visitor's body carries it).
    let userAgentMember: [UInt8]

    init(address: WaitingRoomAddress, userAgent: String, platform: ClientPlatform) {
        self.address = address
        self.userAgent = userAgent
        self.platform = platform
        let (fields, layout) = PlatformHeaders.enqueue(platform: platform, userAgent: userAgent)
        head = HTTPRequest(
            method: .post, scheme: "https", authority: address.host, path: address.enqueuePath, headerFields: fields)
        self.layout = layout
        userAgentMember = EnqueueRequest.member("userAgent", userAgent)
    }

    /// Whether `parameters` would make this head: the same host, path, platform and
    /// `User-Agent`. Bytes, not `==`: a canonically equal text with other bytes is sent as given.
    func fits(_ parameters: EnqueueParameters) -> Bool {
        !parameters.userIdInURL && parameters.platform == platform && Self.sameBytes(parameters.userAgent, userAgent)
            && Self.sameBytes(parameters.address.host, address.host)
            && Self.sameBytes(parameters.address.enqueuePath, address.enqueuePath)
    }

    private static func sameBytes(_ one: String, _ other: String) -> Bool {
        // The request's texts are usually the template's own (one group configuration): the
        // same storage is the same bytes, without comparing them.
        ASCIIByte.withBytes(of: one, other) { one, other in
            one.count == other.count && (one.baseAddress == other.baseAddress || ASCIIByte.equal(one, other))
        }
    }
}
