import Testing

@testable import QueueClientCore

@Suite("queueittoken parsing")
struct QueueItTokenTests {
    @Test("the published vector tokens split into their pairs")
    func vectorFields() {
        let token = QueueItToken(TokenVectors.safetynet)
        #expect(token.eventId == "e1")
        #expect(token.queueId == "6cf23f10-aca7-4fa2-840e-e10f56aecb44")
        #expect(token.expiresAt == 1_797_033_600)
        #expect(token.value(for: "cv") == "3")
        #expect(token.hash == "ab9f96e080469d3a0508556b7121f9d11a39e83c256b6cc68671b609d96cefcb")
        #expect(token.fields.map(\.key) == ["e", "q", "ts", "ce", "cv", "rt", "h"])
        #expect(token.sdkRedirectType == "safetynet")
        #expect(QueueItToken(TokenVectors.queue).sdkRedirectType == "queue")
        let vendor = QueueItToken(TokenVectors.vendorDisabled)
        #expect(vendor.sdkRedirectType == "disabled")
        #expect(vendor.value(for: "c") == "customerid")
    }

    @Test("pairs that do not split into exactly two parts are skipped")
    func malformedPairs() {
        let token = QueueItToken("e_my_event~q_1~novalue~ts_5~rt_queue~h_ab")
        #expect(token.eventId == nil)
        #expect(token.fields.map(\.key) == ["q", "ts", "rt", "h"])
    }

    @Test("rt is read as the SDK reads it: between the first ~rt_ and the next ~")
    func sdkRedirectType() {
        // The vendor message without its hash ends with rt: no closing `~`, so no match.
        #expect(
            QueueItToken("ts_1480593661~cv_10~ce_false~q_944c~c_customerid~e_eventid~rt_disabled").sdkRedirectType
                == nil)
        #expect(QueueItToken("rt_safetynet~h_1").sdkRedirectType == nil)
        #expect(QueueItToken("e_1~rt_Safetynet~h_1").sdkRedirectType == "Safetynet")
        #expect(QueueItToken("e_1~rt_~h_1").sdkRedirectType == "")
        #expect(QueueItToken("e_1~rt_idle~rt_queue~h_1").sdkRedirectType == "idle")
    }

    @Test(
        "redirect type → engine decision",
        arguments: [
            ("safetynet", RedirectType.EngineDecision.passed), ("disabled", .disabled), ("afterevent", .disabled),
            ("idle", .disabled), ("queue", .showQueue), ("directLink", .showQueue), ("debug", .showQueue),
            ("bypass", .showQueue), ("Safetynet", .showQueue), ("somethingNew", .showQueue),
        ])
    func decisions(rt: String, expected: RedirectType.EngineDecision) {
        #expect(RedirectType(token: TokenVectors.with(rt: rt)).engineDecision == expected)
    }

    @Test("no token or an empty token means queue; a token without rt means unknown")
    func missingToken() {
        #expect(RedirectType(token: nil) == .queue)
        #expect(RedirectType(token: "") == .queue)
        #expect(RedirectType(token: "e_1~q_2~h_3") == .unknown)
        #expect(QueueTryPassResult.reportedRedirectType(token: nil) == "queue")
        #expect(QueueTryPassResult.reportedRedirectType(token: "e_1~h_3") == "unknown")
        #expect(QueueTryPassResult.reportedRedirectType(token: TokenVectors.with(rt: "Queue")) == "Queue")
    }
}
