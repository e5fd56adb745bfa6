import HTTPTypes

/// Builds the mobile enqueue request:
/// `POST https://{host}[/{prefix}]/api/mobileapp/queue/{c}/{e}/enqueue`.
///
/// Headers are the platform's (`PlatformHeaders.enqueue`); Android visitors also carry
/// `?userId=` on the URL. The body is written as both SDKs' JSON writers write it, `/` escaped.
/// Optional body fields are sent only when non-empty (Android's rule; iOS sends a non-nil
/// empty string, which no caller here produces on purpose).
package enum EnqueueRequest {
    /// `sharedHead`: the group's prebuilt head (address, `Accept`, `Content-Type`,
    /// `User-Agent`, built once for all its visitors); used when it is the head `parameters`
    /// would make, so the request is the same either way.
    package static func make(_ parameters: EnqueueParameters) -> OutgoingRequest { make(parameters, sharedHead: nil) }

    package static func make(_ parameters: EnqueueParameters, sharedHead: EnqueueHeaderTemplate?) -> OutgoingRequest {
        if let template = sharedHead, template.fits(parameters) {
            return OutgoingRequest(
                sharedHead: template, body: bodyBytes(parameters))
        }
        var path = parameters.address.enqueuePath
        if parameters.userIdInURL {
            // OkHttp's `addQueryParameter`: the value is query-encoded.
            path += "?userId=" + PercentEncoding.queryComponent(parameters.userId)
        }
        let (fields, layout) = PlatformHeaders.enqueue(platform: parameters.platform, userAgent: parameters.userAgent)
        let head = HTTPRequest(
            method: .post, scheme: "https", authority: parameters.address.host, path: path, headerFields: fields)
        var request = OutgoingRequest(head: head, body: bodyBytes(parameters))
        request.layout = layout
        return request
    }

    /// The JSON body, keys in a fixed order so requests are byte-identical run to run.
    package static func body(_ parameters: EnqueueParameters) -> String {
        String(decoding: bodyBytes(parameters), as: UTF8.self)
    }

    /// The body's UTF-8 bytes, written straight into one buffer (every visitor sends one):
    /// the visitor's id, the members its group shares (written once, `Common`), then its token
    /// or key.
    static func bodyBytes(_ parameters: EnqueueParameters) -> [UInt8] {
        let shared = parameters.common.bodyAfterUserId
        var out: [UInt8] = []
        // Room for every member unescaped (`"key":"value",` is the texts and six bytes) and a
        // little escaping.
        func room(_ value: String?) -> Int { value.map { $0.utf8.count + 16 } ?? 0 }
        out.reserveCapacity(
            2 + 16 + room(parameters.userId) + shared.count + room(parameters.enqueueToken)
                + room(parameters.enqueueKey))
        out.append(UInt8(ascii: "{"))
        appendMember("userId", parameters.userId, to: &out)
        out.append(contentsOf: shared)
        if let token = parameters.enqueueToken, !token.isEmpty {
            out.append(UInt8(ascii: ","))
            appendMember("enqueueToken", token, to: &out)
        }
        if let key = parameters.enqueueKey, !key.isEmpty {
            out.append(UInt8(ascii: ","))
            appendMember("enqueueKey", key, to: &out)
        }
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// The members between the visitor's id and its token or key, in the body's fixed order,
    /// each with the comma before it. Optional members are sent only when non-empty.
    static func sharedMembers(_ shared: EnqueueParameters.Shared) -> [UInt8] {
        var out: [UInt8] = []
        func member(_ key: String, _ value: String) {
            out.append(UInt8(ascii: ","))
            appendMember(key, value, to: &out)
        }
        member("userAgent", shared.userAgent)
        member("sdkVersion", shared.sdkVersion)
        if let layoutName = shared.layoutName, !layoutName.isEmpty { member("layoutName", layoutName) }
        if let language = shared.language, !language.isEmpty { member("language", language) }
        return out
    }

    /// `"key":"value"`, both escaped as the SDKs' writers escape them.
    private static func appendMember(_ key: String, _ value: String, to out: inout [UInt8]) {
        JSONText.appendQuoted(key, to: &out, escapingSolidus: true)
        out.append(UInt8(ascii: ":"))
        JSONText.appendQuoted(value, to: &out, escapingSolidus: true)
    }
}
