import Foundation
import Testing

@testable import QueueSim

/// The report files' JSON writer gives Foundation's `JSONEncoder` bytes to the byte, so the
/// files written before it and after it are the same files (issue 51 item 8, issue 54 item 4).
@Suite("SortedJSONEncoder: JSONEncoder's bytes, faster")
struct SortedJSONEncoderTests {
    struct Inner: Codable {
        var name: String
        var values: [UInt64]
        var share: Double?
        var empty: [String: Int] = [:]
        var none: [Int] = []
    }

    struct Sample: Codable {
        var title: String
        var count: Int
        var big: UInt64
        var negative: Int64
        var small: Int32
        var flag: Bool
        var ratio: Double
        var missing: String?
        var present: String?
        var explicitNull: Int?
        var inner: Inner
        var list: [Inner]
        var words: [String: String]
        var nested: [[UInt64]]
        /// Written by the encoder's own path for lists of texts (the pending file's group names).
        var names: [String]

        enum CodingKeys: String, CodingKey {
            case title, count, big, negative, small, flag, ratio, missing, present, inner, list, words, nested, names
            case explicitNull = "explicit_null"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(title, forKey: .title)
            try container.encode(count, forKey: .count)
            try container.encode(big, forKey: .big)
            try container.encode(negative, forKey: .negative)
            try container.encode(small, forKey: .small)
            try container.encode(flag, forKey: .flag)
            try container.encode(ratio, forKey: .ratio)
            try container.encodeIfPresent(missing, forKey: .missing)
            try container.encodeIfPresent(present, forKey: .present)
            try container.encode(explicitNull, forKey: .explicitNull)
            try container.encode(inner, forKey: .inner)
            try container.encode(list, forKey: .list)
            try container.encode(words, forKey: .words)
            try container.encode(nested, forKey: .nested)
            try container.encode(names, forKey: .names)
        }
    }

    static func sample(_ generator: inout SplitMix) -> Sample {
        let texts = [
            "plain", "with \"quotes\" and \\ backslash", "a/b/c https://x.example/q?a=1", "tab\tnew\nline\r",
            "\u{01}\u{1f}\u{08}\u{0c}", "Ünïcödé ✓ 🚀", "",
        ]
        func text() -> String { texts[Int(generator.next() % UInt64(texts.count))] }
        func double() -> Double {
            switch generator.next() % 6 {
            case 0: Double(generator.next() % 1000)
            case 1: Double(generator.next() % 10_000) / 10_000
            case 2: Double(bitPattern: generator.next() & 0x7FEF_FFFF_FFFF_FFFF)
            case 3: -Double(generator.next() % 100) / 7
            case 4: 1e-7 * Double(generator.next() % 9 + 1)
            default: 1e21 * Double(generator.next() % 9 + 1)
            }
        }
        let inner = Inner(
            name: text(), values: (0..<Int(generator.next() % 4)).map { _ in generator.next() }, share: double())
        return Sample(
            title: text(), count: Int(truncatingIfNeeded: generator.next()), big: generator.next(),
            negative: -Int64(generator.next() % 1_000_000), small: Int32(truncatingIfNeeded: generator.next()),
            flag: generator.next() % 2 == 0, ratio: double(), missing: nil, present: text(), explicitNull: nil,
            inner: inner, list: (0..<Int(generator.next() % 3)).map { _ in inner },
            words: [
                "queuePathPrefix": text(), "queue_page": text(), "a": text(), "B": text(), "a_b": text(),
                "aB": text(), "10": text(), "9": text(),
            ], nested: [[1, 2], [], [generator.next()]], names: (0..<Int(generator.next() % 4)).map { _ in text() })
    }

    static func foundation(_ value: some Encodable, pretty: Bool) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting =
            pretty
            ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
            : [
                .sortedKeys, .withoutEscapingSlashes,
            ]
        return Array(try encoder.encode(value))
    }

    @Test func theBytesAreJSONEncodersPrettyAndCompact() throws {
        var generator = SplitMix(seed: 54)
        for _ in 0..<300 {
            let sample = Self.sample(&generator)
            for pretty in [true, false] {
                let mine = try SortedJSONEncoder(pretty: pretty).encode(sample)
                let theirs = try Self.foundation(sample, pretty: pretty)
                #expect(mine == theirs, "\(String(decoding: mine, as: UTF8.self))")
                if mine != theirs { return }
            }
        }
    }

    @Test func topLevelScalarsArraysAndEmptyContainers() throws {
        for pretty in [true, false] {
            #expect(
                try SortedJSONEncoder(pretty: pretty).encode([[String: Int]]())
                    == Self.foundation([[String: Int]](), pretty: pretty))
            #expect(
                try SortedJSONEncoder(pretty: pretty).encode([String: [Int]]())
                    == Self.foundation([String: [Int]](), pretty: pretty))
            #expect(
                try SortedJSONEncoder(pretty: pretty).encode([0.5, 2, 1e300])
                    == Self.foundation([0.5, 2, 1e300], pretty: pretty))
            #expect(try SortedJSONEncoder(pretty: pretty).encode("x/y") == Self.foundation("x/y", pretty: pretty))
        }
    }

    @Test func notANumberIsRefusedAsJSONEncoderRefusesIt() {
        #expect(throws: EncodingError.self) { try SortedJSONEncoder(pretty: true).encode([Double.nan]) }
        #expect(throws: EncodingError.self) { try SortedJSONEncoder(pretty: false).encode(["x": Double.infinity]) }
    }
}
