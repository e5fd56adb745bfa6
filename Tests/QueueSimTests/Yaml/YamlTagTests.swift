import Testing

@testable import QueueSim

/// Tags (issue 27, item 7): a core-schema tag must agree with its value and with what the key
/// reads; every other tag is refused where it is written.
@Suite("YAML tags")
struct YamlTagTests {
    func errors(_ text: String) -> [String] {
        do {
            _ = try YamlReader().read(Array(text.utf8))
            return []
        } catch {
            return error.errors.map(\.description)
        }
    }

    struct Typed: Decodable, Sendable {
        var text: String?
        var whole: Int?
        var number: Double?
        var flag: Bool?
        var shaped: YamlNode?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case text, whole, number, flag, shaped
        }
    }

    func decode(_ text: String) throws -> (value: Typed?, problems: [String]) {
        let root = try #require(try YamlReader().read(Array(text.utf8)))
        let (value, problems) = YamlDecoder().decode(Typed.self, from: root)
        return (value, problems.map(\.description))
    }

    @Test func tagsOutsideTheCoreSchemaAreRefusedWhereTheyAreWritten() {
        #expect(
            errors("secret: !!binary aGVsbG8=\nwhen: !!timestamp 2026-01-01\n") == [
                "1:9: unsupported tag `!!binary`: scenario values are text, numbers, true or false, lists and mappings, written without tags; remove the tag",
                "2:7: unsupported tag `!!timestamp`: scenario values are text, numbers, true or false, lists and mappings, written without tags; remove the tag",
            ])
        #expect(
            errors("a: !foo x\nb: !env HOME\nc: !<tag:example.com,2026:x> y\nd: !!set { x: null }\n") == [
                "1:4: unsupported tag `!foo`: scenario values are text, numbers, true or false, lists and mappings, written without tags; remove the tag",
                "2:4: unsupported tag `!env`: scenario values are text, numbers, true or false, lists and mappings, written without tags; remove the tag (environment variables are written ${NAME} or ${NAME:-default})",
                "3:4: unsupported tag `!<tag:example.com,2026:x>`: scenario values are text, numbers, true or false, lists and mappings, written without tags; remove the tag",
                "4:4: unsupported tag `!!set`: scenario values are text, numbers, true or false, lists and mappings, written without tags; remove the tag",
            ])
    }

    @Test func aTagMustAgreeWithItsOwnValue() {
        #expect(
            errors(
                "a: !!int 30s\nb: !!float x\nc: !!bool yes\nd: !!null 0\ne: !!map [x]\nf: !!seq { k: v }\ng: !!str [x]\nh: !!seq x\n"
            )
                == [
                    "1:4: the tag `!!int` needs a whole number such as 42, found `30s`",
                    "2:4: the tag `!!float` needs a number such as 1.5, found `x`",
                    "3:4: the tag `!!bool` needs true or false, found `yes`",
                    "4:4: the tag `!!null` needs nothing, ~ or null, found `0`",
                    "5:4: the tag `!!map` marks a mapping, but this value is a list",
                    "6:4: the tag `!!seq` marks a list, but this value is a mapping",
                    "7:4: the tag `!!str` marks text, but this value is a list",
                    "8:4: the tag `!!seq` marks a list, but this value is `x`",
                ])
        #expect(errors("!!int 5: a\n") == ["1:1: a mapping key is a plain name; remove the tag `!!int`"])
    }

    @Test func aTagThatAgreesDecidesHowTheScalarIsRead() throws {
        let (value, problems) = try decode(
            "text: !!str 42\nwhole: !!int \"7\"\nnumber: !!float 2.5\nflag: !!bool 'true'\nshaped: !!str 30s\n")
        #expect(problems.isEmpty)
        #expect(value?.text == "42")
        #expect(value?.whole == 7)
        #expect(value?.number == 2.5)
        #expect(value?.flag == true)
        #expect(value?.shaped?.scalarText == "30s")
        let (nulls, nullProblems) = try decode("text: !!null\nwhole: !!null ~\n")
        #expect(nullProblems.isEmpty)
        #expect(nulls?.text == nil && nulls?.whole == nil)
        let (integer, integerProblems) = try decode("number: !!int 3\nshaped: !!float 1.5\n")
        #expect(integerProblems.isEmpty)
        #expect(integer?.number == 3)
    }

    @Test func aTagThatContradictsTheKeyIsRefusedAtIt() throws {
        let (_, problems) = try decode(
            "text: !!int 5\nwhole: !!str 42\nnumber: !!bool true\nflag: !!str true\nshaped: !!str 50\n")
        #expect(
            problems == [
                "1:7: the tag `!!int` says a whole number, but `text` reads text here; remove the tag",
                "2:8: the tag `!!str` says text, but `whole` reads a whole number here; remove the tag",
                "3:9: the tag `!!bool` says true or false, but `number` reads a number here; remove the tag",
                "4:7: the tag `!!str` says text, but `flag` reads true or false here; remove the tag",
                "5:9: the tag `!!str` says text, but `shaped` reads a number here; remove the tag",
            ])
        let (float, floatProblems) = try decode("whole: !!float 2\n")
        #expect(float?.whole == nil)
        #expect(
            floatProblems == [
                "1:8: the tag `!!float` says a floating-point number, but `whole` reads a whole number here; remove the tag"
            ])
    }

    @Test func quotesAreNotTagsAndTheNonSpecificTagMeansText() throws {
        // `"50"` where a number with a unit is read stays accepted, as before tags were checked.
        let (value, problems) = try decode("shaped: \"50\"\ntext: ! 12\n")
        #expect(problems.isEmpty)
        #expect(value?.shaped?.scalarText == "50")
        #expect(value?.text == "12")
    }
}
