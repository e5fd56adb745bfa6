import QueueClientCore
import Testing

@testable import QueueSim

/// Credentials in every form a server may echo them are removed from messages and CSV `error`
/// cells (issue 12, item 7): tokens are credentials, and reports are shared and archived.
@Suite("reports: secret redaction")
struct SecretRedactionTests {
    /// A KnownUser token as the room issues it (reference §1.3 order, a 64-hex HMAC).
    static let knownUserToken =
        "e_launch~q_6cf23f10-aca7-4fa2-840e-e10f56aecb44~ts_1797033600~ce_true~rt_queue~h_b5b7085a3139e4d42f87e67d0748efa71e532a9e8609428cb9b073b8168c350b"
    static let enqueueToken = WaitingRoomTokenTests.vendorEnqueueToken

    static let cases: [(label: String, text: String, redacted: String)] = [
        (
            "a bare KnownUser token", "the API refused \(knownUserToken) twice",
            "the API refused <redacted> twice"
        ),
        (
            "a bare token with ~ encoded as %7E",
            "t=" + knownUserToken.replacingOccurrences(of: "~", with: "%7E") + "%26x",
            "t=<redacted>%26x"
        ),
        ("a QueueitToken header", "QueueitToken: \(knownUserToken)", "QueueitToken: <redacted>"),
        ("an x-queueittoken header", "x-queueittoken:\(knownUserToken)\r\n", "x-queueittoken:<redacted>\r\n"),
        (
            "a parameter in capitals", "https://shop/?QUEUEITTOKEN=abc123&x=1",
            "https://shop/?QUEUEITTOKEN=<redacted>&x=1"
        ),
        ("a parameter in mixed case", "queueItToken=abc123", "queueItToken=<redacted>"),
        (
            "a URL-encoded parameter inside another URL",
            "t=https%3A%2F%2Fshop%2F%3Fqueueittoken%3Dabc123%26a%3D1",
            "t=https%3A%2F%2Fshop%2F%3Fqueueittoken%3D<redacted>%26a%3D1"
        ),
        (
            "a JSON member (the enqueue answer)",
            #"{"QueueId":"q1","QueueitToken":"\#(knownUserToken)","EventTargetUrl":"https://acme.example/launch"}"#,
            #"{"QueueId":"q1","QueueitToken":"<redacted>","EventTargetUrl":"https://acme.example/launch"}"#
        ),
        (
            "an escaped JSON member", #"body {\"QueueitToken\":\"abc123\"}"#,
            #"body {\"QueueitToken\":\"<redacted>\"}"#
        ),
        ("a JSON null stays", #"{"QueueitToken":null}"#, #"{"QueueitToken":null}"#),
        ("an enqueue token bare", "Enqueue token \(enqueueToken) was refused", "Enqueue token <redacted> was refused"),
        (
            "an enqueue token parameter", "?c=acme&enqueuetoken=\(enqueueToken)&e=launch",
            "?c=acme&enqueuetoken=<redacted>&e=launch"
        ),
        ("an enqueue key", #"{"enqueueKey": "KEY-0042"}"#, #"{"enqueueKey": "<redacted>"}"#),
        (
            "the session cookie",
            "Set-Cookie: QueueITAccepted-SDFrts345E-V3_launch=EventId%3Dlaunch%26QueueId%3Dq1%26Hash%3Dab12; Max-Age=86400",
            "Set-Cookie: QueueITAccepted-SDFrts345E-V3_launch=<redacted>; Max-Age=86400"
        ),
    ]

    @Test(arguments: cases.indices)
    func everyFormIsRedacted(index: Int) {
        let (label, text, redacted) = Self.cases[index]
        #expect(SecretRedaction.redact(text) == redacted, "\(label)")
    }

    @Test("messages without a credential are left exactly as they are")
    func plainMessagesAreKept() {
        for text in [
            "Enqueue token is malformed", "the API still redirects to the queue after the queueittoken",
            "Failed to load the queue: missing queue or target URL", "HTTP 503", "path_h_x ~h_xyz", "eyJ alone",
            "the enqueue key is unknown", "", "ünïcödé ✓ text",
        ] {
            #expect(SecretRedaction.redact(text) == text)
        }
    }

    @Test("a CSV error cell never carries a token, whatever its form")
    func errorCells() {
        let message =
            "403 QueueitToken: \(Self.knownUserToken) body {\"enqueueToken\":\"\(Self.enqueueToken)\"} bare \(Self.knownUserToken)"
        var row = CSVRowBuilder()
        VisitorRowFormat.encode(
            VisitorRecord(
                index: 0, group: "app", flow: "run", arrival: .origin, start: .origin, outcome: .error,
                error: message, ended: .origin + .milliseconds(5)),
            into: &row)
        let text = String(decoding: row.bytes, as: UTF8.self)
        #expect(!text.contains("h_b5b7085a"), "\(text)")
        #expect(!text.contains("eyJ0eXAi"), "\(text)")
        #expect(text.contains("403 QueueitToken: <redacted> body"), "\(text)")
        #expect(text.contains("bare <redacted>"), "\(text)")
    }
}
