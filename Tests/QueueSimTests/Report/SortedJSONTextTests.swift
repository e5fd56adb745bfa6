import Foundation
import Testing

@testable import QueueSim

/// `SortedJSONEncoder` copies a text that needs no escape whole and compares keys by their
/// bytes in place (issue 51); texts and keys of every kind must still come out as
/// `JSONEncoder` writes them.
@Suite("report schema: SortedJSONEncoder's texts and key order")
struct SortedJSONTextTests {
    static func foundation(_ value: some Encodable, pretty: Bool) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting =
            pretty ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(value))
    }

    static let texts = [
        "", "plain", "a/b", "quote \" inside", "back\\slash", "line\nbreak", "\u{7F} delete", "é", "e", "z", "Z",
        "🚀", "ab", "a", "a\u{0}b", "\u{1F}", "\u{2028}", "ünïcödé ✓",
    ]

    @Test(arguments: [false, true])
    func keysAndValuesOfEveryKindAreJSONEncodersBytes(pretty: Bool) throws {
        let dictionary = Dictionary(uniqueKeysWithValues: Self.texts.enumerated().map { ($1, $0) })
        let reversed = Dictionary(uniqueKeysWithValues: Self.texts.map { ($0, String($0.reversed())) })
        for value in [dictionary.mapValues(String.init)] + [reversed] {
            let ours = try SortedJSONEncoder(pretty: pretty).encode(value)
            #expect(ours == (try Self.foundation(value, pretty: pretty)))
        }
        let list = try SortedJSONEncoder(pretty: pretty).encode(Self.texts)
        #expect(list == (try Self.foundation(Self.texts, pretty: pretty)))
    }
}
