import Testing

@testable import QueueSim

/// A decode learns each `CodingKeys` type's names once and reuses them for every mapping of
/// that type (issue 51: 2,000 groups asked 2,000 times). The answers must stay each type's own:
/// a typo in the first and in the last of many items is reported at each, with the right
/// suggestion, and a second type's keys are not mixed in.
@Suite("YAML decoder: known keys learnt once per type")
struct YamlKnownKeysCacheTests {
    struct Item: Decodable, Sendable {
        var name: String?
        var weight: Double?
        var inner: Inner?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case name, weight, inner
        }
    }

    struct Inner: Decodable, Sendable {
        var depth: Int?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case depth
        }
    }

    @Test func everyItemOfARepeatedTypeIsCheckedAgainstItsOwnKeys() throws {
        var lines = ["- { name: g1, wieght: 1 }"]
        for index in 2..<300 { lines.append("- { name: g\(index), weight: 1, inner: { depth: 2 } }") }
        lines.append("- { name: g300, weight: 1, inner: { weight: 2 } }")
        lines.append("- { nmae: g301 }")
        let root = try #require(try YamlReader().read(Array(lines.joined(separator: "\n").utf8)))
        let (value, problems) = YamlDecoder().decode(YamlList<Item>.self, from: root)
        #expect(value?.elements.count == 301)
        #expect(
            problems.map(\.description) == [
                "1:15: unknown key `wieght` in `[0]`; did you mean `weight`?",
                "300:37: unknown key `weight` in `[299].inner`; expected one of: depth",
                "301:5: unknown key `nmae` in `[300]`; expected one of: name, weight, inner",
            ])
    }
}
