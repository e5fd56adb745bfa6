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
                sharedHead: template, body: bodyBytes(parameters, userAgentMember: template.userAgentMember))
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

    /// The body's UTF-8 bytes, written straight into one buffer (every visitor sends one).
    /// `userAgentMember`: `member("userAgent", parameters.userAgent)` written already (a
    /// group's template keeps it).
    static func bodyBytes(_ parameters: EnqueueParameters, userAgentMember: [UInt8]? = nil) -> [UInt8] {
        var out: [UInt8] = []
        // Room for every member unescaped (`"key":"value",` is the texts and six bytes) and a
        // little escaping: a fixed 160 bytes was outgrown by most bodies (an iOS user agent
        // alone is over 100), which then moved to a second buffer.
        func room(_ value: String?) -> Int { value.map { $0.utf8.count + 16 } ?? 0 }
        out.reserveCapacity(
            2 + 64 + (userAgentMember?.count ?? room(parameters.userAgent)) + room(parameters.userId)
                + room(parameters.sdkVersion) + room(parameters.layoutName) + room(parameters.language)
                + room(parameters.enqueueToken) + room(parameters.enqueueKey))
        out.append(UInt8(ascii: "{"))
        func member(_ key: String, _ value: String) {
            if out.count > 1 { out.append(UInt8(ascii: ",")) }
            appendMember(key, value, to: &out)
        }
        member("userId", parameters.userId)
        if let userAgentMember {
            out.append(UInt8(ascii: ","))
            out.append(contentsOf: userAgentMember)
        } else {
            member("userAgent", parameters.userAgent)
        }
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

    /// `"key":"value"`, both escaped as the SDKs' writers escape them.
    static func member(_ key: String, _ value: String) -> [UInt8] {
        var out: [UInt8] = []
        appendMember(key, value, to: &out)
        return out
    }

    private static func appendMember(_ key: String, _ value: String, to out: inout [UInt8]) {
        JSONText.appendQuoted(key, to: &out, escapingSolidus: true)
        out.append(UInt8(ascii: ":"))
        JSONText.appendQuoted(value, to: &out, escapingSolidus: true)
    }
}
