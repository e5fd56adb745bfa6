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
        return OutgoingRequest(head: head, body: bodyBytes(parameters))
    }

    /// The JSON body, keys in a fixed order so requests are byte-identical run to run.
    public static func body(_ parameters: EnqueueParameters) -> String {
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
        for (key, value) in [
            ("layoutName", parameters.layoutName), ("language", parameters.language),
            ("enqueueToken", parameters.enqueueToken), ("enqueueKey", parameters.enqueueKey),
        ] {
            if let value, !value.isEmpty { member(key, value) }
        }
        out.append(UInt8(ascii: "}"))
        return out
    }
}

/// Minimal JSON string writing (the body has only string members).
enum JSONText {
    static func quoted(_ string: String) -> String {
        var out: [UInt8] = []
        appendQuoted(string, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// `"…"` with `"`, `\`, `\n`, `\r`, `\t` and other control characters escaped; everything
    /// else, non-ASCII included, as its own UTF-8 bytes.
    static func appendQuoted(_ string: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        if !string.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            out.append(contentsOf: string.utf8)
            out.append(UInt8(ascii: "\""))
            return
        }
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): out.append(contentsOf: #"\\"#.utf8)
            case UInt8(ascii: "\n"): out.append(contentsOf: #"\n"#.utf8)
            case UInt8(ascii: "\r"): out.append(contentsOf: #"\r"#.utf8)
            case UInt8(ascii: "\t"): out.append(contentsOf: #"\t"#.utf8)
            case 0..<0x20:
                let digits = Array("0123456789abcdef".utf8)
                out.append(contentsOf: #"\u00"#.utf8)
                out.append(digits[Int(byte >> 4)])
                out.append(digits[Int(byte & 0x0F)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
