import Foundation
import TestSeeds
import Testing

@testable import QueueSim

@Suite("YAML reader")
struct YamlReaderTests {
    func read(_ text: String, environment: [String: String] = [:]) throws(YamlReadError) -> YamlNode? {
        try YamlReader(environment: environment).read(Array(text.utf8))
    }

    func errors(_ text: String, environment: [String: String] = [:]) -> [YamlError] {
        do {
            _ = try read(text, environment: environment)
            return []
        } catch {
            return error.errors
        }
    }

    func errors(bytes: [UInt8]) -> [YamlError] {
        do {
            _ = try YamlReader().read(bytes)
            return []
        } catch {
            return error.errors
        }
    }

    @Test func keepsLineAndColumnOfEveryNode() throws {
        let root = try #require(try read("a: 1\nlist:\n  - x\n  - { k: 'v' }\n"))
        #expect(root.mark == YamlMark(line: 1, column: 1))
        #expect(root["a"]?.mark == YamlMark(line: 1, column: 4))
        guard case .sequence(let items) = root["list"]?.content else {
            Issue.record("not a list")
            return
        }
        #expect(items[0].mark == YamlMark(line: 3, column: 5))
        #expect(items[1].mark == YamlMark(line: 4, column: 5))
        #expect(items[1]["k"]?.mark == YamlMark(line: 4, column: 10))
        #expect(items[1]["k"]?.content == .scalar("v", .singleQuoted))
    }

    @Test func readsBlockFlowQuotedAndMultiLineScalars() throws {
        let text = """
            # a comment
            plain: hello world   # trailing comment
            double: "tab\\there"
            single: 'it''s'
            literal: |
              line one
              line two
            folded: >
              one
              two
            flow: [1, "two", { three: 3 }]
            """
        let root = try #require(try read(text))
        #expect(root["plain"]?.scalarText == "hello world")
        #expect(root["double"]?.scalarText == "tab\there")
        #expect(root["single"]?.scalarText == "it's")
        #expect(root["literal"]?.content == .scalar("line one\nline two\n", .literal))
        #expect(root["folded"]?.scalarText == "one two\n")
        guard case .sequence(let flow) = root["flow"]?.content else {
            Issue.record("flow is not a list")
            return
        }
        #expect(flow.count == 3)
        #expect(flow[2]["three"]?.scalarText == "3")
    }

    @Test func resolvesAnchorsAliasesAndMergeKeys() throws {
        let text = """
            base: &base { rate: 10, duration: 30s }
            copy: *base
            merged:
              <<: *base
              rate: 20
            """
        let root = try #require(try read(text))
        #expect(root["copy"] == root["base"])
        #expect(root["merged"]?["rate"]?.scalarText == "20")
        #expect(root["merged"]?["duration"]?.scalarText == "30s")
    }

    @Test func refusesAnUnknownAlias() {
        let found = errors("a: *nowhere\n")
        #expect(
            found.map(\.description) == ["1:4: the alias *nowhere refers to no anchor; define &nowhere before using it"]
        )
    }

    @Test func refusesASecondDocument() {
        let found = errors("version: 1\n---\nversion: 2\n")
        #expect(found.count == 1)
        #expect(found.first?.mark == YamlMark(line: 2, column: 1))
        #expect(found.first?.message.contains("exactly one YAML document") == true)
    }

    @Test func reportsEveryDuplicateKeyWithBothPositions() {
        let found = errors("a: 1\nb: 2\na: 3\nb: 4\n")
        #expect(
            found.map(\.description) == [
                "3:1: duplicate key `a` (first written at 1:1); each key may appear once",
                "4:1: duplicate key `b` (first written at 2:1); each key may appear once",
            ])
    }

    @Test(.timeLimit(.minutes(1))) func failsFastOnABillionLaughs() {
        var text = "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n"
        let names = ["b", "c", "d", "e", "f", "g", "h", "i"]
        var previous = "a"
        for name in names {
            text += "\(name): &\(name) [" + Array(repeating: "*\(previous)", count: 9).joined(separator: ",") + "]\n"
            previous = name
        }
        let start = ContinuousClock.now
        let found = errors(text)
        #expect(ContinuousClock.now - start < .seconds(1))
        #expect(found.count == 1)
        #expect(found.first?.message.contains("billion laughs") == true)
        #expect(found.first?.mark?.line == 6)
    }

    @Test func refusesDeepNestingWithoutOverflowingTheStack() {
        let found = errors(String(repeating: "[", count: 20_000))
        #expect(
            found.map(\.description) == [
                "1:65: lists and mappings nest deeper than 64 levels; a scenario needs only a few"
            ])
        let blockNesting = (0..<100).map { String(repeating: "  ", count: $0) + "k\($0):" }.joined(separator: "\n")
        #expect(errors(blockNesting).first?.mark == YamlMark(line: 65, column: 129))
    }

    @Test func refusesInvalidUTF8AndNULBytesWithTheirPosition() {
        #expect(
            errors(bytes: Array("a: 1\nb: x".utf8) + [0xFF]).map(\.description) == [
                "2:5: found the byte 0xFF that is not valid UTF-8; save the scenario as UTF-8 text"
            ])
        #expect(errors(bytes: Array("ab: é".utf8) + [0x00]).first?.mark == YamlMark(line: 1, column: 6))
        // An overlong encoding of "/" is not UTF-8 either.
        #expect(errors(bytes: [0x61, 0xC0, 0xAF]).first?.mark == YamlMark(line: 1, column: 2))
    }

    @Test(.timeLimit(.minutes(1))) func neverCrashesOnRandomBytes() {
        var generator = SplitMix64(seed: 99)
        for length in [1, 7, 64, 512, 4096] {
            for _ in 0..<50 {
                let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
                _ = errors(bytes: bytes)
                // Printable garbage reaches libyaml itself.
                let printable = bytes.map { 0x20 + $0 % 0x5F }
                _ = errors(bytes: printable)
            }
        }
    }

    @Test func passesLibyamlSyntaxErrorsThroughWithPosition() {
        let found = errors("target: { customerId: acme\nversion: 1\n")
        #expect(found.count == 1)
        #expect(
            found.first?.message.hasPrefix(
                "did not find expected ',' or '}' (while parsing a flow mapping that starts at 1:9)") == true)
    }

    @Test func explainsATabInTheIndentation() {
        let found = errors("target:\n\tcustomerId: acme\n")
        #expect(found.count == 1)
        #expect(found.first?.mark == YamlMark(line: 2, column: 1))
        #expect(found.first?.message.contains("found character that cannot start any token") == true)
        #expect(found.first?.message.contains("tab character: YAML indents with spaces only") == true)
    }

    @Test func readsAnEmptyStreamAsNoDocument() throws {
        #expect(try read("") == nil)
        #expect(try read("# only a comment\n\n") == nil)
    }

    @Test func expandsEnvironmentReferencesInValues() throws {
        let root = try #require(
            try read(
                "a: ${SECRET}\nb: x-${MISSING:-fallback}-y\nc: ${EMPTY:-dflt}\nd: $5 and ${SECRET}\n${KEY}: kept\n",
                environment: ["SECRET": "s3", "EMPTY": ""]))
        #expect(root["a"]?.scalarText == "s3")
        #expect(root["b"]?.scalarText == "x-fallback-y")
        #expect(root["c"]?.scalarText == "dflt")
        #expect(root["d"]?.scalarText == "$5 and s3")
        #expect(root["${KEY}"]?.scalarText == "kept")
    }

    @Test func reportsUnsetAndMalformedEnvironmentReferences() {
        #expect(
            errors("a: 1\nsecret: ${NOPE}\n").map(\.description) == [
                "2:9: the environment variable NOPE is not set; set it or give a default with ${NOPE:-default}"
            ])
        #expect(errors("a: ${1BAD}\n").first?.message.contains("is not an environment reference") == true)
        #expect(errors("a: ${OPEN\n").first?.message.contains("never closed") == true)
    }

    @Test func refusesNonScalarKeys() {
        #expect(errors("? [a, b]\n: 1\n").first?.description == "1:3: a mapping key must be a plain name, found a list")
    }
}
