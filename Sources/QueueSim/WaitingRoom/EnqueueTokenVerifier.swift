import Crypto
import Foundation

/// Checks an enqueue token (QueueToken.V1, `QT1`; reference §6) the way the waiting room would
/// before issuing a queue id: signature, type, customer, event, expiry, and single use of `ti`.
///
/// The token is `base64url(header).base64url(payload).base64url(hash)`, the hash being plain
/// SHA-256 (not HMAC) over `header.payload` immediately followed by the secret key. The AES
/// payload is not decrypted: no rule of this room needs its `r`, `k` or `cd`.
struct EnqueueTokenVerifier {
    enum Refusal: String, Sendable, Equatable {
        case malformed = "Enqueue token is malformed"
        case signature = "Enqueue token signature is invalid"
        case customer = "Enqueue token is for another customer"
        case event = "Enqueue token is for another waiting room"
        case expired = "Enqueue token has expired"
        case replayed = "Enqueue token has already been used"
    }

    let secretKey: String
    let customerId: String
    let waitingRoomId: String
    /// Token identifiers already admitted (replay defence).
    private(set) var usedTokenIdentifiers: Set<String> = []

    init(secretKey: String, customerId: String, waitingRoomId: String) {
        self.secretKey = secretKey
        self.customerId = customerId
        self.waitingRoomId = waitingRoomId
    }

    /// Admits the token (recording its `ti`) or says why not.
    mutating func admit(_ token: String, nowUnixMilliseconds: Int64) -> Refusal? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[2].isEmpty else { return .malformed }
        let signed = "\(parts[0]).\(parts[1])"
        guard QueueITHash.equal(Self.signature(signedPart: signed, secretKey: secretKey), parts[2]) else {
            return .signature
        }
        guard let headerData = Self.base64URLDecode(String(parts[0])),
            let header = try? JSONSerialization.jsonObject(with: headerData) as? [String: Any],
            let type = header["typ"] as? String, type == "QT1",
            let identifier = header["ti"] as? String
        else { return .malformed }
        guard let customer = header["c"] as? String, customer.lowercased() == customerId.lowercased() else {
            return .customer
        }
        if let event = header["e"] as? String, event.lowercased() != waitingRoomId.lowercased() {
            return .event
        }
        if let expiry = Self.integer(header["exp"]), expiry < nowUnixMilliseconds {
            return .expired
        }
        guard usedTokenIdentifiers.insert(identifier).inserted else { return .replayed }
        return nil
    }

    /// A JSON number as Int64, whichever Foundation type the platform's parser produced.
    private static func integer(_ value: Any?) -> Int64? {
        switch value {
        case let number as Int: Int64(number)
        case let number as Int64: number
        case let number as Double: Int64(number)
        case let number as NSNumber: number.int64Value
        default: nil
        }
    }

    static func signature(signedPart: String, secretKey: String) -> String {
        base64URLEncode(Array(SHA256.hash(data: Array((signedPart + secretKey).utf8))))
    }

    static func base64URLEncode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func base64URLDecode(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}
