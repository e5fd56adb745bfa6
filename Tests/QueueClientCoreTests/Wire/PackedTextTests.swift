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
}
