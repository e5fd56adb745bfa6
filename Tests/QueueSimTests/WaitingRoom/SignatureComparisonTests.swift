import Testing

@testable import QueueSim

/// The room's signature checks go through one constant-time comparison (issue 12, item 8):
/// the KnownUser token hash (case-insensitive, as the connectors compare it), the session
/// cookie's `Hash` and an enqueue token's signature (both exact). Timing cannot be asserted
/// reliably in a test; what is pinned here is that the exact comparison decides exactly as
/// `==` did, so the switch changed no verdict.
@Suite("room: signature comparison")
struct SignatureComparisonTests {
    @Test func exactComparisonDecidesLikeEquality() {
        let hash = "e775fbb93b26a06111eedb012f7f03aaf385123ca2dfb21be74f349f9c3c75e5"
        #expect(QueueITHash.equal(hash, Substring(hash)))
        #expect(!QueueITHash.equal(hash, hash.uppercased()), "the cookie's hex hash is compared exactly")
        #expect(!QueueITHash.equal(hash, String(hash.dropLast()) + "4"), "a difference in the last byte")
        #expect(!QueueITHash.equal(hash, "f" + hash.dropFirst()), "a difference in the first byte")
        #expect(!QueueITHash.equal(hash, hash.dropLast()), "a shorter forgery")
        #expect(!QueueITHash.equal("", "a"))
        #expect(QueueITHash.equal("", ""))
        #expect(QueueITHash.equalIgnoringCase(hash, hash.uppercased()), "the token hash ignores case")
    }

    @Test func aCookieWithAForgedOrRecasedHashIsRefused() {
        let cookie = AcceptedSessionCookie(
            eventId: "e1", queueId: "q1", redirectType: "queue", issueTimeUnixSeconds: 1_700_000_000)
        let plain = cookie.plainValue(secretKey: RoomFixture.secret)
        let hash = cookie.hash(secretKey: RoomFixture.secret)
        func verdict(_ value: String) -> AcceptedSessionCookie.Validation {
            AcceptedSessionCookie.validate(
                encodedValue: value, eventId: "e1", secretKey: RoomFixture.secret, defaultValidityMinutes: 10,
                nowUnixSeconds: 1_700_000_000)
        }
        #expect(verdict(plain) == .valid(cookie))
        #expect(verdict(plain.replacingFirst(hash, with: hash.uppercased())) == .invalid)
        #expect(verdict(plain.replacingFirst(hash, with: String(hash.dropLast()) + "0")) == .invalid)
        #expect(verdict(plain.replacingFirst(hash, with: "")) == .invalid)
    }

    @Test func anEnqueueTokenWithAnAlteredSignatureIsRefused() {
        let token = WaitingRoomTokenTests.vendorEnqueueToken
        let signature = token.split(separator: ".").last.map(String.init) ?? ""
        let last = signature.last == "A" ? "B" : "A"
        for forged in [
            token.dropLast() + last, String(token.dropLast()),
            token.replacingFirst(signature, with: signature.lowercased()),
        ] {
            var verifier = EnqueueTokenVerifier(
                secretKey: WaitingRoomTokenTests.vendorEnqueueSecret, customerId: "ticketania",
                waitingRoomId: "myevent")
            #expect(verifier.admit(String(forged), nowUnixMilliseconds: 0) == .signature, "\(forged)")
        }
    }
}
