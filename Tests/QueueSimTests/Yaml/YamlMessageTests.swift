import Testing

@testable import QueueSim

/// A message is one line `FILE:LINE:COLUMN: message` (issue 12): values echoed from the file
/// must not break it. Found by the mutated-scenario corpus (a fault's `status: "a\tb\nc"`).
@Suite("YAML messages stay on one line")
struct YamlMessageTests {
    struct Shape: Decodable, Sendable {
        var count: Int?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case count
        }
    }

    func problems(_ text: String) throws -> [String] {
        let root = try #require(try YamlReader().read(Array(text.utf8)))
        return YamlDecoder().decode(Shape.self, from: root).problems.map(\.message)
    }

    @Test func aQuotedValueWithLineBreaksIsEchoedEscaped() throws {
        let messages = try problems("count: \"a\\tb\\nc\"\n")
        #expect(messages == ["expected a whole number for `count`, found the string \"a\\tb\\nc\""])
    }

    @Test func anUnknownKeyWithABidiOverrideIsEchoedEscaped() throws {
        let messages = try problems("\"co\\u202Eunt\\r\": 1\n")
        #expect(messages.count == 1)
        #expect(messages.first?.hasPrefix("unknown key `co\\u{202E}unt\\r` in ") == true, "\(messages)")
    }

    @Test func plainTextAndJoinedEmojiAreLeftAlone() {
        #expect(YamlError.oneLine("found `👨‍👩‍👧` and `日本語`") == "found `👨‍👩‍👧` and `日本語`")
        #expect(YamlError.oneLine("a\u{0}b\u{7F}c\u{2028}") == "a\\u{0}b\\u{7F}c\\u{2028}")
    }
}
