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

    /// Objects of one shape reuse its order; objects with the same count of other keys, or the
    /// same keys in another order, or a key twice, must not.
    struct Shaped: Encodable {
        var first: String
        var second: Int?
        var third: [String: Int]

        enum CodingKeys: String, CodingKey { case zeta, alpha, mid }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(first, forKey: .zeta)
            try container.encodeIfPresent(second, forKey: .alpha)
            try container.encode(third, forKey: .mid)
        }
    }

    /// `keys` turned by `offset`, backwards for odd offsets: the same keys in many orders.
    func rotated(_ keys: [String], by offset: Int) -> [String] {
        let turned = Array(keys[(offset % keys.count)...] + keys[..<(offset % keys.count)])
        return offset % 2 == 0 ? turned : turned.reversed()
    }

    @Test(arguments: [false, true])
    func manyObjectsOfFewShapesAreJSONEncodersBytes(pretty: Bool) throws {
        let keys = ["b", "a", "d", "c", "ab", "B", "10", "9"]
        let values = (0..<200).map { index in
            Shaped(
                first: "f\(index)", second: index % 3 == 0 ? nil : index,
                third: Dictionary(
                    uniqueKeysWithValues: rotated(keys, by: index).prefix(index % 5 + 1).enumerated().map {
                        ($1, $0 + index)
                    }))
        }
        #expect(try SortedJSONEncoder(pretty: pretty).encode(values) == (try Self.foundation(values, pretty: pretty)))
    }
}
