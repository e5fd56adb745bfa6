/// What a KnownUser connector's `x-queueit-redirect` header asks the app to run.
package struct QueueRedirectInstruction: Sendable, Hashable {
    package var address: WaitingRoomAddress
    package var enqueueToken: String?
    /// `l` and `cid` from the redirect (the connector's layout and culture), if present.
    package var layoutName: String?
    package var language: String?

    /// Parses the header value: URL-decoded once, then `c`, `e`, `enqueuetoken`, `l`, `cid`,
    /// the host (a waiting-room domain unless it is `{c}.queue-it.net`) and the path (a queue
    /// path prefix when not empty). Nil without `c` and `e`.
    package init?(headerValue: String) {
        let decoded = PercentEncoding.decode(headerValue)
        guard let url = SimpleURL(decoded), let customerId = url.queryValue("c"), !customerId.isEmpty,
            let waitingRoomId = url.queryValue("e"), !waitingRoomId.isEmpty
        else { return nil }
        let isQueueItHost = url.host.caseInsensitiveEquals("\(customerId).queue-it.net") && url.port == nil
        self.address = WaitingRoomAddress(
            customerId: customerId, waitingRoomId: waitingRoomId,
            waitingRoomDomain: isQueueItHost ? nil : url.authority,
            queuePathPrefix: isQueueItHost ? nil : url.path)
        self.enqueueToken = url.queryValue("enqueuetoken").flatMap { $0.isEmpty ? nil : $0 }
        self.layoutName = url.queryValue("l").flatMap { $0.isEmpty ? nil : $0 }
        self.language = url.queryValue("cid").flatMap { $0.isEmpty ? nil : $0 }
    }
}
