import Foundation
import Testing

@testable import QueueSim

/// Token and cookie hashes against the reference vectors (queueit-server.md §1.4, §2, §6.1).
@Suite struct WaitingRoomTokenTests {
    @Test func hmacMatchesVendorVectors() {
        let key = "528f01d4-30f9-4753-95b3-2c8c33966abc"
        #expect(
            QueueITHash.hmacSHA256Hex(
                key: key,
                message:
                    "ts_1480593661~cv_10~ce_false~q_944c1f44-60dd-4e37-aabc-f3e4bb1c8895~c_customerid~e_eventid~rt_disabled"
            )
                == "286a17fb82009d8556465b2f0880a8e5e9565b42490669f4b8f1b93b7d6ddd51")
        #expect(
            QueueITHash.hmacSHA256Hex(key: key, message: "")
                == "eea56ce827b37369656f502c5a418cce5959d078ef2993589274ed7b26828d8b")
    }

    @Test func mintedTokensMatchReferenceVectors() {
        let queue = KnownUserToken(
            eventId: "e1", queueId: "6cf23f10-aca7-4fa2-840e-e10f56aecb44", expiryUnixSeconds: 1_797_033_600,
            redirectType: "queue")
        #expect(
            queue.signed(secretKey: RoomFixture.secret)
                == "e_e1~q_6cf23f10-aca7-4fa2-840e-e10f56aecb44~ts_1797033600~ce_true~rt_queue~h_b5b7085a3139e4d42f87e67d0748efa71e532a9e8609428cb9b073b8168c350b"
        )
        let safetynet = KnownUserToken(
            eventId: "e1", queueId: "6cf23f10-aca7-4fa2-840e-e10f56aecb44", expiryUnixSeconds: 1_797_033_600,
            extendableCookie: false, cookieValidityMinutes: 3, redirectType: "safetynet")
        #expect(
            safetynet.signed(secretKey: RoomFixture.secret).hasSuffix(
                "~h_ab9f96e080469d3a0508556b7121f9d11a39e83c256b6cc68671b609d96cefcb"))
    }

    @Test func validatorChecksHashThenEventThenExpiry() {
        let validator = KnownUserTokenValidator(secretKey: RoomFixture.secret, eventId: "e1")
        let token = KnownUserToken(
            eventId: "e1", queueId: "6cf23f10-aca7-4fa2-840e-e10f56aecb44", expiryUnixSeconds: 1_797_033_600,
            redirectType: "queue"
        ).signed(secretKey: RoomFixture.secret)
        // ts == now still passes; one second later it is expired.
        #expect((try? validator.validate(token, nowUnixSeconds: 1_797_033_600).get())?.redirectType == "queue")
        #expect(validator.validate(token, nowUnixSeconds: 1_797_033_601) == .failure(.timestamp))
        // Uppercase hex is accepted (Java and Python compare case-insensitively).
        let upper = token.replacingOccurrences(of: "~h_b5b7", with: "~h_B5B7")
        #expect((try? validator.validate(upper, nowUnixSeconds: 0).get()) != nil)
        let tampered = token.replacingOccurrences(of: "rt_queue", with: "rt_safetynet")
        #expect(validator.validate(tampered, nowUnixSeconds: 0) == .failure(.hash))
        let otherEvent = KnownUserTokenValidator(secretKey: RoomFixture.secret, eventId: "e2")
        #expect(otherEvent.validate(token, nowUnixSeconds: 0) == .failure(.eventid))
        let wrongKey = KnownUserTokenValidator(secretKey: "another-secret", eventId: "e1")
        #expect(wrongKey.validate(token, nowUnixSeconds: 0) == .failure(.hash))
        #expect(validator.validate("e_e1~q_x~ts_1", nowUnixSeconds: 0) == .failure(.hash))
    }

    @Test func parserSkipsPairsThatDoNotSplitInTwo() {
        let parsed = KnownUserTokenValidator.parse("e_e1~q_a_b~ts_5~junk~rt_queue~h_ff")
        #expect(parsed.eventId == "e1")
        #expect(parsed.queueId == nil)
        #expect(parsed.expiryUnixSeconds == 5)
        #expect(parsed.redirectType == "queue")
    }

    @Test func cookieHashesMatchReferenceVectors() {
        let extendable = AcceptedSessionCookie(
            eventId: "e1", queueId: "6cf23f10-aca7-4fa2-840e-e10f56aecb44", redirectType: "queue",
            issueTimeUnixSeconds: 1_700_000_000)
        #expect(
            extendable.hash(secretKey: RoomFixture.secret)
                == "e775fbb93b26a06111eedb012f7f03aaf385123ca2dfb21be74f349f9c3c75e5")
        let fixed = AcceptedSessionCookie(
            eventId: "e1", queueId: "6cf23f10-aca7-4fa2-840e-e10f56aecb44", fixedValidityMinutes: 3,
            redirectType: "safetynet", issueTimeUnixSeconds: 1_700_000_000)
        #expect(
            fixed.hash(secretKey: RoomFixture.secret)
                == "fc6818c138156f668967c6d68540b61c0c95ab8f4f4bb977dd9c4670ad733395")
        #expect(
            fixed.plainValue(secretKey: RoomFixture.secret)
                == "EventId=e1&QueueId=6cf23f10-aca7-4fa2-840e-e10f56aecb44&FixedValidityMins=3&RedirectType=safetynet&IssueTime=1700000000&Hash=fc6818c138156f668967c6d68540b61c0c95ab8f4f4bb977dd9c4670ad733395"
        )
    }

    @Test func cookieValidationChecksHashEventAndExpiry() {
        let cookie = AcceptedSessionCookie(
            eventId: "e1", queueId: "q1", redirectType: "queue", issueTimeUnixSeconds: 1_700_000_000)
        let encoded = cookie.encodedValue(secretKey: RoomFixture.secret)
        #expect(encoded.contains("%3D") && encoded.contains("%26"))
        func check(_ value: String, event: String = "E1", now: Int64) -> Bool {
            AcceptedSessionCookie.validate(
                encodedValue: value, eventId: event, secretKey: RoomFixture.secret, defaultValidityMinutes: 10,
                nowUnixSeconds: now) == .valid(cookie)
        }
        #expect(check(encoded, now: 1_700_000_600))
        #expect(!check(encoded, now: 1_700_000_601))
        #expect(!check(encoded, event: "e2", now: 1_700_000_000))
        #expect(!check(encoded.replacingOccurrences(of: "q1", with: "q2"), now: 1_700_000_000))
        #expect(!check("EventId%3De1", now: 1_700_000_000))
    }

    /// QueueToken.V1.JAVA `EnqueueTokenTest.token_withPayload` (reference §6.1).
    static let vendorEnqueueToken =
        "eyJ0eXAiOiJRVDEiLCJlbmMiOiJBRVMyNTYiLCJpc3MiOjE1MzQ3MjMyMDAwMDAsImV4cCI6MTUzOTEyOTYwMDAwMCwidGkiOiJhMjFkNDIzYS00M2ZkLTQ4MjEtODRmYS00MzkwZjZhMmZkM2UiLCJjIjoidGlja2V0YW5pYSIsImUiOiJteWV2ZW50In0.0rDlI69F1Dx4Twps5qD4cQrbXbCRiezBd6fH1PVm6CnVY456FALkAhN3rgVrh_PGCJHcEXN5zoqFg65MH8WZc_CQdD63hJre3Sedu0-9zIs.aZgzkJm57etFaXjjME_-9LjOgPNTTqkp1aJ057HuEiU"
    static let vendorEnqueueSecret = "5ebbf794-1665-4d48-80d6-21ac34be7faedf9e10b3-551a-4682-bb77-fee59d6355d6"

    @Test func enqueueTokenVerifierAcceptsVendorVectorOnceBeforeExpiry() {
        var verifier = EnqueueTokenVerifier(
            secretKey: Self.vendorEnqueueSecret, customerId: "ticketania", waitingRoomId: "myevent")
        #expect(verifier.admit(Self.vendorEnqueueToken, nowUnixMilliseconds: 1_539_129_600_001) == .expired)
        #expect(verifier.admit(Self.vendorEnqueueToken, nowUnixMilliseconds: 1_539_129_600_000) == nil)
        #expect(verifier.admit(Self.vendorEnqueueToken, nowUnixMilliseconds: 1_539_000_000_000) == .replayed)

        var otherRoom = EnqueueTokenVerifier(
            secretKey: Self.vendorEnqueueSecret, customerId: "ticketania", waitingRoomId: "other")
        #expect(otherRoom.admit(Self.vendorEnqueueToken, nowUnixMilliseconds: 0) == .event)
        var otherCustomer = EnqueueTokenVerifier(
            secretKey: Self.vendorEnqueueSecret, customerId: "acme", waitingRoomId: "myevent")
        #expect(otherCustomer.admit(Self.vendorEnqueueToken, nowUnixMilliseconds: 0) == .customer)
        var wrongSecret = EnqueueTokenVerifier(secretKey: "x", customerId: "ticketania", waitingRoomId: "myevent")
        #expect(wrongSecret.admit(Self.vendorEnqueueToken, nowUnixMilliseconds: 0) == .signature)
        #expect(wrongSecret.admit("not-a-token", nowUnixMilliseconds: 0) == .malformed)
    }
}
