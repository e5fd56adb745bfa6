import Testing

@testable import QueueSim

@Suite("YAML decoder")
struct YamlDecoderTests {
    struct Checked: Decodable, Sendable {
        var name: Positioned<String>?
        var count: Int?
        var ratio: Double?
        var enabled: Bool?
        var tags: [String]?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case name, count, ratio, enabled, tags
        }
    }

    /// Keys that are not `CaseIterable`: unknown keys pass unremarked.
    struct Open: Decodable {
        var name: String
    }

    func decode<T: Decodable>(_ type: T.Type, _ text: String) throws -> (value: T?, problems: [String]) {
        let root = try #require(try YamlReader().read(Array(text.utf8)))
        let (value, problems) = YamlDecoder().decode(type, from: root)
        return (value, problems.map(\.description))
    }

    @Test func readsPlainTypesByTheCoreSchemaAndKeepsPositions() throws {
        let (value, problems) = try decode(
            Checked.self, "name: 'x'\ncount: +12\nratio: 0.5\nenabled: True\ntags: [a, 'b']\n")
        #expect(problems.isEmpty)
        #expect(value?.name?.value == "x")
        #expect(value?.name?.mark == YamlMark(line: 1, column: 7))
        #expect(value?.count == 12)
        #expect(value?.ratio == 0.5)
        #expect(value?.enabled == true)
        #expect(value?.tags == ["a", "b"])
    }

    @Test func recordsEveryWrongOptionalValueAndGoesOn() throws {
        let (value, problems) = try decode(
            Checked.self, "name: [x]\ncount: '12'\nratio: .nan\nenabled: yes\nextra: 1\ntags: {}\n")
        #expect(value != nil)
        #expect(value?.count == nil)
        // In the order found: unknown keys when the mapping is opened, then each value.
        #expect(
            problems == [
                "5:1: unknown key `extra` in the top level; expected one of: name, count, ratio, enabled, tags",
                "1:7: expected a text value for `name`, found a list",
                "2:8: expected a whole number for `count`, found the string \"12\"",
                "3:8: expected a number for `ratio`, found `.nan`",
                "4:10: expected true or false for `enabled`, found `yes`",
                "6:7: expected a list (lines starting with `- `, or [a, b]) for `tags`, found a mapping",
            ])
    }

    @Test func aMissingRequiredValueIsReportedAtItsMapping() throws {
        let (value, problems) = try decode(Open.self, "other: 1\n")
        #expect(value == nil)
        #expect(problems == ["1:1: missing the required key `name` in the top level"])
        #expect(try decode(Open.self, "name: a\nother: 1\n").problems.isEmpty)
    }
}
