import Foundation

/// Any JSON body read with `JSONSerialization`: the enqueue answer when the fast flat reader
/// gives up, and the message of an error answer.
enum JSONObject {
    /// The body as a JSON object, or nil.
    static func parse(_ body: [UInt8]) -> [String: Any]? {
        guard !body.isEmpty,
            let value = try? JSONSerialization.jsonObject(with: Data(body), options: [.fragmentsAllowed])
        else { return nil }
        return value as? [String: Any]
    }

    /// A human message from an error body: the JSON `error`/`message`/`Message` member when
    /// there is one, else the body text (at most 300 characters), else nil.
    static func message(from body: [UInt8]) -> String? {
        if let object = parse(body) {
            for key in ["error", "message", "Message", "errorMessage"] {
                if let text = object[key] as? String, !text.isEmpty { return text }
            }
        }
        let text = String(decoding: body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { return nil }
        return text.count > 300 ? String(text.prefix(300)) + "…" : text
    }
}
