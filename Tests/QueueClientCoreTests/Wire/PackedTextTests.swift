import TestSeeds
import Testing

@testable import QueueClientCore

@Suite("PackedText: ids and queue queries kept without a heap block, given back exactly")
struct PackedTextTests {
    @Test(
        "every text comes back byte for byte",
        arguments: [
            "", "u", "visitor-42", "5f3ce8d2-c5a4-4a08-828d-58804dd4daeb", "5F3CE8D2-C5A4-4A08-828D-58804DD4DAEB",
            "q=5f3ce8d2-c5a4-4a08-828d-58804dd4daeb", "prefix7" + "00000000-0000-4000-8000-000000000000",
            "prefix78" + "00000000-0000-4000-8000-000000000000", "abc5f3ce8d2-c5a4-4a08-828d-58804dd4daeb",
            "abcd5f3ce8d2-c5a4-4a08-828d-58804dd4daeb", "5f3ce8d2-C5a4-4a08-828d-58804dd4daeb",
            "5f3ce8d2_c5a4-4a08-828d-58804dd4daeb", "5f3ce8d2-c5a4-4a08-828d-58804dd4daeg", "0123456789abcdef",
            "0123456789ABCDEF", "0123456789aBcdef", "0123456789abcdeg", "é=5f3ce8d2-c5a4-4a08-828d-58804dd4daeb",
            "12345678-1234-1234-1234-123456789012", "q=5f3ce8d2-c5a4-4a08-828d-58804dd4daeb&t=1",
        ])
    func roundTrip(_ text: String) {
        #expect(PackedText(text).string == text)
        #expect(PackedText(text) == PackedText(String(decoding: Array(text.utf8), as: UTF8.self)))
    }

    /// What the virtual driver reads at every forecast: the id after `q=`, as cutting the prefix
    /// off the whole text gives it; nil when the text is not `q=` and a packed id.
    @Test(
        "the id after a prefix, without the whole text",
        arguments: [
            ("q=5f3ce8d2-c5a4-4a08-828d-58804dd4daeb", "5f3ce8d2-c5a4-4a08-828d-58804dd4daeb"),
            ("q=5F3CE8D2-C5A4-4A08-828D-58804DD4DAEB", "5F3CE8D2-C5A4-4A08-828D-58804DD4DAEB"),
            // Not packed (an id of 16 digits packs only alone), or not after `q=`: nil.
            ("q=0123456789abcdef", nil), ("e=5f3ce8d2-c5a4-4a08-828d-58804dd4daeb", nil),
            ("5f3ce8d2-c5a4-4a08-828d-58804dd4daeb", nil), ("qq=5f3ce8d2-c5a4-4a08-828d-58804dd4daeb", nil),
            ("q=5f3ce8d2-c5a4-4a08-828d-58804dd4daeb&t=1", nil), ("q=visitor", nil),
        ] as [(String, String?)])
    func idAfterPrefix(_ text: String, _ expected: String?) {
        #expect(PackedText(text).packedId(after: "q=") == expected, "\(text)")
        if let expected { #expect("q=" + expected == text) }
    }

    @Test("different texts stay different, including the same UUID in the other case or after another prefix")
    func distinct() {
        let texts = [
            "5f3ce8d2-c5a4-4a08-828d-58804dd4daeb", "5F3CE8D2-C5A4-4A08-828D-58804DD4DAEB",
            "q=5f3ce8d2-c5a4-4a08-828d-58804dd4daeb", "e=5f3ce8d2-c5a4-4a08-828d-58804dd4daeb",
            "0123456789abcdef", "0123456789ABCDEF",
        ]
        #expect(Set(texts.map(PackedText.init)).count == texts.count)
    }

    @Test("a visitor result keeps its queue id and its counts through the packing")
    func resultFields() {
        var result = VisitorResult(
            outcome: .passed, lastHTTPStatus: 302, attempts: 2, polls: 70_000, requests: 70_002,
            queueId: "5f3ce8d2-c5a4-4a08-828d-58804dd4daeb", queueitToken: "e_x~q_y",
            marks: VisitorMarks(started: .origin, queueEntered: RunInstant(wholeNanoseconds: 5), ended: .origin))
        #expect(result.queueId == "5f3ce8d2-c5a4-4a08-828d-58804dd4daeb")
        #expect(result.lastHTTPStatus == 302 && result.polls == 70_000 && result.requests == 70_002)
        #expect(result.queueitToken == "e_x~q_y" && result.errorMessage == nil)
        #expect(result.marks.enqueueDecided == nil && result.marks.queueEntered == RunInstant(wholeNanoseconds: 5))
        result.lastHTTPStatus = nil
        result.queueitToken = nil
        #expect(result.lastHTTPStatus == nil && result.queueitToken == nil)
        result.lastHTTPStatus = 0
        #expect(result.lastHTTPStatus == 0)
    }

    /// The packing rule as the type's comment states it: up to three bytes of prefix and a UUID
    /// (`8-4-4-4-12` hex digits), or 16 hex digits alone; letters all of one case.
    private static func packs(_ text: [UInt8]) -> Bool {
        func isHex(_ byte: UInt8) -> Bool { Array("0123456789abcdefABCDEF".utf8).contains(byte) }
        func oneCase(_ digits: ArraySlice<UInt8>) -> Bool {
            let letters = digits.filter { $0 > UInt8(ascii: "9") }
            return letters.allSatisfy { $0 >= UInt8(ascii: "a") } || letters.allSatisfy { $0 <= UInt8(ascii: "F") }
        }
        if text.count == 16 { return text.allSatisfy(isHex) && oneCase(text[...]) }
        guard (36...39).contains(text.count) else { return false }
        let uuid = text[(text.count - 36)...]
        for (offset, byte) in uuid.enumerated() {
            if [8, 13, 18, 23].contains(offset) ? byte != UInt8(ascii: "-") : !isHex(byte) { return false }
        }
        return oneCase(uuid.filter { $0 != UInt8(ascii: "-") }[...])
    }

    @Test("ids with a byte changed, cut or prefixed pack exactly when the rule says, and come back")
    func mutatedIdsFollowTheRule() {
        var random = SplitMix64(seed: 32)
        let alphabet = Array("0123456789abcdefABCDEF-gG=q".utf8)
        let ids = ["5f3ce8d2-c5a4-4a08-828d-58804dd4daeb", "5F3CE8D2-C5A4-4A08-828D-58804DD4DAEB", "0123456789abcdef"]
        var packed = 0
        for round in 0..<6_000 {
            var text = Array(ids[round % ids.count].utf8)
            for _ in 0..<(random.next() % 3) where !text.isEmpty {
                text[Int(random.next() % UInt64(text.count))] = alphabet[Int(random.next() % UInt64(alphabet.count))]
            }
            let prefix = (0..<(random.next() % 5)).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }
            text = prefix + text
            if random.next() % 8 == 0 { text.removeLast() }
            let string = String(decoding: text, as: UTF8.self)
            let packedText = PackedText(string)
            #expect(packedText.string == string)
            #expect(packedText.utf8Count == text.count)
            let written = [UInt8](unsafeUninitializedCapacity: packedText.utf8Count + 3) { buffer, count in
                packedText.write(into: buffer)
                count = packedText.utf8Count
            }
            #expect(written == text, "\(string)")
            let prefixCount = text.count == 16 ? 0 : max(text.count - 36, 0)
            let isPacked = packedText.packedId(after: String(decoding: text[..<prefixCount], as: UTF8.self)) != nil
            #expect(isPacked == Self.packs(text), "\(string)")
            if isPacked { packed += 1 }
        }
        // Both sides of the rule were tried.
        #expect(packed > 1_000 && packed < 5_000)
    }

    @Test("a queue page's request target is its path, `?` and its query, packed or not")
    func requestTarget() {
        let queries: [String?] = [
            nil, "", "q=5f3ce8d2-c5a4-4a08-828d-58804dd4daeb", "q=5F3CE8D2-C5A4-4A08-828D-58804DD4DAEB",
            "c=acme&e=launch&q=5f3ce8d2-c5a4-4a08-828d-58804dd4daeb", "q=caf\u{e9}",
        ]
        for path in ["/", "/queue/acme/launch", "/pr\u{e9}fix/queue"] {
            for query in queries {
                let url = SimpleURL(scheme: "https", host: "acme.queue-it.net", path: path, query: query)
                let packed = PackedURL(base: PackedURL.Base(url), query: query)
                #expect(packed.pathAndQuery == url.pathAndQuery)
                #expect(packed.url == url)
            }
        }
    }
}
