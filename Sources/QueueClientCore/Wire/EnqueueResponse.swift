import Foundation

/// The enqueue API's answer: `{QueueId, QueueUrl, EventTargetUrl, QueueitToken,
/// QueueUrlTTLInMinutes}` (PascalCase; note `QueueitToken`).
///
/// Tolerant like the SDKs: a missing key, a JSON null or a value of the wrong type becomes nil
/// (iOS keeps only JSON strings); the TTL is read as an integer when it is a number, else 0
/// (Android). Only a body that is not a JSON object is rejected, and the caller retries it.
package struct EnqueueResponse: Sendable, Hashable {
    package var queueId: String?
    package var queueUrl: String?
    package var eventTargetUrl: String?
    package var queueitToken: String?
    package var queueUrlTTLInMinutes: Int

    package init(
        queueId: String? = nil, queueUrl: String? = nil, eventTargetUrl: String? = nil, queueitToken: String? = nil,
        queueUrlTTLInMinutes: Int = 0
    ) {
        self.queueId = queueId
        self.queueUrl = queueUrl
        self.eventTargetUrl = eventTargetUrl
        self.queueitToken = queueitToken
        self.queueUrlTTLInMinutes = queueUrlTTLInMinutes
    }

    /// Nil when `body` is not a JSON object (empty, HTML, an array, truncated JSON…).
    package init?(jsonBody body: [UInt8]) {
        guard let response = Self.read(jsonBody: body) else { return nil }
        self = response
    }

    /// `init?(jsonBody:)` as a function: a failable initializer's `self` was copied into its
    /// result (a retain and a release of each member's text); a local passed `inout` to the
    /// reader, not captured by its closure, is moved out.
    package static func read(jsonBody body: [UInt8]) -> EnqueueResponse? {
        var response = EnqueueResponse()
        let selection = FlatJSONObject.select(body, keys: Self.memberKeys, into: &response) { response, key, value in
            switch (key, value) {
            case (0, .string(let text)): response.queueId = text
            case (1, .string(let text)): response.queueUrl = text
            case (2, .string(let text)): response.eventTargetUrl = text
            case (3, .string(let text)): response.queueitToken = text
            case (4, .integer(let minutes)): response.queueUrlTTLInMinutes = minutes
            default: break
            }
        }
        switch selection {
        case .selected:
            return response
        case .notFlat:
            return JSONObject.parse(body).map(EnqueueResponse.init(jsonObject:))
        case .undecided:
            break
        }
        if let members = FlatJSONObject.parseMembers(body) { return EnqueueResponse(flatMembers: members) }
        return JSONObject.parse(body).map(EnqueueResponse.init(jsonObject:))
    }

    /// The members `read(jsonBody:)` reads, in the order its selection numbers them.
    private static let memberKeys: [[UInt8]] = [
        "QueueId", "QueueUrl", "EventTargetUrl", "QueueitToken", "QueueUrlTTLInMinutes",
    ].map { Array($0.utf8) }

    /// The reading of a body outside the fast reader's subset, through `JSONSerialization`.
    private init(jsonObject object: [String: Any]) {
        func string(_ key: String) -> String? { object[key] as? String }
        let minutes: Int
        switch object["QueueUrlTTLInMinutes"] {
        case let whole as Int: minutes = whole
        case let fractional as Double where fractional.isFinite && abs(fractional) < 1e9: minutes = Int(fractional)
        default: minutes = 0
        }
        self.init(
            queueId: string("QueueId"), queueUrl: string("QueueUrl"), eventTargetUrl: string("EventTargetUrl"),
            queueitToken: string("QueueitToken"), queueUrlTTLInMinutes: minutes)
    }
}

extension EnqueueResponse {
    /// The same reading as the `JSONSerialization` path, over the fast reader's members: only
    /// strings are strings, and the TTL is an integer or 0.
    init(flatMembers members: [String: FlatJSONObject.Value]) {
        self.init(flatMembers: FlatJSONObject.Members(members))
    }

    init(flatMembers members: FlatJSONObject.Members) {
        func string(_ key: String) -> String? {
            if case .string(let text)? = members[key] { return text }
            return nil
        }
        self.init(
            queueId: string("QueueId"), queueUrl: string("QueueUrl"), eventTargetUrl: string("EventTargetUrl"),
            queueitToken: string("QueueitToken"))
        if case .integer(let minutes)? = members["QueueUrlTTLInMinutes"] { queueUrlTTLInMinutes = minutes }
    }
}
