import Foundation
import QueueClientCore

/// The members of an enqueue body the room reads: the user id (whose draws the request takes)
/// and the enqueue key and token. Read once per enqueue, over the body's bytes
/// (`FlatJSONObject.select`: no `String` for a key, none for the user agent); a body that
/// reader cannot decide is read as `JSONSerialization` reads it. Only JSON strings are
/// strings.
struct EnqueueBody {
    var userId: String?
    var enqueueKey: String?
    var enqueueToken: String?
    /// False when the body is not a JSON object (the enqueue answers 400). An empty body is
    /// an object without members.
    var isObject = true

    private static let keys: [[UInt8]] = [Array("userId".utf8), Array("enqueueKey".utf8), Array("enqueueToken".utf8)]

    init(_ body: [UInt8]) {
        guard !body.isEmpty else {
            self.init()
            return
        }
        var fields = EnqueueBody()
        let selection = FlatJSONObject.select(body, keys: Self.keys) { keyIndex, value in
            guard case .string(let text) = value else { return }
            switch keyIndex {
            case 0: fields.userId = text
            case 1: fields.enqueueKey = text
            default: fields.enqueueToken = text
            }
        }
        switch selection {
        case .selected:
            self = fields
        case .undecided:
            guard let members = FlatJSONObject.parseMembers(body, keeping: ["userId", "enqueueKey", "enqueueToken"])
            else {
                self.init(serialized: body)
                return
            }
            func string(_ key: String) -> String? {
                if case .string(let text)? = members[key] { return text }
                return nil
            }
            self.init()
            (userId, enqueueKey, enqueueToken) = (string("userId"), string("enqueueKey"), string("enqueueToken"))
        case .notFlat:
            self.init(serialized: body)
        }
    }

    private init() {}

    private init(serialized body: [UInt8]) {
        self.init()
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else {
            isObject = false
            return
        }
        (userId, enqueueKey, enqueueToken) =
            (object["userId"] as? String, object["enqueueKey"] as? String, object["enqueueToken"] as? String)
    }
}
