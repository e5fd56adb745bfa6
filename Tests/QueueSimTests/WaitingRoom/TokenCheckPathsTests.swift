import Testing

@testable import QueueSim

/// The token check has a byte path for ASCII tokens (every token a run judges) and the string
/// path it replaced. They must reach the same verdict on every token, odd ones included.
@Suite("Token check: byte path and string path agree")
struct TokenCheckPathsTests {
    static let validator = KnownUserTokenValidator(secretKey: RoomFixture.secret, eventId: "spring-Launch")
    static let now: Int64 = 1_797_000_000

    static func signed(_ unsigned: String) -> String {
        unsigned + "~h_" + QueueITHash.hmacSHA256Hex(key: RoomFixture.secret, message: unsigned)
    }

    static let valid = signed("e_spring-launch~q_6cf23f10-aca7-4fa2-840e-e10f56aecb44~ts_1797033600~ce_true~rt_queue")

    static let tokens: [String] = [
        valid,
        valid.uppercased(),  // event id and hash in capitals: the hash compares case-insensitively
        valid.replacingOccurrences(of: "~h_", with: "~h_0"),  // wrong hash length
        String(valid.dropLast()) + "0",  // tampered hash
        signed("e_other~q_x~ts_1797033600~ce_true~rt_queue"),  // another event
        signed("e_SPRING-LAUNCH~q_x~ts_1797033600~rt_queue"),  // event id in other case
        signed("e_spring-launch~q_x~ts_1796999999~rt_queue"),  // expired a second ago
        signed("e_spring-launch~q_x~ts_1797000000~rt_queue"),  // expires now: still valid
        signed("e_spring-launch~q_x~ts_+1797033600~rt_queue"),  // Int64("+…") parses
        signed("e_spring-launch~q_x~ts_17970336x0~rt_queue"),  // unreadable expiry
        signed("e_spring-launch~q_x~rt_queue"),  // no expiry
        signed("q_x~ts_1797033600~rt_queue"),  // no event id
        signed("e_spring-launch~e_other~ts_1797033600"),  // the last pair of a key wins
        signed("e_other~e_spring-launch~ts_1797033600"),
        signed("e_spring_launch~ts_1797033600"),  // two underscores: the pair is skipped
        signed("e_spring-launch~~ts_1797033600~"),  // empty pairs
        "h_" + QueueITHash.hmacSHA256Hex(key: RoomFixture.secret, message: "") + "~e_spring-launch",  // hash first
        valid + "~h_" + String(repeating: "a", count: 64),  // a second hash pair wins
        valid + "~h_",  // an empty hash
        "e_spring-launch~ts_1797033600",  // no hash at all
        "",
        "~",
        "____",
        signed("e_spring-launch~q_é~ts_1797033600"),  // not ASCII: the string path
    ]

    @Test("Same verdict on every token", arguments: tokens)
    func sameVerdict(token: String) {
        let byBytes = Self.validator.check(token, nowUnixSeconds: Self.now)
        let byStrings = Self.validator.checkAsStrings(token, nowUnixSeconds: Self.now)
        #expect(byBytes == byStrings)
    }

    /// A non-ASCII expected id that is canonically equal to the token's ASCII one (`U+037E`
    /// decomposes to `;`): both paths compare as `String`s and accept it.
    @Test("The shape check without a secret agrees with the full parse", arguments: tokens + ["é_x~h_y", "e_é~h_1"])
    func shapeCheckAgrees(token: String) {
        let parsed = KnownUserTokenValidator.parse(token)
        #expect(KnownUserTokenValidator.hasEventIdAndHash(token) == (parsed.eventId != nil && parsed.hash != nil))
    }

    @Test func canonicallyEqualEventIds() {
        let validator = KnownUserTokenValidator(secretKey: RoomFixture.secret, eventId: "a\u{037E}b")
        let token = Self.signed("e_a;b~q_x~ts_1797033600~rt_queue")
        #expect(validator.check(token, nowUnixSeconds: Self.now) == nil)
        #expect(validator.checkAsStrings(token, nowUnixSeconds: Self.now) == nil)
        let other = Self.signed("e_a;c~q_x~ts_1797033600~rt_queue")
        #expect(validator.check(other, nowUnixSeconds: Self.now) == .eventid)
    }

    @Test func verdictsAreTheExpectedOnes() {
        #expect(Self.validator.check(Self.valid, nowUnixSeconds: Self.now) == nil)
        #expect(Self.validator.check(Self.tokens[3], nowUnixSeconds: Self.now) == .hash)
        #expect(Self.validator.check(Self.tokens[4], nowUnixSeconds: Self.now) == .eventid)
        #expect(Self.validator.check(Self.tokens[6], nowUnixSeconds: Self.now) == .timestamp)
        #expect(Self.validator.check(Self.tokens[7], nowUnixSeconds: Self.now) == nil)
    }

    @Test func preparedKeySignsLikeAFreshKey() {
        let token = KnownUserToken(eventId: "e1", queueId: "q", expiryUnixSeconds: 5, redirectType: "queue")
        #expect(
            token.signed(with: PreparedHMAC(key: RoomFixture.secret)) == token.signed(secretKey: RoomFixture.secret))
        let key = PreparedHMAC(key: "k")
        // The prepared state is copied per message: a second message is not hashed after the first.
        #expect(key.hex("a") == QueueITHash.hmacSHA256Hex(key: "k", message: "a"))
        #expect(key.hex("b") == QueueITHash.hmacSHA256Hex(key: "k", message: "b"))
    }
}

/// Queue ids are written and read over bytes; the ids must stay the ones the string code made.
@Suite struct QueueIdCodecTests {
    /// The id as the first implementation built it, with `String(radix:)` and padding.
    static func referenceId(seed: UInt64, ticket: Int) -> String {
        var maskSource = SeededRandom(seed: seed, purpose: .queueId, index: .max)
        let mask = maskSource.next() & 0xFFFF_FFFF_FFFF
        var random = SeededRandom(seed: seed, purpose: .queueId, index: UInt64(ticket))
        let high = random.next()
        let middle = random.next()
        func hex(_ value: UInt64, _ digits: Int) -> String {
            let text = String(value, radix: 16)
            return String(repeating: "0", count: max(0, digits - text.count)) + text
        }
        return
            "\(hex(high >> 32, 8))-\(hex((high >> 16) & 0xFFFF, 4))-\(hex(0x4000 | (high & 0x0FFF), 4))-\(hex(0x8000 | (middle & 0x3FFF), 4))-\(hex((UInt64(ticket) ^ mask) & 0xFFFF_FFFF_FFFF, 12))"
    }

    @Test func idsAreTheReferenceIdsAndReadBack() {
        for seed: UInt64 in [0, 6, 77, .max] {
            let codec = QueueIdCodec(seed: seed)
            for ticket in [0, 1, 2, 15, 16, 255, 4_096, 999_999, 1 << 40] {
                let id = codec.queueId(ofTicket: ticket)
                #expect(id == Self.referenceId(seed: seed, ticket: ticket))
                #expect(codec.ticket(forQueueId: id, ticketCount: ticket + 1) == ticket)
                #expect(codec.ticket(forQueueId: id.uppercased(), ticketCount: ticket + 1) == ticket)
                #expect(codec.ticket(forQueueId: id, ticketCount: ticket) == nil, "not issued yet")
            }
        }
    }

    @Test func foreignAndMalformedIdsAreRefused() {
        let codec = QueueIdCodec(seed: 6)
        let id = codec.queueId(ofTicket: 42)
        #expect(QueueIdCodec(seed: 7).ticket(forQueueId: id, ticketCount: 100) == nil)
        #expect(codec.ticket(forQueueId: String(id.dropLast()), ticketCount: 100) == nil)
        #expect(codec.ticket(forQueueId: id + "0", ticketCount: 100) == nil)
        #expect(codec.ticket(forQueueId: "x" + id.dropFirst(), ticketCount: 100) == nil)
        #expect(codec.ticket(forQueueId: String(id.dropLast(12)) + "+00000000002", ticketCount: 100) == nil)
        #expect(codec.ticket(forQueueId: String(id.dropLast(12)) + "zzzzzzzzzzzz", ticketCount: 100) == nil)
        #expect(codec.ticket(forQueueId: "", ticketCount: 100) == nil)
    }
}
