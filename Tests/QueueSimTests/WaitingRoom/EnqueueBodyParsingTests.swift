import Foundation
import QueueClientCore
import Testing

/// The fast JSON reader the room uses for the SDK's enqueue body reads what
/// `JSONSerialization` reads, or steps aside (the client's tests cover enqueue answers).
@Suite("enqueue body parsing")
struct EnqueueBodyParsingTests {
    private func slowStrings(_ text: String) -> [String: String]? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            return nil
        }
        return object.compactMapValues { $0 as? String }
    }

    private func fastStrings(_ text: String) -> [String: String]? {
        FlatJSONObject.parse(Array(text.utf8))?.compactMapValues { value in
            if case .string(let text) = value { return text }
            return nil
        }
    }

    @Test(
        "The SDK's body and other flat objects read the same",
        arguments: [
            #"{"userId":"6f1c0b2e-1d3a-4c5e-9f00-0123456789ab","userAgent":"queuesim/1 (virtual visitor)","sdkVersion":"iOS-3.5.2","enqueueKey":"KEY-1"}"#,
            #"{"enqueueToken":"QT1.eyJ0eXAiOiJRVDEifQ.abc","enqueueKey":null,"n":12}"#,
            " { \"language\" : \"en-US\" } ",
        ])
    func same(text: String) throws {
        #expect(try #require(fastStrings(text)) == slowStrings(text))
    }

    @Test(
        "Escapes, nesting, duplicates and non-objects step aside",
        arguments: [#"{"enqueueKey":"a\nb"}"#, #"{"a":[1]}"#, #"{"a":"x","a":"y"}"#, #"["a"]"#, "{", #"{"a":1.5}"#])
    func stepsAside(text: String) {
        #expect(FlatJSONObject.parse(Array(text.utf8)) == nil)
    }
}
