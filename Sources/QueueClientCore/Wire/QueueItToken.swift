/// A `queueittoken` as the waiting room issues it: `key_value` pairs joined by `~`
/// (e.g. `e_e1~q_…~ts_1797033600~ce_true~rt_queue~h_…`).
///
/// The client never validates the hash (it has no secret); it reads the redirect type the way
/// the mobile SDKs do and exposes the other fields for reports and checks. The token is a
/// credential: never log it.
package struct QueueItToken: Sendable, Hashable {
    /// The whole token as received.
    package let rawValue: String
    /// Every pair that splits on `_` into exactly two parts, in order. Pairs with more or
    /// fewer parts are skipped, as the KnownUser connectors skip them.
    package let fields: [(key: String, value: String)]

    package init(_ rawValue: String) {
        self.rawValue = rawValue
        self.fields = rawValue.split(separator: "~", omittingEmptySubsequences: false).compactMap { pair in
            let parts = pair.split(separator: "_", omittingEmptySubsequences: false)
            guard parts.count == 2 else { return nil }
            return (key: String(parts[0]), value: String(parts[1]))
        }
    }

    package static func == (lhs: QueueItToken, rhs: QueueItToken) -> Bool { lhs.rawValue == rhs.rawValue }
    package func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

    /// The first value for `key` (keys are case-sensitive).
    package func value(for key: String) -> String? {
        fields.first(where: { $0.key == key })?.value
    }

    package var eventId: String? { value(for: "e") }
    package var queueId: String? { value(for: "q") }
    /// `ts`: the expiry of the redirect, Unix seconds.
    package var expiresAt: Int64? { value(for: "ts").flatMap { Int64($0) } }
    /// `h`: the HMAC-SHA256 hex the connector checks.
    package var hash: String? { value(for: "h") }

    /// The redirect type exactly as the SDKs extract it: the text between the first `~rt_`
    /// and the next `~` (case-sensitive). Nil when the token has no such segment, e.g. when
    /// `rt_…` is the last pair or the first one (no `~` in front of it).
    package var sdkRedirectType: String? { Self.sdkRedirectType(of: rawValue) }

    /// `sdkRedirectType` of a token without reading its other pairs: the client reads the
    /// redirect type of every enqueue answer, and a token's bytes are ASCII on the wire, so
    /// this is a scan of bytes, not of characters.
    package static func sdkRedirectType(of token: String) -> String? {
        withRedirectTypeBytes(of: token) { text in
            // A known type is its constant: no string is made for it.
            text.map { RedirectType(bytes: $0)?.rawValue ?? String(decoding: $0, as: UTF8.self) }
        }
    }

    /// Calls `body` with the bytes `sdkRedirectType` reads (nil when there are none).
    static func withRedirectTypeBytes<Result>(
        of token: String, _ body: (UnsafeBufferPointer<UInt8>?) -> Result
    ) -> Result {
        var token = token
        return token.withUTF8 { bytes -> Result in
            let tilde = UInt8(ascii: "~")
            var index = 0
            while index + 4 <= bytes.count {
                defer { index += 1 }
                guard bytes[index] == tilde, bytes[index + 1] == UInt8(ascii: "r"),
                    bytes[index + 2] == UInt8(ascii: "t"), bytes[index + 3] == UInt8(ascii: "_")
                else { continue }
                let start = index + 4
                guard let end = bytes[start...].firstIndex(of: tilde) else { return body(nil) }
                return body(UnsafeBufferPointer(rebasing: bytes[start..<end]))
            }
            return body(nil)
        }
    }
}
