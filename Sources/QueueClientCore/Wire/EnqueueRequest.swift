import HTTPTypes

/// Everything one enqueue call sends, apart from where it goes.
public struct EnqueueParameters: Sendable, Hashable {
    public var address: WaitingRoomAddress
    public var userId: String
    public var userAgent: String
    public var sdkVersion: String
    public var layoutName: String?
    public var language: String?
    public var enqueueToken: String?
    public var enqueueKey: String?

    public init(
        address: WaitingRoomAddress, userId: String, userAgent: String, sdkVersion: String,
        layoutName: String? = nil, language: String? = nil, enqueueToken: String? = nil, enqueueKey: String? = nil
    ) {
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
/// Headers follow iOS (`Accept` and `Content-Type: application/json`, no `userId` query) plus
/// Android's `User-Agent` header, so a server log can tell simulated visitors apart.
/// Optional body fields are sent only when non-empty (Android's rule; iOS sends a non-nil
/// empty string, which no caller here produces on purpose).
public enum EnqueueRequest {
    public static func make(_ parameters: EnqueueParameters) -> OutgoingRequest {
        var head = HTTPRequest(
            method: .post, scheme: "https", authority: parameters.address.host, path: parameters.address.enqueuePath)
        head.headerFields[.accept] = "application/json"
        head.headerFields[.contentType] = "application/json"
        head.headerFields[.userAgent] = parameters.userAgent
        return OutgoingRequest(head: head, body: Array(body(parameters).utf8))
    }

    /// The JSON body, keys in a fixed order so requests are byte-identical run to run.
    public static func body(_ parameters: EnqueueParameters) -> String {
        var members: [(String, String)] = [
            ("userId", parameters.userId),
            ("userAgent", parameters.userAgent),
            ("sdkVersion", parameters.sdkVersion),
        ]
        let optional: [(String, String?)] = [
            ("layoutName", parameters.layoutName),
            ("language", parameters.language),
            ("enqueueToken", parameters.enqueueToken),
            ("enqueueKey", parameters.enqueueKey),
        ]
        for case (let key, let value?) in optional where !value.isEmpty {
            members.append((key, value))
        }
        return "{" + members.map { "\(JSONText.quoted($0.0)):\(JSONText.quoted($0.1))" }.joined(separator: ",") + "}"
    }
}

/// Minimal JSON string writing (the body has only string members).
enum JSONText {
    static func quoted(_ string: String) -> String {
        var out = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let control where control.value < 0x20:
                let hex = String(control.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
