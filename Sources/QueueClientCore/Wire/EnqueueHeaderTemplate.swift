import HTTPTypes

/// The enqueue call's head for one waiting-room address, platform and `User-Agent`, built once
/// per group (see `EnqueueParameters`).
package final class EnqueueHeaderTemplate: Sendable {
    let address: WaitingRoomAddress
    let userAgent: String
    let platform: ClientPlatform
    let head: HTTPRequest
    let layout: HeadLayout

    init(address: WaitingRoomAddress, userAgent: String, platform: ClientPlatform) {
        self.address = address
        self.userAgent = userAgent
        self.platform = platform
        let (fields, layout) = PlatformHeaders.enqueue(platform: platform, userAgent: userAgent)
        head = HTTPRequest(
            method: .post, scheme: "https", authority: address.host, path: address.enqueuePath, headerFields: fields)
        self.layout = layout
    }

    /// Whether `parameters` would make this head: the same host, path, platform and
    /// `User-Agent`. Bytes, not `==`: a canonically equal text with other bytes is sent as given.
    func fits(_ parameters: EnqueueParameters) -> Bool {
        // Through `common.shared`, not the parameters' getters: those return copies.
        !parameters.common.shared.userIdInURL && parameters.common.shared.platform == platform
            && Self.sameBytes(parameters.common.shared.userAgent, userAgent)
            && Self.sameBytes(parameters.common.shared.address.host, address.host)
            && Self.sameBytes(parameters.common.shared.address.enqueuePath, address.enqueuePath)
    }

    private static func sameBytes(_ one: String, _ other: String) -> Bool {
        // The request's texts are usually the template's own (one group configuration): the
        // same storage is the same bytes, without comparing them.
        ASCIIByte.withBytes(of: one, other) { one, other in
            one.count == other.count && (one.baseAddress == other.baseAddress || ASCIIByte.equal(one, other))
        }
    }
}
