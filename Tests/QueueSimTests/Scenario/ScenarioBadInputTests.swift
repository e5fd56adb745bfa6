import Testing

@testable import QueueSim

/// Bad input leftovers (issue 27, item 7): values queuesim prints must be printable, names
/// have a length limit, and tags may not change what a value means. Each is refused at its
/// position, with the exact text users see.
@Suite("scenario: bad input is refused at its position")
struct ScenarioBadInputTests {
    let minimal = ScenarioTestSupport.minimal
    func problems(_ yaml: String) -> [String] { ScenarioTestSupport.problems(yaml) }

    static let nameWhy =
        "names are shown in terminals, reports and CSV files, so only printable characters are allowed"
    static let shownWhy = "`validate` and `run` print it, so only printable characters are allowed"

    /// A YAML escape in a double-quoted name, the code point it stands for and its kind.
    static let unprintable: [(escape: String, codePoint: String, kind: String)] = [
        (#"\e"#, "U+001B", "a control character"),
        (#"\t"#, "U+0009", "a control character"),
        (#"\n"#, "U+000A", "a control character"),
        (#"\x7F"#, "U+007F", "a control character"),
        (#"\x9B"#, "U+009B", "a control character"),
        (#"\u202E"#, "U+202E", "a bidi control character"),
        (#"\u2066"#, "U+2066", "a bidi control character"),
        (#"\u2028"#, "U+2028", "a line separator"),
        (#"\u200B"#, "U+200B", "an invisible format character"),
    ]

    @Test(arguments: unprintable)
    func aNameWithAnUnprintableCharacterIsRefused(escape: String, codePoint: String, kind: String) {
        #expect(
            problems(minimal + "name: \"ab\(escape)c\"\n") == [
                "8:7: `name` contains \(kind) (\(codePoint)) at offset 2; \(Self.nameWhy)"
            ])
    }

    @Test func aGroupNameWithAnEscapeSequenceIsRefused() {
        #expect(
            problems(minimal + #"visitors: [ { name: "app\e[2J" } ]"# + "\n") == [
                "8:21: `visitors[0].name` contains a control character (U+001B) at offset 3; \(Self.nameWhy)"
            ])
    }

    @Test func printableNamesStayAccepted() throws {
        let scenario = try ScenarioTestSupport.load(
            minimal + "name: \"Frühjahr 👩‍💻 launch (ß) 春\"\nvisitors: [ { name: 'app é' } ]\n")
        #expect(scenario.name == "Frühjahr 👩‍💻 launch (ß) 春")
        #expect(scenario.groups.map(\.name) == ["app é"])
    }

    @Test func aNameMayHoldAtMost200CodePoints() throws {
        #expect(ScenarioLimits.longestName == 200)
        let longest = String(repeating: "a", count: 200)
        #expect(try ScenarioTestSupport.load(minimal + "name: \(longest)\n").name == longest)
        #expect(
            problems(minimal + "name: \(longest)é\n") == [
                "8:7: `name` is 201 characters long, more than the limit of 200 (counted in Unicode code points)"
            ])
        #expect(
            problems(minimal + "visitors:\n  - name: \(longest)xy\n") == [
                "9:11: `visitors[0].name` is 202 characters long, more than the limit of 200 (counted in Unicode code points)"
            ])
    }

    @Test func otherPrintedValuesMustBePrintable() {
        let yaml = #"""
            version: 1
            target:
              customerId: acme
              waitingRoomId: launch
              endpoint: "http://a\u202Eb"
              queuePathPrefix: "q\e"
              protectedApi: "https://shop.example/\x85"
            client: { sdkVersion: "iOS-3.5.2\r" }
            arrivals: { phases: [ { burst: 1 } ] }
            visitors:
              - name: app
                enqueueKey: { csv: keys.csv, column: "k\u2029" }
            reports: { dir: "out\tdir" }

            """#
        #expect(
            problems(yaml) == [
                "5:13: `target.endpoint` contains a bidi control character (U+202E) at offset 8; \(Self.shownWhy)",
                "6:20: `target.queuePathPrefix` contains a control character (U+001B) at offset 1; \(Self.shownWhy)",
                "7:17: `target.protectedApi` contains a control character (U+0085) at offset 21; \(Self.shownWhy)",
                "8:23: `client.sdkVersion` contains a control character (U+000D) at offset 9; \(Self.shownWhy)",
                "12:42: `visitors[0].enqueueKey.column` contains a paragraph separator (U+2029) at offset 1; \(Self.shownWhy)",
                "13:17: `reports.dir` contains a control character (U+0009) at offset 3; \(Self.shownWhy)",
            ])
    }

    @Test func tagsThatContradictTheKeyAreRefusedAtTheTag() {
        let yaml =
            minimal.replacingOccurrences(of: "rate: 5", with: "rate: !!str 50")
            + "seed: !!str 42\nname: !!int 5\nwaitingRoom:\n  inviteOnly: !!str true\n  eventStart: !!bool true\n"
        #expect(
            problems(yaml) == [
                "7:30: the tag `!!str` says text, but `arrivals.phases[0].rate` reads a number here; remove the tag",
                "8:7: the tag `!!str` says text, but `seed` reads a whole number here; remove the tag",
                "9:7: the tag `!!int` says a whole number, but `name` reads text here; remove the tag",
                "11:15: the tag `!!str` says text, but `waitingRoom.inviteOnly` reads true or false here; remove the tag",
                "12:15: `waitingRoom.eventStart` must be a duration such as 250ms, 1.5s, 30s, 5m or 2h (a bare number means seconds), found `true`",
            ])
    }

    @Test func tagsOutsideTheCoreSchemaAreRefusedEverywhere() {
        #expect(
            problems(minimal + "waitingRoom:\n  secretKey: !!binary aGVsbG8=\n") == [
                "9:14: unsupported tag `!!binary`: scenario values are text, numbers, true or false, lists and mappings, written without tags; remove the tag"
            ])
        #expect(
            problems(minimal + "visitors: !!set { app: null }\n") == [
                "8:11: unsupported tag `!!set`: scenario values are text, numbers, true or false, lists and mappings, written without tags; remove the tag"
            ])
        #expect(
            problems(minimal + "visitors: [ { name: app, enqueueKey: !!int 5 } ]\n") == [
                "8:38: the tag `!!int` says a whole number, but `visitors[0].enqueueKey` reads text here; remove the tag"
            ])
    }

    @Test func quotedNumbersAndAgreeingTagsReadAsBefore() throws {
        // `rate: "50"` was accepted before tags were checked, and still is: a quantity is read
        // from its text. A tag that agrees with the key changes nothing.
        let yaml =
            minimal.replacingOccurrences(of: "rate: 5", with: "rate: \"50\"")
            + "seed: !!int 7\nclient: !!map { maxWait: !!str 5m, maxRestarts: !!int 2 }\n"
        let scenario = try ScenarioTestSupport.load(yaml)
        #expect(scenario.arrivals.phases == [.steady(duration: .seconds(10), rate: 50, rampTo: nil)])
        #expect(scenario.seed == 7)
        #expect(scenario.client.maxWait == .seconds(300))
        #expect(scenario.client.maxRestarts == 2)
    }
}
