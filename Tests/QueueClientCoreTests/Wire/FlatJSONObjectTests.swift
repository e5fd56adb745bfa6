import Foundation
import Testing

@testable import QueueClientCore

/// The fast enqueue-answer reader must read exactly what the `JSONSerialization` path reads,
/// and step aside (nil) for anything outside its subset.
@Suite("FlatJSONObject")
struct FlatJSONObjectTests {
    static let roomAnswer =
        #"{"QueueId":"0b1c-42","QueueUrl":"https://acme.queue-it.net/queue/acme/launch?q=0b1c-42","QueueUrlTTLInMinutes":30,"EventTargetUrl":"https://acme.example/launch","QueueitToken":null}"#

    /// The answer read through `JSONSerialization` only (the fallback path).
    private func slowPath(_ text: String) -> EnqueueResponse? {
        guard let object = JSONObject.parse(Array(text.utf8)) else { return nil }
        let members = object.mapValues { value -> FlatJSONObject.Value in
            if let text = value as? String { return .string(text) }
            if let number = value as? Int { return .integer(number) }
            return .null
        }
        return EnqueueResponse(flatMembers: members)
    }

    @Test(
        "Inside the subset both paths read the same answer",
        arguments: [
            roomAnswer,
            #"{"QueueId":"q","QueueitToken":"e_x~q_y~ts_1~ce_true~rt_queue~h_ab","QueueUrlTTLInMinutes":-5}"#,
            " {\n\t\"QueueId\" : \"ü-ñ\" , \"QueueUrl\": null }\r\n",
            #"{"QueueId":7,"QueueUrl":"x","QueueUrlTTLInMinutes":"30"}"#,
            "{}",
        ])
    func samePath(text: String) throws {
        let members = try #require(FlatJSONObject.parse(Array(text.utf8)))
        #expect(EnqueueResponse(flatMembers: members) == slowPath(text))
        #expect(EnqueueResponse(jsonBody: Array(text.utf8)) == slowPath(text))
    }

    @Test(
        "Outside the subset the reader steps aside and the JSONSerialization path decides",
        arguments: [
            #"{"QueueId":"a\"b"}"#, #"{"QueueId":"a\u0041"}"#, #"{"QueueUrlTTLInMinutes":30.5}"#,
            #"{"QueueUrlTTLInMinutes":1e3}"#, #"{"QueueId":"a","QueueId":"b"}"#, #"{"x":{"y":1}}"#,
            #"{"x":true}"#, #"["QueueId"]"#, #"{"QueueId":"a"} x"#, #"{"QueueId":"a",}"#, "", "null",
            #"{"n":0123}"#,
        ])
    func fallback(text: String) {
        #expect(FlatJSONObject.parse(Array(text.utf8)) == nil)
    }

    /// Found by fuzz/run-all.sh (FlatJSONFuzz): the digits were accumulated before their
    /// count was checked, so a long number overflowed and trapped instead of stepping aside.
    @Test(
        "Numbers longer than 18 digits step aside without overflowing",
        arguments: [
            #"{"n":123456789012345678901234567890}"#, #"{"n":-99999999999999999999}"#,
            #"{"n":9223372036854775807}"#, #"{"n":12345678901234901235678A"#,
        ])
    func longNumbers(text: String) {
        #expect(FlatJSONObject.parse(Array(text.utf8)) == nil)
        #expect(FlatJSONObject.parseMembers(Array(text.utf8), keeping: []) == nil)
    }

    @Test("Eighteen digits are still read")
    func eighteenDigits() {
        let members = FlatJSONObject.parse(Array(#"{"n":-999999999999999999}"#.utf8))
        #expect(members?["n"] == .integer(-999_999_999_999_999_999))
    }

    @Test("Invalid UTF-8 is not read by the fast path")
    func invalidUTF8() {
        var bytes = Array(#"{"QueueId":"ab"}"#.utf8)
        bytes[13] = 0xFF
        #expect(FlatJSONObject.parse(bytes) == nil)
    }

    @Test("Keeping some values accepts and refuses the same bodies and reads the kept values alike")
    func keepingSomeValues() {
        var bodies: [[UInt8]] = [
            #"{"userId":"u-1","userAgent":"App/1 (Linux)","enqueueKey":"k1","enqueueToken":"t.x"}"#,
            #"{"userAgent":"ü-ñ","enqueueToken":"t"}"#, #"{"userAgent":"a\"b","enqueueKey":"k"}"#,
            #"{"userAgent":"a","userAgent":"b"}"#, #"{"enqueueKey":7,"x":null}"#, "{}", #"{"userAgent":"a"} x"#,
        ].map { Array($0.utf8) }
        for bad: UInt8 in [0xFF, 0xC0, 0xED] {
            var bytes = Array(#"{"userAgent":"ab","enqueueKey":"k"}"#.utf8)
            bytes[14] = bad
            bodies.append(bytes)
        }
        // A surrogate encoded in UTF-8 (ED A0 80) is invalid for both readers.
        bodies.append(Array(#"{"userAgent":""#.utf8) + [0xED, 0xA0, 0x80] + Array(#""}"#.utf8))
        let keys = ["enqueueKey", "enqueueToken"]
        for body in bodies {
            let all = FlatJSONObject.parseMembers(body)
            let kept = FlatJSONObject.parseMembers(body, keeping: keys)
            #expect((all == nil) == (kept == nil), "\(body)")
            guard let all, let kept else { continue }
            #expect(all.count == kept.count)
            for key in keys { #expect(all[key] == kept[key]) }
            if case .string? = all["userAgent"] { #expect(kept["userAgent"] == .null) }
        }
        #expect(FlatJSONObject.parseMembers(bodies[0], keeping: keys)?["enqueueKey"] == .string("k1"))
    }

    /// `select` (every enqueue answer) must accept and refuse what `parseMembers` does and hand
    /// over the same values, or say it cannot decide (non-ASCII keys), never differ.
    @Test("Selecting members reads what the full reader reads")
    func selectingAgreesWithTheFullReader() {
        var bodies: [[UInt8]] = [
            Self.roomAnswer, #"{"QueueId":"a","QueueId":"b"}"#, #"{"x":1,"x":2}"#, #"{"QueueId":"a","queueid":"b"}"#,
            #"{"QueueId":"a"b"}"#, #"{"QueueUrlTTLInMinutes":30.5}"#, #"{"x":{"y":1}}"#, #"["QueueId"]"#,
            #"{"QueueId":"a"} x"#, #"{"QueueId":"a",}"#, "", "null", "{}", " { } ", #"{"":1,"":2}"#,
            #"{"":"x","QueueId":"q"}"#, #"{"ü":1,"QueueId":"q"}"#, #"{"QueueId":7,"QueueitToken":null}"#,
            #"{"n":123456789012345678901234567890}"#,
            "{" + (0..<40).map { #""k\#($0)":\#($0)"# }.joined(separator: ",") + "}",
        ].map { Array($0.utf8) }
        var invalid = Array(#"{"QueueId":"ab"}"#.utf8)
        invalid[13] = 0xFF
        bodies.append(invalid)
        let keys = ["QueueId", "x", "QueueUrlTTLInMinutes", ""]
        for body in bodies {
            var handed: [String: FlatJSONObject.Value] = [:]
            let selection = FlatJSONObject.select(body, keys: keys.map { Array($0.utf8) }) { index, value in
                #expect(handed[keys[index]] == nil, "a key handed over twice")
                handed[keys[index]] = value
            }
            let full = FlatJSONObject.parseMembers(body)
            switch selection {
            case .selected:
                #expect(full != nil, "\(String(decoding: body, as: UTF8.self))")
                for key in keys { #expect(handed[key] == full?[key]) }
            case .notFlat:
                #expect(full == nil, "\(String(decoding: body, as: UTF8.self))")
            case .undecided:
                #expect(body.contains { $0 >= 0x80 } || body.count > 200)
            }
        }
        #expect(
            FlatJSONObject.select(Array(#"{"ü":1,"QueueId":"q"}"#.utf8), keys: [Array("QueueId".utf8)]) { _, _ in }
                == .undecided)
        #expect(EnqueueResponse(jsonBody: Array(#"{"ü":1,"QueueId":"q"}"#.utf8))?.queueId == "q")
    }

    /// The eight-bytes-at-a-time string scan flags a word exactly when one of its bytes is a
    /// quote, a backslash, a control byte or not ASCII, wherever that byte sits among plain
    /// bytes of every value.
    @Test func theWordScanFlagsExactlyTheBytesAStringMustLookAt() {
        func special(_ byte: UInt8) -> Bool {
            byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 || byte >= 0x80
        }
        func word(_ bytes: [UInt8]) -> UInt64 {
            bytes.enumerated().reduce(0) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
        }
        let plain = (UInt8(0)...0xFF).filter { !special($0) }
        #expect(plain.count == 94)
        for byte in UInt8(0)...0xFF {
            for position in 0..<8 {
                // Around it: the plain bytes next to the boundaries a borrow could cross.
                for filler in [UInt8(0x20), 0x21, 0x23, 0x5B, 0x5D, 0x7F] {
                    var bytes = [UInt8](repeating: filler, count: 8)
                    bytes[position] = byte
                    #expect(FlatJSONObject.hasSpecialStringByte(word(bytes)) == special(byte))
                }
            }
        }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let bytes = (0..<8).map { _ in
                Bool.random(using: &generator) ? plain.randomElement(using: &generator)! : UInt8.random(in: 0...0xFF)
            }
            #expect(FlatJSONObject.hasSpecialStringByte(word(bytes)) == bytes.contains(where: special))
        }
    }

    /// A string's quote, escape, control byte or non-ASCII byte is found at every offset of the
    /// scan's eight-byte words.
    @Test func stringsAreReadWhateverWordTheirSpecialBytesFallIn() {
        for length in 0..<20 {
            let text = String(repeating: "a", count: length)
            let plainBody = Array(#"{"QueueId":"\#(text)"}"#.utf8)
            #expect(FlatJSONObject.parseMembers(plainBody)?["QueueId"] == .string(text))
            let escapedBody = Array(#"{"QueueId":"\#(text)\/\#(text)"}"#.utf8)
            #expect(EnqueueResponse(jsonBody: escapedBody)?.queueId == "\(text)/\(text)")
            var controlBody = plainBody
            controlBody.insert(0x0A, at: 12 + length / 2)
            #expect(FlatJSONObject.parseMembers(controlBody) == nil)
            let unterminated = Array(#"{"QueueId":"\#(text)"#.utf8)
            #expect(FlatJSONObject.parseMembers(unterminated) == nil)
        }
    }
}
