import HTTPTypes

/// Everything one enqueue call sends, apart from where it goes.
package struct EnqueueParameters: Sendable, Hashable {
    package var address: WaitingRoomAddress
    package var userId: String
    package var userAgent: String
    package var sdkVersion: String
    package var layoutName: String?
    package var language: String?
    package var enqueueToken: String?
    package var enqueueKey: String?
    /// Android: `?userId={userId}` on the URL too (`QueueITApiClient.getApiUrl`).
    package var userIdInURL: Bool

    package init(
        address: WaitingRoomAddress, userId: String, userAgent: String, sdkVersion: String,
        layoutName: String? = nil, language: String? = nil, enqueueToken: String? = nil, enqueueKey: String? = nil,
        userIdInURL: Bool = false
    ) {
        self.userIdInURL = userIdInURL
        self.address = address
        self.userId = userId
        self.userAgent = userAgent
        self.sdkVersion = sdkVersion
        self.layoutName = layoutName
        self.language = language
        self.enqueueToken = enqueueToken
        self.enqueueKey = enqueueKey
    }

}

/// Builds the mobile enqueue request:
/// `POST https://{host}[/{prefix}]/api/mobileapp/queue/{c}/{e}/enqueue`.
///
/// Headers follow iOS (`Accept` and `Content-Type: application/json`) plus Android's
/// `User-Agent` header, so a server log can tell simulated visitors apart; Android visitors
/// also carry `?userId=` on the URL.
/// Optional body fields are sent only when non-empty (Android's rule; iOS sends a non-nil
/// empty string, which no caller here produces on purpose).
package enum EnqueueRequest {
    /// `sharedHead`: the group's prebuilt head (address, `Accept`, `Content-Type`,
    /// `User-Agent`, built once for all its visitors); used when it is the head `parameters`
    /// would make, so the request is the same either way.
    package static func make(_ parameters: EnqueueParameters) -> OutgoingRequest { make(parameters, sharedHead: nil) }

    package static func make(_ parameters: EnqueueParameters, sharedHead: EnqueueHeaderTemplate?) -> OutgoingRequest {
        if let template = sharedHead, template.fits(parameters) {
            return OutgoingRequest(sharedHead: template, body: bodyBytes(parameters))
        }
        var path = parameters.address.enqueuePath
        if parameters.userIdInURL {
            // OkHttp's `addQueryParameter`: the value is query-encoded.
            path += "?userId=" + PercentEncoding.queryComponent(parameters.userId)
        }
        let head = HTTPRequest(
            method: .post, scheme: "https", authority: parameters.address.host, path: path,
            headerFields: headerFields(userAgent: parameters.userAgent))
        return OutgoingRequest(head: head, body: bodyBytes(parameters))
    }

    /// The request's header fields, in this order.
    static func headerFields(userAgent: String) -> HTTPFields {
        var fields = HTTPFields()
        fields[.accept] = "application/json"
        fields[.contentType] = "application/json"
        fields[.userAgent] = userAgent
        return fields
    }

    /// The JSON body, keys in a fixed order so requests are byte-identical run to run.
    package static func body(_ parameters: EnqueueParameters) -> String {
        String(decoding: bodyBytes(parameters), as: UTF8.self)
    }

    /// The body's UTF-8 bytes, written straight into one buffer (every visitor sends one).
    static func bodyBytes(_ parameters: EnqueueParameters) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(160)
        out.append(UInt8(ascii: "{"))
        func member(_ key: String, _ value: String) {
            if out.count > 1 { out.append(UInt8(ascii: ",")) }
            JSONText.appendQuoted(key, to: &out)
            out.append(UInt8(ascii: ":"))
            JSONText.appendQuoted(value, to: &out)
        }
        member("userId", parameters.userId)
        member("userAgent", parameters.userAgent)
        member("sdkVersion", parameters.sdkVersion)
        // Not a loop over an array literal: that array would be allocated for every visitor.
        func optionalMember(_ key: String, _ value: String?) {
            if let value, !value.isEmpty { member(key, value) }
        }
        optionalMember("layoutName", parameters.layoutName)
        optionalMember("language", parameters.language)
        optionalMember("enqueueToken", parameters.enqueueToken)
        optionalMember("enqueueKey", parameters.enqueueKey)
        out.append(UInt8(ascii: "}"))
        return out
    }
}

/// The enqueue call's head for one waiting-room address and `User-Agent`, built once per
/// group (see `EnqueueParameters`).
package final class EnqueueHeaderTemplate: Sendable {
    let address: WaitingRoomAddress
    let userAgent: String
    let head: HTTPRequest

    init(address: WaitingRoomAddress, userAgent: String) {
        self.address = address
        self.userAgent = userAgent
        head = HTTPRequest(
            method: .post, scheme: "https", authority: address.host, path: address.enqueuePath,
            headerFields: EnqueueRequest.headerFields(userAgent: userAgent))
    }

    /// Whether `parameters` would make this head: the same host, path and `User-Agent`. Bytes,
    /// not `==`: a canonically equal text with other bytes is sent as given.
    func fits(_ parameters: EnqueueParameters) -> Bool {
        !parameters.userIdInURL && Self.sameBytes(parameters.userAgent, userAgent)
            && Self.sameBytes(parameters.address.host, address.host)
            && Self.sameBytes(parameters.address.enqueuePath, address.enqueuePath)
    }

    private static func sameBytes(_ one: String, _ other: String) -> Bool {
        var one = one
        var other = other
        // The request's texts are usually the template's own (one group configuration): the
        // same storage is the same bytes, without comparing them.
        return one.withUTF8 { one in
            other.withUTF8 { other in
                one.count == other.count && (one.baseAddress == other.baseAddress || one.elementsEqual(other))
            }
        }
    }
}
